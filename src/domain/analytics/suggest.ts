/**
 * Suggestions gathered from a store (suggestSongs; the rules are ./suggestions.ts): a handful of
 * bounded reads, in two rounds, then each candidate scored, then the records of those kept. What
 * a request reads is the last POOL_SERVICES services' setlists (their songs' ids), the chosen
 * songs' companions, the service's week, each candidate's counts per type and rhythm over the
 * horizon: what the answer is made of, never the whole history. Per candidate, only what its
 * score needs is read: its record and its reasons in words come for the `limit` kept.
 */
import type { AnalyticsStore, SongTimesByType } from '../../store/analytics-types';
import type { RecordStore, SongRecord } from '../../store/types';
import { SERVICE_TYPES } from './window';
import {
  bySuggestionOrder,
  PARTNERS_PER_CHOSEN,
  POOL_SERVICES,
  rhythmRangeOf,
  reasonsOf,
  scoreOf,
  TOO_OFTEN,
  type ChosenSong,
  type Scored,
  type SuggestionTarget,
} from './suggestions';

export type SuggestionReads = Pick<AnalyticsStore, 'songsSungOften' | 'songsOfLastServices' | 'songsSungWith' | 'songRhythms' | 'songTimesByType'> &
  Pick<RecordStore, 'servicesInRange' | 'setlistsForServices' | 'songsByIds'>;

export interface Suggestion extends Scored {
  song: SongRecord;
}

const ALL_TIME = { from: null, to: null, serviceTypes: [...SERVICE_TYPES] };

/** The `limit` best candidates for `target` beside `chosen` (distinct, existing songs). */
export async function suggest(
  store: SuggestionReads,
  target: SuggestionTarget,
  chosen: readonly SongRecord[],
  limit: number,
): Promise<Suggestion[]> {
  const before = target.dayStart - 1;
  const [pool, often, week, partners, chosenTimes] = await Promise.all([
    store.songsOfLastServices({ to: before, serviceTypes: [...SERVICE_TYPES], lastServices: POOL_SERVICES }),
    store.songsSungOften({ to: before, serviceTypes: [target.serviceType], ...TOO_OFTEN }),
    store.servicesInRange(target.week, {}, {}),
    Promise.all(chosen.map((c) => store.songsSungWith(c.id, ALL_TIME, PARTNERS_PER_CHOSEN))),
    store.songTimesByType(chosen.map((c) => c.id)),
  ]);
  const weekIds = week.items.map((v) => v.id).filter((id) => id !== target.serviceId);
  const weekSetlists = weekIds.length ? await store.setlistsForServices(weekIds) : [];

  const left = new Set<number>([...chosen.map((c) => c.id), ...often.songs.map((s) => s.song.id)]);
  for (const setlist of weekSetlists) for (const s of setlist.items) left.add(s.id);
  // The pool comes as ids; the companions with their records, the rest read for those kept.
  const records = new Map<number, SongRecord>(partners.flat().map(({ song }) => [song.id, song]));
  const ids = [...new Set([...pool, ...records.keys()])].filter((id) => !left.has(id)).sort((a, b) => a - b);
  if (ids.length === 0) return [];

  const [times, rhythms] = await Promise.all([store.songTimesByType(ids), store.songRhythms(ids, rhythmRangeOf(target))]);
  const total = (t: SongTimesByType) => SERVICE_TYPES.reduce((n, type) => n + t[type], 0);
  const told: ChosenSong[] = chosen.map((c, i) => ({ id: c.id, name: c.name, timesSung: total(chosenTimes[i]) }));
  const together = partners.map((list) => new Map(list.map((p) => [p.song.id, p.together])));
  // Every candidate scored; only the `limit` kept are put in words.
  const scored = ids
    .map((id, i) => {
      const facts = {
        together: together.map((m) => m.get(id) ?? 0),
        timesSung: total(times[i]),
        timesOfType: times[i][target.serviceType],
        rhythm: rhythms[i],
      };
      return { song: { id }, facts, ...scoreOf(target, told, facts) };
    })
    .filter((s) => s.score > 0)
    .sort(bySuggestionOrder)
    .slice(0, limit);
  const unread = scored.map((s) => s.song.id).filter((id) => !records.has(id));
  for (const song of unread.length ? await store.songsByIds(unread) : []) if (song) records.set(song.id, song);
  // A song deleted since the pool was read is left out.
  return scored.flatMap(({ song, facts, ...s }) => {
    const record = records.get(song.id);
    return record ? [{ song: record, score: s.score, parts: s.parts, reasons: reasonsOf(target, told, facts.together, s), rotation: s.rotation }] : [];
  });
}
