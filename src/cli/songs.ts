/**
 * The catalogue's likely duplicates, by the rule the import matches rows with
 * (src/domain/song-match.ts), on the configured store (STORE, SQLITE_PATH, NEO4J_*):
 *
 *   npm run songs -- duplicates                   songs that share a CCLI number or a normalised title
 *   npm run songs -- merge <keepId> <mergeId>...  fold those songs into the song keepId (mergeSongs)
 *
 * `duplicates` reads and lists; it changes nothing. `merge` is the API's mergeSongs on the store
 * itself (the same rule, the same transaction), for an operator at the server.
 */
import { loadEnvFile } from '../env-file';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { MATCH_REASON, matchableSongs, SongMatcher, titleKey, type MatchableSong } from '../domain/song-match';
import { createStore } from '../store';
import { isMergeRefused, type Store } from '../store/types';
import { ARTISTS_MAX } from '../domain/artists';
import { ruleProblems, rules } from '../domain/validation';

export const USAGE = 'usage: npm run songs -- duplicates | merge <keepId> <mergeId>...';

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

/** The ids of `merge`, checked by the API's own rule before the store is opened. */
function mergeArgs(args: string[]): { keepId: number; mergeIds: number[] } {
  const numbers = args.map((a) => (/^\d{1,10}$/.test(a) ? Number(a) : NaN));
  const [keepId, ...mergeIds] = numbers;
  const problems = ruleProblems(rules.mergeSongs, { keepId, mergeIds });
  if (args.length < 2 || problems.length > 0) {
    const why = problems.map((p) => `${p.field}: ${p.message}`).join('; ') || 'name the kept song and at least one other';
    throw new UsageError(`${why}\n${USAGE}`);
  }
  return { keepId, mergeIds };
}

async function merge(store: Store, keepId: number, mergeIds: number[], out: (line: string) => void) {
  const [before] = await store.servicesForSongs([keepId], {}, { limit: 0 });
  const result = await store.mergeSongs(keepId, mergeIds);
  if (isMergeRefused(result)) {
    throw new Error(result.refused === 'no-song' ? `song ${result.songId} does not exist; nothing merged` : `the kept song would list more than ${ARTISTS_MAX} artists; nothing merged`);
  }
  const [after] = await store.servicesForSongs([keepId], {}, { limit: 0 });
  const [licensing] = await store.licensingOfSongs([keepId]);
  out(`merged song${mergeIds.length === 1 ? '' : 's'} ${mergeIds.join(', ')} into ${describe({ ...result, ...licensing! })}`);
  out(`  sung in ${after.totalCount} services (${before.totalCount} before); the merged songs are deleted`);
}

export async function run(argv: string[], out: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true, options: {} });
  const [command, ...rest] = positionals;
  if (!(command === 'duplicates' && rest.length === 0) && command !== 'merge') throw new UsageError(USAGE);
  const ids = command === 'merge' ? mergeArgs(rest) : undefined;
  const store = await createStore(loadConfig(env));
  try {
    if (ids) return await merge(store, ids.keepId, ids.mergeIds, out);
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
