/**
 * `npm run test:neo4j`: the Neo4j suites against a real Neo4j 5.
 *
 * - NEO4J_URI set: run them against that server (NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE).
 *   The suites DELETE EVERYTHING in that database.
 * - NEO4J_URI unset and a container runtime (Docker) available: start `neo4j:5` with
 *   @testcontainers/neo4j, run them against it, stop it.
 * - Neither, but Java 17+ and Maven here: start Neo4j 5.26 with the local launcher
 *   (scripts/neo4j-local.ts, `npm run neo4j:local`), run them against it, stop it.
 * - None of the three: say plainly that the Neo4j harness is skipped and why, then run the same
 *   suites, whose Neo4j blocks report themselves as skipped (SQLite and the adapter checks still
 *   run). With CI=true a skip is a failure instead: exit 1 without running them.
 *
 * Against a server it also runs the end-to-end API suites on STORE=neo4j (E2E_SUITES, with
 * TEST_STORE=neo4j), one file at a time since they share the one database, and then checks that
 * every Cypher statement of src/store/neo4j/ ran on the server (scripts/statement-coverage.ts,
 * from what the driver recorded under NEO4J_STATEMENT_LOG); a statement left out fails the run.
 * Extra arguments go to jest and make a partial run, whose coverage is not checked.
 *
 * Exit code: jest's, or 1 when the statement coverage check fails.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { localNeo4jMissing, startLocalNeo4j } from './neo4j-local';
import { STATEMENT_LOG_ENV } from '../src/store/neo4j/statement-log';
import { coverageReport } from './statement-coverage';

export const NEO4J_SUITES = [
  'test/store.contract.test.ts',
  'test/neo4j.migrate.test.ts',
  'test/analytics.contract.test.ts',
  'test/neo4j.schema-migrations.test.ts',
  'test/migrate.test.ts',
  'test/neo4j.statement-coverage.test.ts',
  'test/neo4j.plans.test.ts',
  'test/neo4j.tck.test.ts',
  'test/neo4j.write-checks.test.ts',
  'test/neo4j.usage.test.ts',
  'test/neo4j.concurrency.test.ts',
  'test/neo4j.batches.test.ts',
  'test/neo4j.data-migrations.test.ts',
  'test/neo4j.timeline.test.ts',
  'test/setlist.property.test.ts',
  'test/neo4j.cluster.test.ts',
  'test/replicas.e2e.test.ts',
];

/**
 * The end-to-end suites that run on STORE=neo4j too: the same files as on SQLite, their servers
 * and stores opened by test/helpers/server.ts and test/helpers/test-store.ts on the store TEST_STORE
 * names. Every suite that starts a test server is either here or in NOT_ON_NEO4J, with the reason
 * it stays on SQLite (test/neo4j.suites.test.ts holds both lists to that).
 */
export const E2E_SUITES = [
  'test/smoke.e2e.test.ts',
  'test/test-store.e2e.test.ts',
  'test/rest.songs.e2e.test.ts',
  'test/rest.services.e2e.test.ts',
  'test/rest.setlists.e2e.test.ts',
  'test/rest.persistence.e2e.test.ts',
  'test/rest.hardening.e2e.test.ts',
  'test/users.e2e.test.ts',
  'test/auth.matrix.e2e.test.ts',
  'test/cli.user.test.ts',
  'test/store-queries.e2e.test.ts',
  'test/search.test.ts',
  'test/graphql.e2e.test.ts',
  'test/graphql.clients.e2e.test.ts',
  'test/graphql.requests.e2e.test.ts',
  'test/graphql.cost.e2e.test.ts',
  'test/analytics.e2e.test.ts',
  'test/analytics.timeline.e2e.test.ts',
  'test/import.test.ts',
  'test/protocol.e2e.test.ts',
  'test/observability.e2e.test.ts',
  'test/response-size.e2e.test.ts',
  'test/explorers.e2e.test.ts',
  'test/openapi.test.ts',
  'test/fuzz.rest.test.ts',
  'test/fuzz.graphql.test.ts',
  'test/licensing.e2e.test.ts',
  'test/relation-pages.e2e.test.ts',
  'test/reports.csv.test.ts',
];

