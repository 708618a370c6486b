import { type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { applyMiddleware } from 'graphql-middleware';
import type { GraphQLContext } from '../graphql/context';
import { MUTATION_OPERATIONS, type MutationField, type RecordKind } from '../graphql/operations';
import { toAppError } from '../http/errors';

/**
 * The record kind each write touches, from the operation table (src/graphql/operations.ts), where
 * every mutation must state one (null: not a write), so a new mutation cannot go unaudited.
 */
export const AUDITED: { readonly [K in MutationField]: RecordKind | null } = Object.fromEntries(
  Object.entries(MUTATION_OPERATIONS).map(([name, op]) => [name, op.audit]),
) as { [K in MutationField]: RecordKind | null };

type Args = Record<string, unknown>;

/** Which record: the id argument, a setlist's service (and song), or the id a create returned. */
function recordOf(kind: RecordKind, args: Args, result: unknown): Record<string, unknown> {
  if (kind === 'Setlist') {
    return { type: kind, serviceId: args.serviceId, ...(args.songId !== undefined && { songId: args.songId }) };
  }
  const id = args.id ?? (result as { id?: unknown } | null)?.id;
  return { type: kind, id };
}

/**
 * Log every write through GraphQL or REST (SOFA runs the same schema): who, which operation, which
 * record, and whether it succeeded. Argument names are logged, never their values (passwords).
 */
export function applyAudit(schema: GraphQLSchema): GraphQLSchema {
  const audited = Object.fromEntries(
    Object.entries(AUDITED)
      .filter(([, kind]) => kind !== null)
      .map(([field, kind]) => [
        field,
        async (
          resolve: (p: unknown, a: Args, c: GraphQLContext, i: GraphQLResolveInfo) => unknown,
          parent: unknown,
          args: Args,
          ctx: GraphQLContext,
          info: GraphQLResolveInfo,
        ) => {
          let result: unknown;
          let outcome = 'ok';
          try {
            result = await resolve(parent, args, ctx, info);
            return result;
          } catch (err) {
            outcome = toAppError(err).code;
            throw err;
          } finally {
            // Shield already resolved the viewer for every write, so this reads a cached value.
            const user = await ctx.viewer.user().catch(() => null);
            ctx.log.info(
              {
                event: 'audit',
                reqId: ctx.scope?.id,
                userId: user?.id,
                username: user?.username,
                operation: info.fieldName,
                record: recordOf(kind!, args, result),
                fields: Object.keys(args).filter((k) => k !== 'id' && k !== 'serviceId'),
                outcome,
              },
              'write',
            );
          }
        },
      ]),
  );
  return applyMiddleware(schema, { Mutation: audited } as never);
}
