import { parse, type DocumentNode } from 'graphql';
import { createCompiledOperations, estimatedBytes, type CompiledCacheLimits } from '../../src/graphql/compiled';
import { documentStore } from '../../src/graphql/document-store';
import { buildSchema } from '../../src/graphql/schema';

/**
 * The compiled-operation cache (src/graphql/compiled.ts) on its own: keyed by schema, document and
 * operation name, and never over its entry or byte bound; and the bounded document store given to Apollo (src/graphql/document-store.ts).
 * Resolver-free queries (`__typename`) keep the store out of it; the HTTP behaviour is in
 * graphql.requests.e2e.test.ts.
 */

const schema = buildSchema();
const limits = (l: Partial<CompiledCacheLimits>): CompiledCacheLimits => ({ maxEntries: 10, maxBytes: 1024 * 1024 * 1024, ...l });
type Ops = ReturnType<typeof createCompiledOperations>;
/** Run `document` as /graphql would: compiled when the cache says so, else not at all (null). */
const run = async (ops: Ops, document: DocumentNode, operationName?: string, s = schema) => {
  const compiled = ops.compiled(s, document, operationName);
  return compiled ? compiled({} as never, {}) : null;
};

/** A distinct query `width` aliases wide: more aliases, more generated code. */
const distinct = (i: number, width = 1) =>
  parse(`query Q${i} { ${Array.from({ length: width }, (_, k) => `a${k}: __type(name: "Song") { name fields { name } }`).join(' ')} }`);
// What introspection of Song answers, read from the schema itself (fields added later change it).
const SONG_TYPE = {
  name: 'Song',
  fields: Object.keys((schema.getType('Song') as import('graphql').GraphQLObjectType).getFields()).map((name) => ({ name })),
};

test('never holds more entries than its bound', async () => {
  const ops = createCompiledOperations(limits({ maxEntries: 7 }));
  for (let i = 0; i < 100; i++) {
    expect(await run(ops, distinct(i))).toEqual({ data: { a0: SONG_TYPE } });
    expect(ops.cacheStats().entries).toBeLessThanOrEqual(7);
  }
  expect(ops.cacheStats()).toMatchObject({ entries: 7, compilations: 100 });
});

test('estimates a compiled operation by its fields with fragments expanded', () => {
  const one = estimatedBytes(parse('{ song(id: 1) { id } }'), undefined);
  const flat = estimatedBytes(parse('{ a: song(id: 1) { id name artists } b: song(id: 2) { id name artists } }'), undefined);
  const spread = estimatedBytes(parse('{ a: song(id: 1) { ...S } b: song(id: 2) { ...S } } fragment S on Song { id name artists }'), undefined);
  expect(spread).toBe(flat);
  expect(flat).toBeGreaterThan(3 * (one - estimatedBytes(parse('{ __typename }'), undefined)));
  // Of a document with two operations, the one asked for.
  const two = parse('query A { a: __typename } query B { b: song(id: 1) { id name artists } }');
  expect(estimatedBytes(two, 'B')).toBeGreaterThan(estimatedBytes(two, 'A'));
});

test('never holds more estimated bytes than its bound, and counts big operations as big', async () => {
  const big = estimatedBytes(distinct(1, 10), 'Q1');
  const small = estimatedBytes(distinct(0, 1), 'Q0');
  expect(big).toBeGreaterThan(5 * small);

  const budget = 3 * big;
  const ops = createCompiledOperations(limits({ maxEntries: 1000, maxBytes: budget }));
  for (let i = 0; i < 60; i++) {
    expect((await run(ops, distinct(i, i % 2 ? 10 : 1)))?.data?.a0).toEqual(SONG_TYPE);
    const { bytes, entries } = ops.cacheStats();
    expect(bytes).toBeLessThanOrEqual(budget);
    expect(entries).toBeLessThan(30);
  }
});

test('an operation over the whole byte budget still runs, and is not kept', async () => {
  const ops = createCompiledOperations(limits({ maxBytes: 1000 }));
  const result = await run(ops, distinct(0, 10));
  expect(Object.keys(result?.data ?? {})).toHaveLength(10);
  expect(ops.cacheStats()).toMatchObject({ entries: 0, bytes: 0 });
});

test('the same document and operation compile once; another operation name is another entry', async () => {
  const ops = createCompiledOperations(limits({}));
  const doc = parse('query A { a: __typename } query B { b: __typename }');
  for (let i = 0; i < 5; i++) {
    expect(await run(ops, doc, 'A')).toEqual({ data: { a: 'Query' } });
    expect(await run(ops, doc, 'B')).toEqual({ data: { b: 'Query' } });
  }
  expect(ops.cacheStats()).toMatchObject({ entries: 2, compilations: 2 });
});

test('an operation graphql-jit cannot compile (a name that names nothing) is left to the interpreter', async () => {
  const ops = createCompiledOperations(limits({}));
  const doc = parse('query A { a: __typename }');
  expect(await run(ops, doc, 'A')).toEqual({ data: { a: 'Query' } });
  expect(ops.compiled(schema, doc, 'Z')).toBeNull();
  expect(ops.compiled(schema, doc, 'Z')).toBeNull();
  expect(ops.cacheStats().compilations).toBe(2);
});

test('another schema is another entry', async () => {
  const ops = createCompiledOperations(limits({}));
  const doc = parse('{ __typename }');
  await run(ops, doc);
  await run(ops, doc, undefined, buildSchema());
  expect(ops.cacheStats()).toMatchObject({ entries: 2, compilations: 2 });
});

describe("Apollo's document store", () => {
  test('never holds more entries or estimated bytes than its bounds', async () => {
    const byEntries = documentStore({ maxEntries: 5, maxBytes: 1024 * 1024 * 1024 });
    for (let i = 0; i < 50; i++) await byEntries.set(`k${i}`, distinct(i));
    const kept = await Promise.all(Array.from({ length: 50 }, (_, i) => byEntries.get(`k${i}`)));
    expect(kept.filter(Boolean)).toHaveLength(5);
    expect(await byEntries.get('k49')).toBeDefined();

    const big = distinct(0, 10);
    const perEntry = 1024 + 64 * big.loc!.source.body.length;
    const byBytes = documentStore({ maxEntries: 1000, maxBytes: 3 * perEntry });
    for (let i = 0; i < 50; i++) await byBytes.set(`k${i}`, distinct(i, 10));
    const keptBig = await Promise.all(Array.from({ length: 50 }, (_, i) => byBytes.get(`k${i}`)));
    expect(keptBig.filter(Boolean).length).toBeLessThanOrEqual(3);
    expect(await byBytes.get('k49')).toBeDefined();
  });
});