/** Suites left out of the Neo4j run: SQLite-only, or not about the store. */
export const NOT_ON_NEO4J: Record<string, string> = {
  'test/backup.test.ts': 'copies the SQLite file (a Neo4j store is backed up with neo4j-admin)',
  'test/sqlite.concurrency.test.ts': 'writers in several processes on one SQLite file',
  'test/sqlite.migration.test.ts': "SQLite's schema migration",
  'test/sqlite.migrations.test.ts': "SQLite's schema migrations",
  'test/sqlite.plans.test.ts': "SQLite's query plans",
  'test/lifecycle.e2e.test.ts':
    'the process itself: SIGTERM draining and SQLite startup failures (the Neo4j startup wait and refusals: test/neo4j.unavailable.test.ts)',
  'test/process.e2e.test.ts': 'the process itself: configuration refusals, secrets kept out of output, SIGTERM',
  'test/batching.test.ts': "counts the resolvers' calls into the store (DataLoader batching, above the store)",
  'test/one-pass.e2e.test.ts': 'what a request does between the socket and the resolver (access decided once, the token verified once), above the store',
  'test/graphql.express-handler.test.ts': "the /graphql handler's request translation for Apollo, above the store",
  'test/graphql.http-audit.e2e.test.ts': "the GraphQL-over-HTTP protocol (graphql-http's audits): media types, methods and statuses, above the store",
  'test/browser.explorers.test.ts': 'GraphiQL and Swagger UI in Chromium: pages that do not depend on the store',
  'test/browser.insights.test.ts': 'the Insights page in Chromium: a client of the analytics API the suites above cover',
  'test/browser.insights-export.test.ts': "the Insights page's CSV link in Chromium: the CSV itself is test/reports.csv.test.ts, run above",
  'test/readme.tour.test.ts': "the README's tour, which runs the quick start on the embedded SQLite store",
  'test/seed.test.ts': 'the demo calendar of `npm run seed`, checked on the SQLite file it writes',
  'test/start.e2e.test.ts': 'the documented start command under a supervisor (signals), on the quick start\'s SQLite store',
  'test/rate-limit.e2e.test.ts': 'request rate limits, which count requests in front of the store, whichever it is',
  'test/limits.redis.e2e.test.ts':
    'limits shared through Redis, in front of the store, whichever it is (on Neo4j, with real replicas: test/replicas.e2e.test.ts)',
  'test/sqlite.open-race.test.ts':
    'processes opening one SQLite file at once (on Neo4j: test/neo4j.schema-migrations.test.ts and test/replicas.e2e.test.ts)',
};
export const NEO4J_IMAGE = 'neo4j:5';

/** Why no container can be started here, or null when a container runtime answers. */
export async function containerRuntimeMissing(): Promise<string | null> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Asynchronous, so this process keeps reading the local Neo4j's output while jest runs (a
 * blocked pipe would stall the server).
 */
function jest(env: NodeJS.ProcessEnv, suites: string[], extra: string[]): Promise<number> {
  const bin = path.join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
  const run = spawn(process.execPath, [bin, '--ci', '--runInBand', ...suites, ...extra], {
    stdio: 'inherit',
    env,
    cwd: path.join(__dirname, '..'),
  });
  return new Promise((resolve) => {
    run.on('error', () => resolve(1));
    run.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Every suite against the server `env` names, the API suites on STORE=neo4j, then the coverage check. */
async function againstServer(env: NodeJS.ProcessEnv, extra: string[]): Promise<number> {
  const log = fs.mkdtempSync(path.join(os.tmpdir(), 'neo4j-statements-'));
  try {
    const code = await jest({ ...env, TEST_STORE: 'neo4j', [STATEMENT_LOG_ENV]: log }, [...NEO4J_SUITES, ...E2E_SUITES], extra);
    if (extra.length > 0) {
      console.log('statement coverage: not checked (extra jest arguments make a partial run)');
      return code;
    }
    const { ok, lines } = coverageReport(log);
    for (const line of lines) console.log(line);
    return code !== 0 ? code : ok ? 0 : 1;
  } finally {
    fs.rmSync(log, { recursive: true, force: true });
  }
}

const serverEnv = (s: { uri: string; user: string; password: string }): NodeJS.ProcessEnv => ({
  ...process.env,
  NEO4J_URI: s.uri,
  NEO4J_USER: s.user,
  NEO4J_PASSWORD: s.password,
});

async function main(extra: string[]): Promise<number> {
  if (process.env.NEO4J_URI) {
    console.log(`test:neo4j: running the Neo4j suites against NEO4J_URI=${process.env.NEO4J_URI}`);
    return againstServer(process.env, extra);
  }
  const noContainer = await containerRuntimeMissing();
  if (noContainer === null) {
    const { Neo4jContainer } = await import('@testcontainers/neo4j');
    console.log(`test:neo4j: NEO4J_URI is not set; starting ${NEO4J_IMAGE} with testcontainers`);
    const container = await new Neo4jContainer(NEO4J_IMAGE).withPassword('test-neo4j-password').start();
    try {
      return await againstServer(
        serverEnv({ uri: container.getBoltUri(), user: container.getUsername(), password: container.getPassword() }),
        extra,
      );
    } finally {
      await container.stop();
    }
  }
  const noLauncher = localNeo4jMissing();
  if (noLauncher === null) {
    console.log(
      `test:neo4j: NEO4J_URI is not set and no container runtime answers (testcontainers: ${noContainer}); ` +
        'starting Neo4j 5.26 with the local launcher (npm run neo4j:local)',
    );
    // A launcher that should run but fails is a failure, never a skip: main() rejects.
    const server = await startLocalNeo4j({ log: (line) => console.log(line) });
    console.log(`test:neo4j: Neo4j is at ${server.uri}`);
    try {
      return await againstServer(serverEnv(server), extra);
    } finally {
      await server.stop();
    }
  }
  const why =
    `test:neo4j: Neo4j harness SKIPPED: NEO4J_URI is not set and no container runtime is available ` +
    `to start ${NEO4J_IMAGE} (testcontainers: ${noContainer}), and the local launcher cannot run (${noLauncher}).`;
  if (process.env.CI === 'true') {
    console.log(`${why}\ntest:neo4j: FAILED: with CI=true the Neo4j suites must run against a real Neo4j.`);
    return 1;
  }
  console.log(`${why} Running the suites without it.`);
  return jest(process.env, NEO4J_SUITES, extra);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(`test:neo4j failed: ${(err as Error).stack ?? err}`);
      process.exit(1);
    },
  );
}
