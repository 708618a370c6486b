import { artistKey } from '../domain/artists';
import { CCLI_NUMBER, COPYRIGHT_MAX_LENGTH, type SongLicensing } from '../domain/licensing';
import { ccliNumberOf, MATCH_REASON, SongMatcher, type MatchableSong } from '../domain/song-match';
import { rules } from '../domain/validation';
import type { SongInput, SongPatch, SongRecord } from '../store/types';
import { findColumn, MalformedFileError, type CsvTable } from './csv';
import type { Plan } from './plan';

/**
 * Column names planning tools use in their song exports (headers compare lower-cased): Planning
 * Center's (Title, Author, Copyright, CCLI Number), CCLI SongSelect's and its reports' (Song
 * Title, Song Number or CCLI Song #, Author(s) or Authors, Copyright), and spreadsheets' own.
 */
export const TITLE_COLUMNS = ['title', 'name', 'song title', 'song name', 'song'] as const;
export const ARTIST_COLUMNS = ['author', 'authors', 'author(s)', 'writers', 'songwriters', 'artist', 'artists'] as const;
export const CCLI_COLUMNS = ['ccli number', 'ccli #', 'ccli', 'ccli song number', 'ccli song #', 'ccli song no', 'ccli no', 'song number', 'song #'] as const;
export const COPYRIGHT_COLUMNS = ['copyright', 'copyrights'] as const;

/**
 * Characters that separate names in an artists cell unless the import is told otherwise. Never
 * `&` or "and": they join the names of one act ("Keith & Kristyn Getty", "Shane & Shane").
 */
export const DEFAULT_ARTIST_SEPARATORS = ';|,';

/**
 * Separators the import may be given: punctuation and symbols. Letters, digits and spaces are
 * parts of names, so splitting on them would cut names apart.
 */
export function checkArtistSeparators(separators: string): string | undefined {
  const bad = [...separators].find((c) => /[\p{L}\p{N}\p{Z}\s]/u.test(c));
  return bad === undefined ? undefined : `'${bad}' cannot separate names: give punctuation such as ${DEFAULT_ARTIST_SEPARATORS}`;
}

/**
 * `Keith & Kristyn Getty; Stuart Townend | Shane & Shane` → each name once (first spelling kept),
 * in order, split on each of `separators` (one character each) and nothing else.
 */
export function splitArtists(text: string, separators = DEFAULT_ARTIST_SEPARATORS): string[] {
  const split = new Set(separators);
  const parts = [''];
  for (const c of text) {
    if (split.has(c)) parts.push('');
    else parts[parts.length - 1] += c;
  }
  const seen = new Set<string>();
  const names: string[] = [];
  for (const part of parts) {
    const name = part.trim().replace(/\s+/g, ' ');
    const key = artistKey(name);
    if (name === '' || seen.has(key)) continue;
    seen.add(key);
    names.push(name);
  }
  return names;
}

const describeSong = (s: SongInput) =>
  `'${s.name}'${s.artists.length ? ` (${s.artists.join(', ')})` : ''}${s.ccliNumber ? ` CCLI ${s.ccliNumber}` : ''}`;

/** A song as the plan tracks it: stored (its id) or to be created by an earlier row (its line). */
interface Tracked extends MatchableSong {
  artists: string[];
  copyright: string | null;
  /** `song 34`, or `line 7` for a song an earlier row creates. */
  what: string;
  /** The row creating it, for a song not stored yet. */
  created?: SongInput;
}

/**
 * A stored song a row updates: what it gains, and each change said for people. Several rows may
 * update one song; each patch is worked out on the song as the rows before it left it.
 */
export interface SongUpdate {
  id: number;
  patch: SongPatch;
  changes: string[];
}

export interface SongPlanOptions {
  /** DEFAULT_ARTIST_SEPARATORS when absent. */
  artistSeparators?: string;
  /** Replace a matched song's copyright when the row's differs (by default a stored value is kept). */
  update?: boolean;
}

/** The fields of a row a matched song gains: what it lacks, and with `update` what differs. */
function gains(song: Tracked, row: SongInput, update: boolean): { patch: SongPatch; changes: string[]; kept: string[] } {
  const patch: SongPatch = {};
  const changes: string[] = [];
  const kept: string[] = [];
  if (row.ccliNumber && !song.ccliNumber) {
    patch.ccliNumber = row.ccliNumber;
    changes.push(`CCLI number: ${row.ccliNumber}`);
  }
  if (row.copyright && row.copyright !== song.copyright) {
    if (!song.copyright || update) {
      patch.copyright = row.copyright;
      changes.push(song.copyright ? `copyright: '${song.copyright}' → '${row.copyright}'` : `copyright: '${row.copyright}'`);
    } else kept.push(`copyright '${song.copyright}' kept (the row has '${row.copyright}'; --update replaces it)`);
  }
  const known = new Set(song.artists.map(artistKey));
  const added = row.artists.filter((a) => !known.has(artistKey(a)));
  if (added.length) {
    patch.artists = [...song.artists, ...added];
    changes.push(`artists: + ${added.join(', ')}`);
  }
  return { patch, changes, kept };
}

