/**
 * Search input can never become query syntax: any text (fast-check's full Unicode strings plus
 * FTS5/Lucene operators) runs against the store's real full-text index without an error (SQLite's
 * FTS5, or with TEST_STORE=neo4j Neo4j's Lucene index), and the Lucene query built for Neo4j holds
 * only `+word` terms of letters and digits, the last with `*`.
 */
import fc from 'fast-check';
import { fts5Query, luceneQuery } from '../../src/domain/search';
import type { Store } from '../../src/store/types';
import { openTestStore, testStoreKind, type OpenedStore } from '../helpers/test-store';

const SYNTAX = ['"', '*', '^', ':', '(', ')', 'NEAR', 'AND', 'OR', 'NOT', '-', '+', '~', '\\', '/', '[', ']', '{', '}', '!', '?', '&&', '||', "'"];
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.array(fc.oneof(fc.constantFrom(...SYNTAX), fc.string({ maxLength: 6 })), { maxLength: 12 }).map((p) => p.join(' ')),
);

let opened: OpenedStore;
let store: Store;
beforeAll(async () => {
  opened = await openTestStore();
  store = opened.store;
  await store.createSong({ name: 'Alas! And Did My Savior Bleed?', artists: ['Isaac Watts'] });
  await store.createSong({ name: 'NEAR the Cross (AND "more")', artists: ['Fanny Crosby'] });
});
afterAll(() => opened.close());

test(`any search text runs on the ${testStoreKind()} full-text index without an error`, async () => {
  await fc.assert(
    fc.asyncProperty(text, async (q) => {
      const page = await store.listSongs({ search: q }, { limit: 5 });
      expect(page.totalCount).toBeGreaterThanOrEqual(page.items.length);
    }),
    { numRuns: 400 },
  );
});

test('operators in the text are words, not syntax', async () => {
  expect((await store.listSongs({ search: 'near the cross and "more' }, {})).totalCount).toBe(1);
  expect(fts5Query('a"b NEAR(c*')).toBe('"a" "b" "NEAR" "c"*');
  expect(fts5Query(' !? ')).toBeNull();
});

test('the Lucene query is only required folded words, the last a prefix', () => {
  fc.assert(
    fc.property(text, (q) => {
      const lucene = luceneQuery(q);
      if (lucene === null) return;
      const terms = lucene.split(' ');
      terms.forEach((t, i) => expect(t).toMatch(i === terms.length - 1 ? /^\+?[^\s*+]+\*$/u : /^\+[^\s*+]+$/u));
      expect(lucene).not.toMatch(/[":^()~\\/[\]{}!?&|'-]/);
    }),
    { numRuns: 1000 },
  );
  expect(luceneQuery('Ngợi KHEN')).toBe('+ngoi +khen*');
  expect(luceneQuery('AND or NOT')).toBe('+and +or not*');
  expect(luceneQuery('Alas and')).toBe('+alas and*');
});
