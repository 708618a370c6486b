/**
 * Bring a Neo4j database to this release's schema and data, as a deployment step of its own:
 *
 *   npm run migrate:neo4j                 # NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD[_FILE], NEO4J_DATABASE
 *   node dist/cli/migrate-neo4j.js        # the same, in the production image
 *
 * Then start the API instances with MIGRATE_ON_START=false: they wait until every step is
 * recorded instead of migrating themselves. Safe beside running instances and beside another
 * run of this command: the steps run under the database's migration lock, once
 * (src/store/neo4j/migrations.ts). Prints what it ran; exit code 0, or 1 with one line on stderr.
 */
import { loadEnvFile } from '../env-file';
import { ConfigError, loadConfig } from '../config';
import { createStore } from '../store';

/** Only the settings this step uses, so that it needs no JWT secret or admin password. */
const USED = [
  'NEO4J_URI',
  'NEO4J_USER',
  'NEO4J_PASSWORD',
  'NEO4J_PASSWORD_FILE',
  'NEO4J_DATABASE',
  'NEO4J_RETRY_SECONDS',
  'MIGRATION_WAIT_SECONDS',
  // The timeline periods are built in this zone (the instances' own).
  'SERVICE_TIME_ZONE',
];

export async function run(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  if (!env.NEO4J_URI) throw new ConfigError('NEO4J_URI is required: the Neo4j database to migrate');
  const config = loadConfig({ STORE: 'neo4j', ...Object.fromEntries(USED.map((name) => [name, env[name]])) });
  const store = await createStore({ ...config, migrateOnStart: true }, { info: out, warn: out });
  await store.close();
}

if (require.main === module) {
  loadEnvFile();
  run(process.env, (line) => console.log(line)).then(
    () => process.exit(0),
    (err) => {
      console.error(`migrate:neo4j failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
