/**
 * How deeply a GraphQL document nests brackets (`{`, `[`, `(`), read from its text without parsing
 * it. graphql-js parses by recursive descent, so a few thousand nested brackets (a 5,000-deep list
 * literal) overflow the stack inside `parse`; no validation rule runs before that. Brackets inside
 * strings, block strings and comments do not count. Unbalanced text is the parser's to report.
 */
export function nestingDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */ || c === 0x28 /* ( */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */ || c === 0x29 /* ) */) {
      if (depth > 0) depth--;
    } else if (c === 0x23 /* # */) {
      const eol = source.slice(i).search(/[\r\n]/);
      i = eol < 0 ? source.length : i + eol;
    } else if (c === 0x22 /* " */) {
      i = source.startsWith('"""', i) ? endOfBlockString(source, i + 3) : endOfString(source, i + 1);
    }
  }
  return deepest;
}

/** Index of the closing quote of a string whose text starts at `from` (or of its line's end). */
function endOfString(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '"' || c === '\n' || c === '\r') return i;
  }
  return source.length;
}

/** Index of the last quote of a block string whose text starts at `from`. */
function endOfBlockString(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    if (source.startsWith('\\"""', i)) i += 3;
    else if (source.startsWith('"""', i)) return i + 2;
  }
  return source.length;
}
