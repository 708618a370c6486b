/**
 * Turning a user's search text into each database's full-text query. User text never reaches
 * either query language as syntax: it is cut into words (runs of letters, marks and digits) and
 * only those words, quoted (FTS5) or folded to plain letters and digits (Lucene), are written
 * into the query. So `"`, `*`, `:`, `(`, `AND`, `NEAR`, `~` and the like can never make a
 * query fail; text with no words finds nothing.
 */
export const SEARCH_MAX_LENGTH = 200;

/** Words of the search text, in order; the last one is matched as a prefix. */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
}

/**
 * SQLite FTS5 MATCH expression: every word required, the last as a prefix. Quoted strings are
 * tokenized by the table's own tokenizer (unicode61 remove_diacritics 2), so accents and case
 * fold exactly as they did when indexing. Null when there is nothing to search for.
 */
export function fts5Query(text: string): string | null {
  const words = searchWords(text);
  if (!words.length) return null;
  return words.map((w, i) => `"${w}"${i === words.length - 1 ? '*' : ''}`).join(' ');
}

/** Accents and case folded like Lucene's ASCII folding on the index side (NFKD, marks removed). */
const fold = (word: string) => word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Lucene query for Neo4j's full-text index (analyzer `standard-folding`): every word required
 * (`+`), the last as a prefix (the analyzer drops English stop words from the other terms). Wildcard terms skip the analyzer, so words are folded here; after
 * folding they are letters and digits only, none of Lucene's operators or special characters, and
 * lower case, so `and`/`or`/`not` are plain terms.
 */
export function luceneQuery(text: string): string | null {
  const words = searchWords(text).map(fold).flatMap((w) => searchWords(w));
  if (!words.length) return null;
  return words
    .map((w, i) => {
      if (i < words.length - 1) return `+${w}`;
      // The analyzer indexes no English stop words, and a prefix term skips it: a required
      // `and*` would demand another word starting with "and". A last stop word only ranks.
      return `${ENGLISH_STOP_WORDS.has(w) ? '' : '+'}${w}*`;
    })
    .join(' ');
}

/** Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET, which Neo4j's `standard-folding` removes. */
const ENGLISH_STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '),
);
