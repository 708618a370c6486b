import { artistKey } from '../domain/artists';
import { CCLI_NUMBER, COPYRIGHT_MAX_LENGTH, type SongLicensing } from '../domain/licensing';
import { rules } from '../domain/validation';
import type { SongInput, SongRecord } from '../store/types';
import { findColumn, MalformedFileError, type CsvTable } from './csv';
import type { Plan } from './plan';

/** Column names planning tools use in their song exports (headers compare lower-cased). */
export const TITLE_COLUMNS = ['title', 'name', 'song title', 'song'] as const;
export const ARTIST_COLUMNS = ['author', 'authors', 'artist', 'artists'] as const;
export const CCLI_COLUMNS = ['ccli number', 'ccli #', 'ccli', 'ccli song number', 'ccli song #'] as const;
export const COPYRIGHT_COLUMNS = ['copyright'] as const;

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

/** Two songs are the same when their titles and their sets of artists match after normalising. */
export function songKey(song: Pick<SongInput, 'name' | 'artists'>): string {
  const title = artistKey(song.name).replace(/\s+/g, ' ');
  const artists = [...new Set(song.artists.map(artistKey))].sort();
  return JSON.stringify([title, artists]);
}

const describeSong = (s: SongInput) =>
  `'${s.name}'${s.artists.length ? ` (${s.artists.join(', ')})` : ''}${s.ccliNumber ? ` CCLI ${s.ccliNumber}` : ''}`;

/** A song already known, by title and artists or by CCLI number: what it is and its number. */
interface Known {
  what: string;
  ccliNumber: string | null;
}

export interface SongPlanOptions {
  /** DEFAULT_ARTIST_SEPARATORS when absent. */
  artistSeparators?: string;
}

/**
 * Decide, before anything is written, what happens to every row: created, skipped as a duplicate
 * (of a stored song or an earlier row), or rejected with the reason. A row is a duplicate when its
 * CCLI number is one a song already has, whatever the spelling of its title; without a CCLI
 * number on both sides, when its title and artists match. Two songs with different CCLI numbers
 * are different songs, even under one title. `licensing` is each existing song's, in order.
 */
export function planSongs(
  table: CsvTable,
  existing: SongRecord[],
  licensing: readonly (SongLicensing | null)[] = [],
  options: SongPlanOptions = {},
): Plan<SongInput> {
  const title = findColumn(table.headers, TITLE_COLUMNS);
  if (!title) {
    throw new MalformedFileError(`no title column: the header needs one of ${TITLE_COLUMNS.map((c) => `'${c}'`).join(', ')}`);
  }
  const artistColumn = findColumn(table.headers, ARTIST_COLUMNS);
  const ccliColumn = findColumn(table.headers, CCLI_COLUMNS);
  const copyrightColumn = findColumn(table.headers, COPYRIGHT_COLUMNS);

  const byKey = new Map<string, Known[]>();
  const byCcli = new Map<string, string>();
  const remember = (song: SongInput, what: string) => {
    byKey.set(songKey(song), [...(byKey.get(songKey(song)) ?? []), { what, ccliNumber: song.ccliNumber ?? null }]);
    if (song.ccliNumber) byCcli.set(song.ccliNumber, what);
  };
  existing.forEach((s, i) => remember({ ...s, ccliNumber: licensing[i]?.ccliNumber ?? null }, `existing song ${s.id}`));

  const plan: Plan<SongInput> = { create: [], skipped: [], rejected: [] };
  for (const row of table.rows) {
    const ccli = ccliColumn ? row.values[ccliColumn].trim() : '';
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
    const sameNumber = input.ccliNumber ? byCcli.get(input.ccliNumber) : undefined;
    // By title and artists, unless both songs have CCLI numbers and they differ.
    const sameSong = (byKey.get(songKey(input)) ?? []).find(
      (k) => !(k.ccliNumber && input.ccliNumber && k.ccliNumber !== input.ccliNumber),
    );
    const duplicate = sameNumber ?? sameSong?.what;
    if (duplicate) {
      let why = sameNumber ? `has the CCLI number of ${duplicate}` : `duplicates ${duplicate}`;
      // An import never changes a stored song; say where the number is missing, to set it there.
      if (!sameNumber && input.ccliNumber && !sameSong?.ccliNumber) why += ', which has no CCLI number yet';
      plan.skipped.push({ line: row.line, reason: `${describeSong(input)} ${why}` });
      continue;
    }
    remember(input, `line ${row.line}`);
    plan.create.push({ line: row.line, input, what: describeSong(input) });
  }
  return plan;
}
