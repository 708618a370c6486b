import type { GraphQLSchema } from 'graphql';
import { applyMiddleware, type IMiddlewareGenerator } from 'graphql-middleware';
import { allow, rule, shield } from 'graphql-shield';
import type { ShieldRule } from 'graphql-shield/typings/types';
import { AppError } from '../errors';
import type { MutationResolvers, QueryResolvers } from '../generated/graphql';
import type { GraphQLContext } from './context';

const unauthenticated = (ctx: GraphQLContext) =>
  new AppError(
    'UNAUTHENTICATED',
    ctx.viewer.presentedToken
      ? 'The token is invalid or expired; log in again'
      : 'Authentication required: send Authorization: Bearer <token>',
  );

// `contextual` caches a rule's answer for the request: it does not depend on the field's args.
export const isAuthenticated = rule({ cache: 'contextual' })(
  async (_parent, _args, ctx: GraphQLContext) => ((await ctx.viewer.user()) ? true : unauthenticated(ctx)),
);

export const isAdmin = rule({ cache: 'contextual' })(async (_parent, _args, ctx: GraphQLContext) => {
  const user = await ctx.viewer.user();
  if (!user) return unauthenticated(ctx);
  return user.role === 'ADMIN' ? true : new AppError('FORBIDDEN', 'This needs an ADMIN account');
});

export const isAdminOrSelf = rule({ cache: 'strict' })(
  async (_parent, args: { id?: number }, ctx: GraphQLContext) => {
    const user = await ctx.viewer.user();
    if (!user) return unauthenticated(ctx);
    return user.role === 'ADMIN' || user.id === args.id
      ? true
      : new AppError('FORBIDDEN', 'Only an ADMIN or the user itself may do this');
  },
);

/**
 * Who may call each root field. The maps are typed against the generated resolver types, so a new
 * Query or Mutation field that is given no rule here does not compile (and the authorization
 * matrix test fails): nothing becomes public by omission.
 */
type RuleMap<R> = { [K in keyof Required<R>]: ShieldRule };

export const queryRules: RuleMap<QueryResolvers> = {
  songs: allow,
  song: allow,
  songsForService: allow,
  songsByArtist: allow,
  services: allow,
  service: allow,
  servicesWithSong: allow,
  servicesAfter: allow,
  servicesBefore: allow,
  servicesBetween: allow,
  me: isAuthenticated,
  users: isAdmin,
  user: isAdminOrSelf,
};

export const mutationRules: RuleMap<MutationResolvers> = {
  login: allow,
  createSong: isAdmin,
  updateSong: isAuthenticated,
  deleteSong: isAuthenticated,
  createService: isAuthenticated,
  updateService: isAuthenticated,
  deleteService: isAuthenticated,
  addSongToService: isAuthenticated,
  removeSongFromService: isAuthenticated,
  setServiceSongs: isAuthenticated,
  createUser: isAdmin,
  updateUser: isAdminOrSelf,
  deleteUser: isAdmin,
};

/**
 * Guard the schema's entry points. Root fields are the only way into the graph, so shield runs on
 * Query and Mutation fields only; wrapping every leaf field (shield's default) would turn each
 * field of a 1,000-song list into an extra promise for an `allow` that protects nothing.
 */
export function applyPermissions(schema: GraphQLSchema): GraphQLSchema {
  const generator = shield(
    { Query: queryRules, Mutation: mutationRules },
    { allowExternalErrors: true, fallbackError: () => new AppError('FORBIDDEN', 'Not allowed') },
  ) as unknown as IMiddlewareGenerator<unknown, unknown, unknown>;
  const all = generator.generate(schema) as Record<string, unknown>;
  return applyMiddleware(schema, { Query: all.Query, Mutation: all.Mutation } as never);
}
