import type { GraphQLSchema } from 'graphql';
import { applyMiddleware, type IMiddlewareGenerator } from 'graphql-middleware';
import { allow, rule, shield } from 'graphql-shield';
import type { ShieldRule } from 'graphql-shield/typings/types';
import { AppError } from '../errors';
import type { GraphQLContext } from './context';
import { MUTATION_OPERATIONS, QUERY_OPERATIONS, operationOf, type Access, type RootField } from './operations';

export type { Access } from './operations';

/**
 * The access of every root field, read from the operation table (./operations.ts), which is typed
 * against the generated resolver types: a new Query or Mutation field given no access there does
 * not compile, so nothing becomes public by omission.
 */
type AccessMap<T> = { readonly [K in keyof T]: Access };

const accessOfTable = <T extends Record<string, { access: Access }>>(table: T): AccessMap<T> =>
  Object.fromEntries(Object.entries(table).map(([name, op]) => [name, op.access])) as AccessMap<T>;

export const QUERY_ACCESS = accessOfTable(QUERY_OPERATIONS);
export const MUTATION_ACCESS = accessOfTable(MUTATION_OPERATIONS);

/** The access of `Query.songs`-style field paths. */
export function accessOf(field: RootField): Access {
  return operationOf(field).access;
}

const unauthenticated = (ctx: GraphQLContext) =>
  new AppError(
    'UNAUTHENTICATED',
    ctx.viewer.wrongScheme
      ? 'Send the token as Authorization: Bearer <token>'
      : ctx.viewer.presentedToken
      ? 'The token is invalid or expired; log in again'
      : 'Authentication required: send Authorization: Bearer <token>',
  );

/**
 * The one access decision, used by the shield rules below and by the REST facade, which asks
 * before it reads a request body so that a caller learns "who are you" before "what is wrong".
 * `id` is the target record for adminOrSelf fields.
 */
export async function decideAccess(access: Access, ctx: GraphQLContext, id?: number): Promise<true | AppError> {
  if (access === 'public') return true;
  const user = await ctx.viewer.user();
  if (!user) return unauthenticated(ctx);
  if (access === 'auth' || user.role === 'ADMIN') return true;
  if (access === 'adminOrSelf' && user.id === id) return true;
  return new AppError(
    'FORBIDDEN',
    access === 'admin' ? 'This needs an ADMIN account' : 'Only an ADMIN or the user itself may do this',
  );
}

/**
 * A rule that throws is answered with shield's fallback (FORBIDDEN), which would tell a caller
 * whose credentials could not be read (the store unavailable: 503 with Retry-After on REST) that
 * it may not. Returned, the error is the field's answer, as on REST.
 */
const decided = (decision: Promise<true | AppError>) =>
  decision.catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));

// `contextual` caches a rule's answer for the request where it does not depend on the field's args.
const RULES: Record<Access, ShieldRule> = {
  public: allow,
  auth: rule({ cache: 'contextual' })((_p, _a, ctx: GraphQLContext) => decided(decideAccess('auth', ctx))),
  admin: rule({ cache: 'contextual' })((_p, _a, ctx: GraphQLContext) => decided(decideAccess('admin', ctx))),
  adminOrSelf: rule({ cache: 'strict' })((_p, args: { id?: number }, ctx: GraphQLContext) =>
    decided(decideAccess('adminOrSelf', ctx, args.id)),
  ),
};

const rulesOf = (map: Readonly<Record<string, Access>>) =>
  Object.fromEntries(Object.entries(map).map(([field, access]) => [field, RULES[access]]));

/**
 * Guard the schema's entry points. Root fields are the only way into the graph, so shield runs on
 * Query and Mutation fields only; wrapping every leaf field (shield's default) would turn each
 * field of a 1,000-song list into an extra promise for an `allow` that protects nothing.
 */
export function applyPermissions(schema: GraphQLSchema): GraphQLSchema {
  const generator = shield(
    { Query: rulesOf(QUERY_ACCESS), Mutation: rulesOf(MUTATION_ACCESS) },
    { allowExternalErrors: true, fallbackError: () => new AppError('FORBIDDEN', 'Not allowed') },
  ) as unknown as IMiddlewareGenerator<unknown, unknown, unknown>;
  const all = generator.generate(schema) as Record<string, unknown>;
  return applyMiddleware(schema, { Query: all.Query, Mutation: all.Mutation } as never);
}
