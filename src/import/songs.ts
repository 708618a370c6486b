import { artistKey } from '../domain/artists';
import { rules } from '../domain/validation';
import type { SongInput, SongRecord } from '../store/types';
import { findColumn, MalformedFileError, type CsvTable } from './csv';
import type { Plan } from './plan';

/** Column names planning tools use in their song exports. */
export const TITLE_COLUMNS = ['title', 'name', 'song title', 'song'] as const;
export const ARTIST_COLUMNS = ['author', 'authors', 'artist', 'artists'] as const;

/** `Words & Music; Other, Third and Fourth` → each name once (first spelling kept), in order. */
export function splitArtists(text: string): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const part of text.split(/;|,|&|\s+and\s+/i)) {
    const name = part.trim().replace(/\s+/g, ' ');
    const key = artistKey(name);
    if (name === '' || seen.has(key)) continue;
    seen.add(key);
    names.push(name);
  }
  return names;
}

/** Two songs are the same when their titles and their sets of artists match after normalising. */
export function songKey(song: SongInput): string {
  const title = artistKey(song.name).replace(/\s+/g, ' ');
  const artists = [...new Set(song.artists.map(artistKey))].sort();
  return JSON.stringify([title, artists]);
}

const describeSong = (s: SongInput) => `'${s.name}'${s.artists.length ? ` (${s.artists.join(', ')})` : ''}`;

/**
 * Decide, before anything is written, what happens to every row: created, skipped as a duplicate
 * (of a stored song or an earlier row), or rejected with the reason.
 */
export function planSongs(table: CsvTable, existing: SongRecord[]): Plan<SongInput> {
  const title = findColumn(table.headers, TITLE_COLUMNS);
  if (!title) {
    throw new MalformedFileError(`no title column: the header needs one of ${TITLE_COLUMNS.map((c) => `'${c}'`).join(', ')}`);
  }
  const artistColumn = findColumn(table.headers, ARTIST_COLUMNS);
  const known = new Map<string, string>(existing.map((s) => [songKey(s), `existing song ${s.id}`]));
  const plan: Plan<SongInput> = { create: [], skipped: [], rejected: [] };
  for (const row of table.rows) {
    const input: SongInput = {
      name: row.values[title].replace(/\s+/g, ' '),
      artists: artistColumn ? splitArtists(row.values[artistColumn]) : [],
    };
    const checked = rules.createSong.safeParse(input);
    if (!checked.success) {
      const reason = checked.error.issues.map((i) => `${i.path[0] === 'name' ? 'title' : String(i.path[0])} ${i.message}`).join('; ');
      plan.rejected.push({ line: row.line, reason });
      continue;
    }
    const key = songKey(input);
    const duplicate = known.get(key);
    if (duplicate) {
      plan.skipped.push({ line: row.line, reason: `${describeSong(input)} duplicates ${duplicate}` });
      continue;
    }
    known.set(key, `line ${row.line}`);
    plan.create.push({ line: row.line, input });
  }
  return plan;
}
