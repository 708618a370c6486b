/**
 * `npm run test:neo4j` where neither NEO4J_URI nor a container runtime exists (as on the machine
 * this was written on): it must say plainly that the Neo4j harness is skipped and why, still run
 * the suites, and pass. DOCKER_HOST points at a socket that does not exist, so the result is the
 * same on a machine that has Docker. The container path itself runs only where Docker is (CI).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

test('without NEO4J_URI and without Docker it says it skipped the Neo4j harness and why', () => {
  const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
  delete env.NEO4J_URI;
  const run = spawnSync(
    process.execPath,
    ['-r', 'tsx/cjs', 'scripts/test-neo4j.ts', '-t', 'answers ping|copies SQLite'],
    { cwd: path.join(__dirname, '..'), env, encoding: 'utf8', timeout: 120_000 },
  );
  const output = `${run.stdout}${run.stderr}`;
  expect(output).toMatch(
    /test:neo4j: Neo4j harness SKIPPED: NEO4J_URI is not set and no container runtime is available to start neo4j:5 \(testcontainers: .+\)/,
  );
  expect(output).toContain('Neo4j store contract suite SKIPPED: NEO4J_URI is not set');
  // The migration round trip (test/neo4j.migrate.test.ts) has nothing to run without a server.
  expect(output).toMatch(/Test Suites: 1 skipped, 1 passed/);
  expect(output).toMatch(/Tests:.*skipped.*passed/);
  expect(run.status).toBe(0);
}, 120_000);
