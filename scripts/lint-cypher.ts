/**
 * Lint every Cypher statement of the Neo4j store with Neo4j's own parser and semantic analyser
 * (@neo4j-cypher/language-support), since no Neo4j server runs in CI. Each statement is checked
 * with exactly the parameters it declares, against the graph vocabulary (labels, relationship
 * types, property keys) so a misspelt name is reported, and against Neo4j 5's built-in functions.
 * Warnings (deprecations, cartesian products, unknown names) count as problems.
 *
 *   npm run lint:cypher   ->   "<N> statements, <P> problems"; exit code 1 when P > 0
 */
import { lintCypherQuery, testData, type DbSchema } from '@neo4j-cypher/language-support';
import { ANALYTICS_CYPHER, ANALYTICS_PARAMS } from '../src/store/neo4j/analytics-statements';
import {
  BATCHED_DATA_CYPHER,
  BATCHED_DATA_PARAMS,
  MIGRATION_CYPHER,
  MIGRATION_PARAMS,
  ONE_STATEMENT_DATA_CYPHER,
  ONE_STATEMENT_DATA_PARAMS,
  SCHEMA_AFTER_DATA_CYPHER,
  SCHEMA_CYPHER,
} from '../src/store/neo4j/migrations';
import {
  CYPHER,
  GRAPH_VOCABULARY,
  MAINTENANCE_CYPHER,
  MAINTENANCE_PARAMS,
  PARAMS,
  type ParamDecl,
  type ParamType,
} from '../src/store/neo4j/statements';

interface Statement {
  name: string;
  text: string;
  params: ParamDecl;
}

/** A sample value of the declared type: the analyser wants values, and these show the shapes. */
function sample(type: ParamType): unknown {
  if (typeof type !== 'string') {
    return [Object.fromEntries(Object.entries(type.rows).map(([k, t]) => [k, sample(t)]))];
  }
  const base = type.replace('?', '');
  if (base === 'INTEGER') return 1;
  if (base === 'STRING') return 'text';
  if (base === 'BOOLEAN') return true;
  if (base === 'LIST<INTEGER>') return [1];
  if (base === 'LIST<STRING>') return ['text'];
  throw new Error(`no sample for parameter type ${type}`);
}

/**
 * The package ships the built-in function signatures of Neo4j 5 as its test schema; only the
 * built-ins are kept (the official neo4j:5 community image has no APOC), so a misspelt or
 * deprecated function is reported.
 */
function builtInFunctions(): DbSchema['functions'] {
  const out: NonNullable<DbSchema['functions']> = {};
  for (const [version, registry] of Object.entries(testData.mockSchema.functions ?? {})) {
    out[version as keyof typeof out] = Object.fromEntries(
      Object.entries(registry ?? {}).filter(([, fn]) => fn.isBuiltIn),
    );
  }
  return out;
}

/**
 * The built-in procedures the store calls (song search, the wait for its index at start, and the
 * replanning after a bulk import);
 * any other procedure is reported.
 */
const PROCEDURES_USED = ['db.index.fulltext.queryNodes', 'db.awaitIndex', 'db.prepareForReplanning'];
function builtInProcedures(): DbSchema['procedures'] {
  const out: NonNullable<DbSchema['procedures']> = {};
  for (const [version, registry] of Object.entries(testData.mockSchema.procedures ?? {})) {
    out[version as keyof typeof out] = Object.fromEntries(
      Object.entries(registry ?? {}).filter(([name]) => PROCEDURES_USED.includes(name)),
    );
  }
  return out;
}

export function allStatements(): Statement[] {
  const store = Object.entries(CYPHER).map(([name, text]) => ({
    name,
    text,
    params: PARAMS[name as keyof typeof PARAMS] as ParamDecl,
  }));
  const analytics = Object.entries(ANALYTICS_CYPHER).map(([name, text]) => ({
    name: `analytics.${name}`,
    text,
    params: ANALYTICS_PARAMS[name as keyof typeof ANALYTICS_PARAMS] as ParamDecl,
  }));
  const schema = [
    ...Object.entries(SCHEMA_CYPHER).map(([name, text]) => ({ name: `schema.${name}`, text, params: {} })),
    ...Object.entries(BATCHED_DATA_CYPHER).map(([name, text]) => ({
      name: `data.${name}`,
      text,
      params: BATCHED_DATA_PARAMS[name as keyof typeof BATCHED_DATA_PARAMS] as ParamDecl,
    })),
    ...Object.entries(ONE_STATEMENT_DATA_CYPHER).map(([name, text]) => ({
      name: `data.${name}`,
      text,
      params: ONE_STATEMENT_DATA_PARAMS[name as keyof typeof ONE_STATEMENT_DATA_PARAMS] as ParamDecl,
    })),
    ...Object.entries(SCHEMA_AFTER_DATA_CYPHER).map(([name, text]) => ({ name: `schema.${name}`, text, params: {} })),
    ...Object.entries(MIGRATION_CYPHER).map(([name, text]) => ({
      name: `migration.${name}`,
      text,
      params: MIGRATION_PARAMS[name as keyof typeof MIGRATION_PARAMS] as ParamDecl,
    })),
  ];
  const maintenance = Object.entries(MAINTENANCE_CYPHER).map(([name, text]) => ({
    name: `maintenance.${name}`,
    text,
    params: MAINTENANCE_PARAMS[name as keyof typeof MAINTENANCE_PARAMS] as ParamDecl,
  }));
  return [...store, ...analytics, ...schema, ...maintenance];
}

/** Every `$name` the statement uses must be declared, and every declared one used. */
function parameterProblems(s: Statement): string[] {
  const used = new Set([...s.text.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
  const declared = new Set(Object.keys(s.params));
  return [
    ...[...declared].filter((p) => !used.has(p)).map((p) => `parameter $${p} is declared but never used`),
    ...[...used].filter((p) => !declared.has(p)).map((p) => `parameter $${p} is used but not declared`),
  ];
}

const rowFields = (params: ParamDecl) =>
  Object.values(params).flatMap((t) => (typeof t === 'string' ? [] : Object.keys(t.rows)));

const SEVERITY: Record<number, string> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

export function lintAll(): { statements: number; problems: string[] } {
  const functions = builtInFunctions();
  const procedures = builtInProcedures();
  const problems: string[] = [];
  const statements = allStatements();
  for (const s of statements) {
    const dbSchema: DbSchema = {
      ...GRAPH_VOCABULARY,
      // The analyser reads `row.songId` on an UNWIND row like a property access; the fields a
      // statement declares for its rows are known names for that statement.
      propertyKeys: [...GRAPH_VOCABULARY.propertyKeys, ...rowFields(s.params)],
      functions,
      procedures,
      defaultLanguage: 'CYPHER 5',
      parameters: Object.fromEntries(Object.entries(s.params).map(([k, t]) => [k, sample(t)])),
    };
    const { diagnostics } = lintCypherQuery(s.text, dbSchema);
    for (const d of diagnostics) {
      const at = `${d.range.start.line + 1}:${d.range.start.character + 1}`;
      problems.push(`${s.name} ${at} ${SEVERITY[d.severity ?? 1] ?? 'problem'}: ${d.message}`);
    }
    for (const p of parameterProblems(s)) problems.push(`${s.name}: ${p}`);
  }
  return { statements: statements.length, problems };
}

if (require.main === module) {
  const { statements, problems } = lintAll();
  for (const p of problems) console.log(p);
  console.log(`${statements} statements, ${problems.length} problems`);
  process.exit(problems.length > 0 ? 1 : 0);
}
