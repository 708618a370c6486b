import { nestingDepth } from '../../src/graphql/nesting';

/** The pre-parse nesting count (src/graphql/nesting.ts): only brackets the parser would nest count. */
test.each([
  ['', 0],
  ['{ songs { id } }', 2],
  ['{ songs(limit: [[1]]) { id } }', 4],
  ['{ a } { b } { c }', 1],
  ['{ x(s: "{{{[[[(((") }', 2],
  ['{ x(s: "a \\" {{{ ") }', 2],
  ['{ x(s: """ {{{ \\""" [[[ """) }', 2],
  ['# {{{{{\n{ a }', 1],
  ['{ a } # [[[[', 1],
  ['}}}} { a }', 1],
  ['{ x(s: "unterminated {{{ \n { b } }', 3],
  [`${'['.repeat(5000)}${']'.repeat(5000)}`, 5000],
])('%j nests %d deep', (source, depth) => {
  expect(nestingDepth(source)).toBe(depth);
});
