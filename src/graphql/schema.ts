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

/** The executable schema with its resolvers, guarded by graphql-shield; writes that pass it are audited. */
export function buildSchema(): GraphQLSchema {
  const executable = makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers: resolvers as never });
  return applyPermissions(applyAudit(executable));
}
