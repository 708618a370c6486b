import fs from 'node:fs';
import path from 'node:path';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { applyAudit } from '../observability/audit';
import { applyPermissions } from './permissions';
import { resolvers } from './resolvers';

/** schema/*.graphql is the single source of the API: both facades are built from it. */
export const SCHEMA_DIR = path.resolve(__dirname, '../../schema');

export function loadTypeDefs(dir = SCHEMA_DIR): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
}

export interface Schemas {
  /**
   * The executable schema with its resolvers; writes are audited. No access checks: for a caller
   * that decides each root field's access itself before running it (REST, src/rest/router.ts).
   */
  unguarded: GraphQLSchema;
  /** The same resolvers with graphql-shield on every root field: what /graphql runs. */
  guarded: GraphQLSchema;
}

export function buildSchemas(): Schemas {
  const unguarded = applyAudit(makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers: resolvers as never }));
  return { unguarded, guarded: applyPermissions(unguarded) };
}

/** The executable schema with its resolvers, guarded by graphql-shield; writes that pass it are audited. */
export function buildSchema(): GraphQLSchema {
  return buildSchemas().guarded;
}
