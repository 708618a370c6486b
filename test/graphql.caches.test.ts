import { parse, type DocumentNode } from 'graphql';
import { createCompiledExecute } from '../src/graphql/compiled';
import { documentStore } from '../src/graphql/document-store';
import { buildSchema } from '../src/graphql/schema';

/**
 * The compiled-operation cache (src/graphql/compiled.ts) on its own: keyed by schema, document and
 * operation name, and never over its entry or byte bound; and the bounded document store given to
 * Apollo (src/graphql/document-store.ts). Resolver-free queries (`__typename`)
 * keep the store out of it; the HTTP behaviour is in graphql.operations.e2e.test.ts.
 */

const schema = buildSchema();
const run = (exec: ReturnType<typeof createCompiledExecute>, document: DocumentNode, operationName?: string) =>
  exec({ schema, document, operationName, contextValue: {} });

/** A distinct query `width` aliases wide: more aliases, more generated code. */
const distinct = (i: number, width = 1) =>
  parse(`query Q${i} { ${Array.from({ length: width }, (_, k) => `a${k}: __type(name: "Song") { name fields { name } }`).join(' ')} }`);
// What introspection of Song answers, read from the schema itself (fields added later change it).
const SONG_TYPE = {
  name: 'Song',
  fields: Object.keys((schema.getType('Song') as import('graphql').GraphQLObjectType).getFields()).map((name) => ({ name })),
};

test('never holds more entries than its bound', async () => {
  const exec = createCompiledExecute({ maxEntries: 7, maxBytes: 1024 * 1024 * 1024 });
  for (let i = 0; i < 100; i++) {
    expect(await run(exec, distinct(i))).toEqual({ data: { a0: SONG_TYPE } });
    expect(exec.cacheStats().entries).toBeLessThanOrEqual(7);
  }
  expect(exec.cacheStats()).toMatchObject({ entries: 7, compilations: 100 });
});

test('never holds more estimated bytes than its bound, and counts big operations as big', async () => {
  const probe = createCompiledExecute({ maxEntries: 10, maxBytes: 1024 * 1024 * 1024 });
  await run(probe, distinct(0, 1));
  const small = probe.cacheStats().bytes;
  await run(probe, distinct(1, 10));
  const big = probe.cacheStats().bytes - small;
  expect(big).toBeGreaterThan(5 * small);

  const budget = 3 * big;
  const exec = createCompiledExecute({ maxEntries: 1000, maxBytes: budget });
  for (let i = 0; i < 60; i++) {
    expect((await run(exec, distinct(i, i % 2 ? 10 : 1))).data?.a0).toEqual(SONG_TYPE);
    const { bytes, entries } = exec.cacheStats();
    expect(bytes).toBeLessThanOrEqual(budget);
    expect(entries).toBeLessThan(30);
  }
});

test('an operation over the whole byte budget still runs, and is not kept', async () => {
  const exec = createCompiledExecute({ maxEntries: 10, maxBytes: 1000 });
  const result = await run(exec, distinct(0, 10));
  expect(Object.keys(result.data ?? {})).toHaveLength(10);
  expect(exec.cacheStats()).toMatchObject({ entries: 0, bytes: 0 });
});

test('the same document and operation compile once; another operation name is another entry', async () => {
  const exec = createCompiledExecute({ maxEntries: 10, maxBytes: 1024 * 1024 * 1024 });
  const doc = parse('query A { a: __typename } query B { b: __typename }');
  for (let i = 0; i < 5; i++) {
    expect(await run(exec, doc, 'A')).toEqual({ data: { a: 'Query' } });
    expect(await run(exec, doc, 'B')).toEqual({ data: { b: 'Query' } });
  }
  expect(exec.cacheStats()).toMatchObject({ entries: 2, compilations: 2 });
});

test('an operation name that names nothing is a GraphQL error, not some other operation', async () => {
  const exec = createCompiledExecute();
  const doc = parse('query A { a: __typename }');
  expect(await run(exec, doc, 'A')).toEqual({ data: { a: 'Query' } });
  const unknown = await run(exec, doc, 'Z');
  expect(unknown.data).toBeUndefined();
  expect(unknown.errors?.map((e) => e.message)).toEqual(['Unknown operation named "Z".']);
});

test('another schema is another entry', async () => {
  const exec = createCompiledExecute();
  const doc = parse('{ __typename }');
  await run(exec, doc);
  await exec({ schema: buildSchema(), document: doc, contextValue: {} });
  expect(exec.cacheStats()).toMatchObject({ entries: 2, compilations: 2 });
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
