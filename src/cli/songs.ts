/**
 * The catalogue's likely duplicates, by the rule the import matches rows with
 * (src/domain/song-match.ts), on the configured store (STORE, SQLITE_PATH, NEO4J_*):
 *
 *   npm run songs -- duplicates          songs that share a CCLI number or a normalised title
 *
 * It reads and lists; it changes nothing.
 */
import { loadEnvFile } from '../env-file';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { MATCH_REASON, matchableSongs, SongMatcher, titleKey, type MatchableSong } from '../domain/song-match';
import { createStore } from '../store';
import type { Store } from '../store/types';

export const USAGE = 'usage: npm run songs -- duplicates';

class UsageError extends Error {}

/** Groups of two or more songs the matching rule cannot tell apart, each with what they share. */
export async function duplicateGroups(store: Store): Promise<{ shared: string; songs: MatchableSong[] }[]> {
  const songs = (await store.listSongs({}, {})).items;
  const licensing = await store.licensingOfSongs(songs.map((s) => s.id));
  const catalogue = matchableSongs(songs, licensing);
  const groups: { shared: string; songs: MatchableSong[] }[] = [];
  const byNumber = new Map<string, MatchableSong[]>();
  for (const s of catalogue) if (s.ccliNumber) byNumber.set(s.ccliNumber, [...(byNumber.get(s.ccliNumber) ?? []), s]);
  for (const [number, group] of byNumber) if (group.length > 1) groups.push({ shared: `CCLI number ${number}`, songs: group });
  for (const group of new SongMatcher(catalogue).titleGroups()) {
    // Two songs with two CCLI numbers are two songs, whatever their titles.
    const numbers = new Set(group.map((s) => s.ccliNumber).filter(Boolean));
    if (numbers.size === group.length) continue;
    groups.push({ shared: `title '${titleKey(group[0].name)}' (${MATCH_REASON.title})`, songs: group });
  }
  return groups;
}

const describe = (s: MatchableSong) =>
  `song ${s.id}: '${s.name}'${s.artists.length ? ` (${s.artists.join(', ')})` : ''}${s.ccliNumber ? ` CCLI ${s.ccliNumber}` : ''}`;

export async function run(argv: string[], out: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: {} });
  if (positionals.length !== 1 || positionals[0] !== 'duplicates') throw new UsageError(USAGE);
  const store = await createStore(loadConfig(env));
  try {
    const groups = await duplicateGroups(store);
    out(groups.length ? `${groups.length} group${groups.length === 1 ? '' : 's'} of likely duplicates:` : 'no likely duplicates');
    for (const g of groups) {
      out(`${g.shared}:`);
      for (const s of g.songs) out(`  ${describe(s)}`);
    }
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  loadEnvFile();
  run(process.argv.slice(2), (line) => console.log(line)).then(
    () => process.exit(0),
    (err) => {
      console.error(`songs: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
