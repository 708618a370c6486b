/**
 * The lists of `npm run test:neo4j` (scripts/test-neo4j.ts) keep up with the suites: every suite
 * that starts a test server or opens a test store runs on Neo4j too, or is left out with a reason;
 * every listed file exists, and none is both run and left out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { E2E_SUITES, NEO4J_SUITES, NOT_ON_NEO4J } from '../scripts/test-neo4j';

const ROOT = path.join(__dirname, '..');
const suites = fs
  .readdirSync(__dirname)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `test/${f}`);

test('every suite that uses the end-to-end harness is on the Neo4j list or left out with a reason', () => {
  const harnessed = suites.filter((f) => /from '\.\/helpers\/(server|test-store)'/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
  expect(harnessed.length).toBeGreaterThan(20);
  expect(harnessed.filter((f) => !E2E_SUITES.includes(f) && !(f in NOT_ON_NEO4J))).toEqual([]);
});

test('every listed suite exists and none is both run and left out', () => {
  const listed = [...NEO4J_SUITES, ...E2E_SUITES, ...Object.keys(NOT_ON_NEO4J)];
  expect(listed.filter((f) => !suites.includes(f))).toEqual([]);
  expect(E2E_SUITES.filter((f) => f in NOT_ON_NEO4J || NEO4J_SUITES.includes(f))).toEqual([]);
  expect(new Set(listed).size).toBe(listed.length);
});
