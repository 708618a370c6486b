/**
 * Which Cypher statements of src/store/neo4j/ no test ran against the real Neo4j: the last step of
 * `npm run test:neo4j`. The statements are the ones `npm run lint:cypher` checks (store, analytics,
 * schema, data migrations, maintenance); what ran is what the driver recorded under
 * NEO4J_STATEMENT_LOG (src/store/neo4j/statement-log.ts) in every process of the run: the jest
 * workers and the CLIs the suites start.
 *
 *   npx tsx scripts/statement-coverage.ts <log dir>   ->   exit 1 and the names when any is left
 */
import fs from 'node:fs';
import path from 'node:path';
import { allStatements } from './lint-cypher';

/** Every statement text recorded in `dir` (one JSON string per line, one file per process). */
export function executedTexts(dir: string): Set<string> {
  const texts = new Set<string>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.log'))) {
    for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (line.trim() !== '') texts.add(JSON.parse(line) as string);
    }
  }
  return texts;
}

/** The names of the statements whose text is not among `executed`, in lint order. */
export function notExecuted(executed: Set<string>): string[] {
  return allStatements()
    .filter((s) => !executed.has(s.text))
    .map((s) => s.name);
}

/** The report's lines, and whether every statement ran. */
export function coverageReport(dir: string): { ok: boolean; lines: string[] } {
  const total = allStatements().length;
  const missing = notExecuted(executedTexts(dir));
  if (missing.length === 0) return { ok: true, lines: [`statement coverage: all ${total} Cypher statements ran on the real Neo4j`] };
  return {
    ok: false,
    lines: [
      `statement coverage: ${missing.length} of ${total} Cypher statements never ran on the real Neo4j:`,
      ...missing.map((name) => `  ${name}`),
    ],
  };
}

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: tsx scripts/statement-coverage.ts <NEO4J_STATEMENT_LOG directory>');
    process.exit(2);
  }
  const { ok, lines } = coverageReport(dir);
  for (const line of lines) console.log(line);
  process.exit(ok ? 0 : 1);
}
