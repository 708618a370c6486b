/**
 * `npm run test:neo4j`: the Neo4j suites against a real Neo4j 5.
 *
 * - NEO4J_URI set: run them against that server (NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE).
 *   The suites DELETE EVERYTHING in that database.
 * - NEO4J_URI unset and a container runtime (Docker) available: start `neo4j:5` with
 *   @testcontainers/neo4j, run them against it, stop it.
 * - Neither: say plainly that the Neo4j harness is skipped and why, then run the same suites,
 *   whose Neo4j blocks report themselves as skipped (SQLite and the adapter checks still run).
 *
 * Extra arguments go to jest. Exit code: jest's.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const NEO4J_SUITES = ['test/store.contract.test.ts', 'test/neo4j.migrate.test.ts'];
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

function jest(env: NodeJS.ProcessEnv, extra: string[]): number {
  const bin = path.join(__dirname, '..', 'node_modules', 'jest', 'bin', 'jest.js');
  const run = spawnSync(process.execPath, [bin, '--ci', '--runInBand', ...NEO4J_SUITES, ...extra], {
    stdio: 'inherit',
    env,
    cwd: path.join(__dirname, '..'),
  });
  return run.status ?? 1;
}

async function main(extra: string[]): Promise<number> {
  if (process.env.NEO4J_URI) {
    console.log(`test:neo4j: running the Neo4j suites against NEO4J_URI=${process.env.NEO4J_URI}`);
    return jest(process.env, extra);
  }
  const missing = await containerRuntimeMissing();
  if (missing !== null) {
    console.log(
      `test:neo4j: Neo4j harness SKIPPED: NEO4J_URI is not set and no container runtime is available ` +
        `to start ${NEO4J_IMAGE} (testcontainers: ${missing}). Running the suites without it.`,
    );
    return jest(process.env, extra);
  }
  const { Neo4jContainer } = await import('@testcontainers/neo4j');
  console.log(`test:neo4j: NEO4J_URI is not set; starting ${NEO4J_IMAGE} with testcontainers`);
  const container = await new Neo4jContainer(NEO4J_IMAGE).withPassword('test-neo4j-password').start();
  try {
    return jest(
      {
        ...process.env,
        NEO4J_URI: container.getBoltUri(),
        NEO4J_USER: container.getUsername(),
        NEO4J_PASSWORD: container.getPassword(),
      },
      extra,
    );
  } finally {
    await container.stop();
  }
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
