import { dummyHash, hashPassword, verifyPassword } from '../../auth/passwords';
import { assertId, rules, validate } from '../../domain/validation';
import { AppError, CONFLICTS, notFound } from '../../errors';
import type { Resolvers } from '../../generated/graphql';
import { itemsOf, pageOf } from './paging';

const { lastAdmin, usernameTaken } = CONFLICTS;

export const userResolvers: Resolvers = {
  Query: {
    // The permission rule guarantees a viewer here.
    me: async (_, __, ctx) => (await ctx.viewer.user())!,
    // Accounts are the operators of one church: a handful, read whole and paged here.
    users: async (_, args, ctx, info) => {
      const { limit, offset = 0 } = pageOf(args);
      const all = await ctx.store.listUsers();
      const items = all.slice(offset, limit === undefined ? undefined : offset + limit);
      return itemsOf(ctx, info, { items, totalCount: all.length });
    },
    user: (_, { id }, ctx) => ctx.loaders.user.load(assertId(id)),
  },
  Mutation: {
    login: async (_, { username, password }, ctx) => {
      await ctx.loginLimiter.assertAllowed(username, ctx.clientAddress);
      const found = await ctx.store.credentialsByUsername(username);
      // Verify even for an unknown user so both failures take the same time and say the same thing.
      const valid = await verifyPassword(password, found?.passwordHash ?? (await dummyHash()));
      if (!found || !valid) {
        await ctx.loginLimiter.recordFailure(username, ctx.clientAddress);
        throw new AppError('UNAUTHENTICATED', 'Invalid username or password');
      }
      await ctx.loginLimiter.recordSuccess(username, ctx.clientAddress);
      const user = { id: found.id, username: found.username, role: found.role };
      const issued = ctx.tokens.issue(user, found.tokenVersion);
      return { token: issued.token, tokenType: 'Bearer', expiresIn: issued.expiresIn, user };
    },
    createUser: async (_, args, ctx) => {
      const input = validate(rules.createUser, args);
      const user = await ctx.store.createUser({
        username: input.username,
        passwordHash: await hashPassword(input.password),
        role: args.role ?? 'USER',
      });
      if (!user) throw usernameTaken(input.username);
      return user;
    },
    updateUser: async (_, { id, role, ...fields }, ctx) => {
      assertId(id);
      const input = validate(rules.updateUser, fields);
      if (role === null) {
        throw new AppError('VALIDATION_FAILED', 'The request is not valid', {
          details: [{ field: 'role', message: 'must not be null' }],
        });
      }
      const viewer = (await ctx.viewer.user())!;
      if (role !== undefined && viewer.role !== 'ADMIN') {
        throw new AppError('FORBIDDEN', 'Only an ADMIN may change a role');
      }
      const result = await ctx.store.updateUser(id, {
        username: input.username,
        passwordHash: input.password === undefined ? undefined : await hashPassword(input.password),
        role,
      });
      if (result === null) throw notFound('User', id);
      if (result === 'conflict') throw usernameTaken(input.username!);
      if (result === 'last-admin') throw lastAdmin();
      ctx.loaders.user.clear(id).prime(id, result);
      return result;
    },
    deleteUser: async (_, { id }, ctx) => {
      const result = await ctx.store.deleteUser(assertId(id));
      if (result === 'last-admin') throw lastAdmin();
      if (!result) throw notFound('User', id);
      ctx.loaders.user.clear(id);
      return true;
    },
  },
};
