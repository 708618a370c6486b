/**
 * The statement coverage check of `npm run test:neo4j`: what the driver records under
 * NEO4J_STATEMENT_LOG (src/store/neo4j/statement-log.ts) and how scripts/statement-coverage.ts
 * reads it. The recording runs against a real Neo4j (NEO4J_URI); without one that part reports
 * itself as skipped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import neo4j, { type Driver } from 'neo4j-driver';
import { allStatements } from '../../scripts/lint-cypher';
import { coverageReport, executedTexts } from '../../scripts/statement-coverage';
import { createNeo4jDriver } from '../../src/store/neo4j/driver';
import { recordingStatements, STATEMENT_LOG_ENV } from '../../src/store/neo4j/statement-log';
import { CYPHER } from '../../src/store/neo4j/statements';
import { neo4jTarget } from '../helpers/neo4j';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'statement-log-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (file: string, texts: string[]) => fs.writeFileSync(path.join(dir, file), texts.map((t) => `${JSON.stringify(t)}\n`).join(''));

describe('the coverage report', () => {
  const texts = allStatements().map((s) => s.text);

  it('passes when the processes of the run together ran every statement', () => {
    write('1.log', texts.slice(0, 10));
    write('2.log', [...texts.slice(10), 'RETURN 42 AS other']);
    expect(coverageReport(dir)).toEqual({ ok: true, lines: [`statement coverage: all ${texts.length} Cypher statements ran on the real Neo4j`] });
  });

  it('fails naming each statement no process ran', () => {
    const missing = allStatements().filter((s) => s.name === 'countAdmins' || s.name === 'maintenance.forgetSongUsage');
    expect(missing).toHaveLength(2);
    write('1.log', texts.filter((t) => !missing.some((m) => m.text === t)));
    expect(coverageReport(dir)).toEqual({
      ok: false,
      lines: [`statement coverage: 2 of ${texts.length} Cypher statements never ran on the real Neo4j:`, '  countAdmins', '  maintenance.forgetSongUsage'],
    });
  });

  it('with nothing recorded, lists them all', () => {
    const { ok, lines } = coverageReport(dir);
    expect(ok).toBe(false);
    expect(lines).toHaveLength(texts.length + 1);
  });
});

it('without NEO4J_STATEMENT_LOG the driver is not wrapped', () => {
  const driver = neo4j.driver('bolt://127.0.0.1:1', neo4j.auth.basic('neo4j', 'x'));
  try {
    expect(recordingStatements(driver, {})).toBe(driver);
  } finally {
    void driver.close();
  }
});

const target = neo4jTarget();
const SKIPPED = 'statement recording on a real Neo4j SKIPPED: NEO4J_URI is not set (npm run test:neo4j starts one)';
if (!target) console.warn(SKIPPED);

(target ? describe : describe.skip)(target ? 'recording on a real Neo4j (NEO4J_URI)' : SKIPPED, () => {
  let driver: Driver;
  // Under `npm run test:neo4j` the run's own log is set: this file records into its own instead.
  const runLog = process.env[STATEMENT_LOG_ENV];
  beforeEach(() => {
    process.env[STATEMENT_LOG_ENV] = dir;
    driver = createNeo4jDriver(target!);
  });
  afterEach(async () => {
    if (runLog === undefined) delete process.env[STATEMENT_LOG_ENV];
    else process.env[STATEMENT_LOG_ENV] = runLog;
    await driver.close();
  });

  it('records each statement the server answered, once, however it was run', async () => {
    const { database } = target!;
    const session = driver.session({ database });
    try {
      await session.executeRead((tx) => tx.run(CYPHER.ping));
      await session.executeRead((tx) => tx.run(CYPHER.ping));
      await session.executeWrite((tx) => tx.run(CYPHER.countSongs));
      await session.run(CYPHER.countServices);
    } finally {
      await session.close();
    }
    await driver.executeQuery(CYPHER.listUsers, {}, { database });
    expect([...executedTexts(dir)].sort()).toEqual([CYPHER.ping, CYPHER.countSongs, CYPHER.countServices, CYPHER.listUsers].sort());
    expect(fs.readFileSync(path.join(dir, `${process.pid}.log`), 'utf8').split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('does not record a statement the server refused', async () => {
    const refused = 'RETURN 1 AS ok ORDER BY nothing.here';
    const session = driver.session({ database: target!.database });
    try {
      await expect(session.executeRead((tx) => tx.run(refused))).rejects.toThrow();
      await expect(session.run(refused)).rejects.toThrow();
    } finally {
      await session.close();
    }
    await expect(driver.executeQuery(refused, {}, { database: target!.database })).rejects.toThrow();
    expect(executedTexts(dir)).toEqual(new Set());
  });
});