/**
 * Decide, before anything is written, what happens to every row (src/domain/song-match.ts says
 * which song a row means): a song no row matches is created; a matched song gains the CCLI
 * number, copyright and artists it lacks (an update, listed change by change), or is left as it
 * is (skipped); a row the rule cannot decide is reported as ambiguous with the candidates and
 * writes nothing; a bad row is rejected with the reason. `licensing` is each existing song's, in order.
 */
export function planSongs(
  table: CsvTable,
  existing: SongRecord[],
  licensing: readonly (SongLicensing | null)[] = [],
  options: SongPlanOptions = {},
): SongPlan {
  const title = findColumn(table.headers, TITLE_COLUMNS);
  if (!title) {
    throw new MalformedFileError(`no title column: the header needs one of ${TITLE_COLUMNS.map((c) => `'${c}'`).join(', ')}`);
  }
  const artistColumn = findColumn(table.headers, ARTIST_COLUMNS);
  const ccliColumn = findColumn(table.headers, CCLI_COLUMNS);
  const copyrightColumn = findColumn(table.headers, COPYRIGHT_COLUMNS);

  const matcher = new SongMatcher<Tracked>(
    existing.map((s, i) => ({
      id: s.id,
      name: s.name,
      artists: [...s.artists],
      ccliNumber: licensing[i]?.ccliNumber ?? null,
      copyright: licensing[i]?.copyright ?? null,
      what: `song ${s.id}`,
    })),
  );

  const plan: SongPlan = { create: [], update: [], skipped: [], ambiguous: [], rejected: [] };
  for (const row of table.rows) {
    const ccli = ccliColumn ? ccliNumberOf(row.values[ccliColumn]) : '';
    const copyright = copyrightColumn ? row.values[copyrightColumn].trim() : '';
    const input: SongInput = {
      name: row.values[title].replace(/\s+/g, ' '),
      artists: artistColumn ? splitArtists(row.values[artistColumn], options.artistSeparators) : [],
      ccliNumber: ccli || null,
      copyright: copyright || null,
    };
    const problems: string[] = [];
    const checked = rules.createSong.safeParse({ name: input.name, artists: input.artists });
    if (!checked.success) {
      problems.push(...checked.error.issues.map((i) => `${i.path[0] === 'name' ? 'title' : String(i.path[0])} ${i.message}`));
    }
    if (ccli && !CCLI_NUMBER.test(ccli)) problems.push(`CCLI number '${ccli}' is not 1 to 10 digits`);
    if (copyright.length > COPYRIGHT_MAX_LENGTH) problems.push(`copyright must be at most ${COPYRIGHT_MAX_LENGTH} characters`);
    if (problems.length) {
      plan.rejected.push({ line: row.line, reason: problems.join('; ') });
      continue;
    }
    const match = matcher.match(input);
    if (match.kind === 'ambiguous') {
      const names = match.candidates.map((id) => (id < 0 ? `line ${-id}` : `song ${id}`));
      plan.ambiguous.push({ line: row.line, reason: `${describeSong(input)} could be any of ${names.join(', ')}: give its CCLI number, or merge the duplicates` });
      continue;
    }
    if (match.kind === 'none') {
      const song: Tracked = { id: -row.line, name: input.name, artists: [...input.artists], ccliNumber: input.ccliNumber ?? null, copyright: input.copyright ?? null, what: `line ${row.line}`, created: input };
      matcher.add(song);
      plan.create.push({ line: row.line, input, what: describeSong(input) });
      continue;
    }
    const song = match.song;
    const how = `${describeSong(input)} matches ${song.what} ${MATCH_REASON[match.kind]}`;
    const { patch, changes, kept } = gains(song, input, options.update ?? false);
    const note = kept.length ? `; ${kept.join('; ')}` : '';
    if (!changes.length) {
      plan.skipped.push({ line: row.line, reason: `${how}${note}` });
      continue;
    }
    // What the song is now, for the rows after this one.
    if (patch.artists) song.artists = patch.artists;
    if (patch.copyright !== undefined) song.copyright = patch.copyright;
    if (patch.ccliNumber) {
      song.ccliNumber = patch.ccliNumber;
      matcher.numbered(song);
    }
    if (song.created) {
      // A song an earlier row creates: it is created with what this row adds.
      Object.assign(song.created, { artists: song.artists, ccliNumber: song.ccliNumber, copyright: song.copyright });
      plan.skipped.push({ line: row.line, reason: `${how}, which it adds to: ${changes.join('; ')}${note}` });
      continue;
    }
    plan.update.push({ line: row.line, input: { id: song.id, patch, changes }, what: `${how}: ${changes.join('; ')}${note}` });
  }
  return plan;
}

export interface SongPlan extends Plan<SongInput> {
  update: { line: number; input: SongUpdate; what: string }[];
  ambiguous: { line: number; reason: string }[];
}
