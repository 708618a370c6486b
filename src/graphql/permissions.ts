import type { GraphQLSchema } from 'graphql';
import { applyMiddleware, type IMiddlewareGenerator } from 'graphql-middleware';
import { allow, rule, shield } from 'graphql-shield';
import type { ShieldRule } from 'graphql-shield/typings/types';
import { AppError } from '../errors';
import type { MutationResolvers, QueryResolvers } from '../generated/graphql';
import type { GraphQLContext } from './context';

/** Who may call a root field (docs/API.md). */
export type Access = 'public' | 'auth' | 'admin' | 'adminOrSelf';

/**
 * The access of every root field. Typed against the generated resolver types, so a new Query or
 * Mutation field that is given no access here does not compile: nothing becomes public by omission.
 */
type AccessMap<R> = { [K in keyof Required<R>]: Access };

export const QUERY_ACCESS: AccessMap<QueryResolvers> = {
  songs: 'public',
  song: 'public',
  songsForService: 'public',
  songsByArtist: 'public',
  songsConnection: 'public',
  services: 'public',
  service: 'public',
  servicesWithSong: 'public',
  servicesAfter: 'public',
  servicesBefore: 'public',
  servicesBetween: 'public',
  servicesConnection: 'public',
  songUsage: 'public',
  songUsageById: 'public',
  songsNotSungSince: 'public',
  newSongs: 'public',
  songsSungWith: 'public',
  usageTimeline: 'public',
  artistUsage: 'public',
  songsSungOften: 'public',
  me: 'auth',
  users: 'admin',
  user: 'adminOrSelf',
};

export const MUTATION_ACCESS: AccessMap<MutationResolvers> = {
  login: 'public',
  createSong: 'admin',
  updateSong: 'auth',
  deleteSong: 'auth',
  createService: 'auth',
  updateService: 'auth',
  deleteService: 'auth',
  addSongToService: 'auth',
  removeSongFromService: 'auth',
  setServiceSongs: 'auth',
  createUser: 'admin',
  updateUser: 'adminOrSelf',
  deleteUser: 'admin',
};

/** The access of `Query.songs`-style field paths. */
export function accessOf(field: string): Access {
  const [type, name] = field.split('.');
  const map: Record<string, Access> = type === 'Query' ? QUERY_ACCESS : MUTATION_ACCESS;
  return map[name];
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

const rulesOf = (map: Record<string, Access>) =>
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
