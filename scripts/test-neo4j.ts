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
 * Extra arguments go to jest. Exit code: jest's.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { localNeo4jMissing, startLocalNeo4j } from './neo4j-local';

export const NEO4J_SUITES = [
  'test/store.contract.test.ts',
  'test/neo4j.migrate.test.ts',
  'test/analytics.contract.test.ts',
  'test/neo4j.schema-migrations.test.ts',
  'test/migrate.test.ts',
];
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
function jest(env: NodeJS.ProcessEnv, extra: string[]): Promise<number> {
  const bin = path.join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
  const run = spawn(process.execPath, [bin, '--ci', '--runInBand', ...NEO4J_SUITES, ...extra], {
    stdio: 'inherit',
    env,
    cwd: path.join(__dirname, '..'),
  });
  return new Promise((resolve) => {
    run.on('error', () => resolve(1));
    run.on('exit', (code) => resolve(code ?? 1));
  });
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
    return jest(process.env, extra);
  }
  const noContainer = await containerRuntimeMissing();
  if (noContainer === null) {
    const { Neo4jContainer } = await import('@testcontainers/neo4j');
    console.log(`test:neo4j: NEO4J_URI is not set; starting ${NEO4J_IMAGE} with testcontainers`);
    const container = await new Neo4jContainer(NEO4J_IMAGE).withPassword('test-neo4j-password').start();
    try {
      return await jest(
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
      return await jest(serverEnv(server), extra);
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
  return jest(process.env, extra);
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
