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
 * It runs the test tiers of NEO4J_PROJECTS (below), one file at a time since they share the one
 * database, the end-to-end tier on STORE=neo4j (TEST_STORE=neo4j), and then checks that
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

/**
 * The jest projects (test tiers, jest.config.js) run against the server: the contracts (every store
 * they can reach), the end-to-end API suites on STORE=neo4j (TEST_STORE=neo4j: test/helpers/server.ts
 * and test/helpers/test-store.ts open the store it names), and what only Neo4j has. The other tiers
 * are about no store (unit, meta), the embedded one only (sqlite), the process above the store
 * (service) or pages (browser); `npm test` runs them.
 */
export const NEO4J_PROJECTS = ['contract', 'e2e', 'neo4j'] as const;
/** Without a server, the suites that reach Neo4j themselves report their Neo4j parts as skipped. */
const WITHOUT_SERVER = ['contract', 'neo4j'] as const;

const projects = (names: readonly string[]) => ['--selectProjects', ...names];

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
function jest(env: NodeJS.ProcessEnv, selection: string[], extra: string[]): Promise<number> {
  // The selection goes last: --selectProjects takes every word after it as a project's name.
  const bin = path.join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
  const run = spawn(process.execPath, [bin, '--ci', '--runInBand', ...extra, ...selection], {
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
    const code = await jest({ ...env, TEST_STORE: 'neo4j', [STATEMENT_LOG_ENV]: log }, projects(NEO4J_PROJECTS), extra);
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
  return jest(process.env, projects(WITHOUT_SERVER), extra);
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
