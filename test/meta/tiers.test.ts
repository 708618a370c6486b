/**
 * The test tiers (jest.config.js) keep their meaning: every suite lives in a tier's folder (jest
 * runs no other), the tiers that promise no server and no store open none, and every suite that
 * uses the end-to-end harness sits in a tier that says which store it runs on. `npm run test:neo4j`
 * selects its tiers by project (NEO4J_PROJECTS), so a suite is on Neo4j by where it lives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { NEO4J_PROJECTS } from '../../scripts/test-neo4j';

const ROOT = path.join(__dirname, '..', '..');
const TEST = path.join(ROOT, 'test');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const config = require(path.join(ROOT, 'jest.config.js')) as { projects: { displayName: string; roots: string[] }[] };
const tiers = config.projects.map((p) => p.displayName);

/** Every *.test.ts under test/, as paths from test/. */
function suites(dir = TEST): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : suites(full);
    return e.name.endsWith('.test.ts') ? [path.relative(TEST, full)] : [];
  });
}
const tierOf = (suite: string) => suite.split(path.sep)[0];
const source = (suite: string) => fs.readFileSync(path.join(TEST, suite), 'utf8');
const HARNESS = /from '\.\.\/helpers\/(server|test-store)'/;

test('each tier is one folder of test/, and every suite lives in one', () => {
  expect(config.projects.map((p) => p.roots)).toEqual(tiers.map((t) => [`<rootDir>/test/${t}`]));
  const all = suites();
  expect(all.length).toBeGreaterThan(80);
  expect(all.filter((s) => !tiers.includes(tierOf(s)) || s.split(path.sep).length !== 2)).toEqual([]);
});

test('unit, contract and meta suites start no server (the end-to-end harness)', () => {
  const harnessed = suites().filter((s) => HARNESS.test(source(s)));
  expect(harnessed.length).toBeGreaterThan(20);
  expect(harnessed.filter((s) => ['unit', 'contract', 'meta'].includes(tierOf(s)))).toEqual([]);
});

test('unit suites open no store and reach no Neo4j', () => {
  const reaching = suites()
    .filter((s) => tierOf(s) === 'unit')
    .filter((s) => /new SqliteStore\(|connectNeo4j\(|neo4jTarget\(|openTestStore\(|startLocalNeo4j\(/.test(source(s)));
  expect(reaching).toEqual([]);
});

test('the Neo4j run selects the tiers that reach a store through the harness or NEO4J_URI', () => {
  expect([...NEO4J_PROJECTS].sort()).toEqual(['contract', 'e2e', 'neo4j']);
  expect(NEO4J_PROJECTS.filter((p) => !tiers.includes(p))).toEqual([]);
  // A suite that reaches Neo4j itself belongs to a tier that run selects.
  const reachingNeo4j = suites().filter((s) => /neo4jTarget\(/.test(source(s)));
  expect(reachingNeo4j.length).toBeGreaterThan(10);
  expect(reachingNeo4j.filter((s) => !(NEO4J_PROJECTS as readonly string[]).includes(tierOf(s)))).toEqual([]);
});
