/**
 * `npm run test:neo4j` where neither NEO4J_URI, nor a container runtime, nor Java and Maven for
 * the local launcher exist: it must say plainly that the Neo4j harness is skipped and why, still
 * run the suites, and pass; with CI=true it must fail instead. DOCKER_HOST points at a socket that
 * does not exist and PATH at an empty directory (node and jest are started by absolute path), so
 * the result is the same on a machine that has Docker, Java and Maven. The local launcher path
 * runs in `npm run test:neo4j` itself; test/meta/neo4j.local.test.ts checks the launcher.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let emptyDir: string;
beforeAll(() => {
  emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-tools-'));
});
afterAll(() => fs.rmSync(emptyDir, { recursive: true, force: true }));

function runner(ci: boolean, args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock', PATH: emptyDir };
  delete env.NEO4J_URI;
  delete env.NEO4J_LOCAL;
  if (ci) env.CI = 'true';
  else delete env.CI;
  const run = spawnSync(process.execPath, ['-r', 'tsx/cjs', 'scripts/test-neo4j.ts', ...args], {
    cwd: path.join(__dirname, '..', '..'),
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { output: `${run.stdout}${run.stderr}`, status: run.status };
}

const SKIPPED =
  /test:neo4j: Neo4j harness SKIPPED: NEO4J_URI is not set and no container runtime is available to start neo4j:5 \(testcontainers: .+\), and the local launcher cannot run \(java is not on PATH .+\)\./;

test('without NEO4J_URI, Docker or Java it says it skipped the Neo4j harness and why', () => {
  const { output, status } = runner(false, ['-t', 'answers ping|copies SQLite']);
  expect(output).toMatch(SKIPPED);
  expect(output).toContain('Neo4j store contract suite SKIPPED: NEO4J_URI is not set');
  expect(output).toMatch(/Test Suites: \d+ skipped, 1 passed/);
  expect(output).toMatch(/Tests:.*skipped.*passed/);
  expect(status).toBe(0);
}, 120_000);

test('with CI=true, a skipped Neo4j harness fails the run without running the suites', () => {
  const { output, status } = runner(true, []);
  expect(output).toMatch(SKIPPED);
  expect(output).toContain('test:neo4j: FAILED: with CI=true the Neo4j suites must run against a real Neo4j.');
  expect(output).not.toMatch(/Tests:/);
  expect(status).toBe(1);
}, 120_000);
