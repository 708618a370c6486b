/**
 * Suggestions gathered from a store (suggestSongs; the rules are ./suggestions.ts): a handful of
 * bounded reads, in two rounds, then each candidate scored. What a request reads is the last
 * POOL_SERVICES services' setlists, the chosen songs' companions, the service's week and each
 * candidate's rhythm over the horizon: what the answer is made of, never the whole history.
 */
import type { AnalyticsStore } from '../../store/analytics-types';
import type { RecordStore, SongRecord } from '../../store/types';
import { SERVICE_TYPES } from './window';
import {
  bySuggestionOrder,
  PARTNERS_PER_CHOSEN,
  POOL_SERVICES,
  rhythmRangeOf,
  scoreCandidate,
  TOO_OFTEN,
  type ChosenSong,
  type Scored,
  type SuggestionTarget,
} from './suggestions';

export type SuggestionReads = Pick<AnalyticsStore, 'songsSungOften' | 'songsSungWith' | 'usageOfSongs' | 'songRhythms'> &
  Pick<RecordStore, 'servicesInRange' | 'setlistsForServices'>;

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
  const [pool, often, week, partners, chosenUsage] = await Promise.all([
    store.songsSungOften({ to: before, serviceTypes: [...SERVICE_TYPES], lastServices: POOL_SERVICES, moreThanPercent: 0 }),
    store.songsSungOften({ to: before, serviceTypes: [target.serviceType], ...TOO_OFTEN }),
    store.servicesInRange(target.week, {}, {}),
    Promise.all(chosen.map((c) => store.songsSungWith(c.id, ALL_TIME, PARTNERS_PER_CHOSEN))),
    store.usageOfSongs(chosen.map((c) => c.id), ALL_TIME),
  ]);
  const weekIds = week.items.map((v) => v.id).filter((id) => id !== target.serviceId);
  const weekSetlists = weekIds.length ? await store.setlistsForServices(weekIds) : [];

  const left = new Set<number>([...chosen.map((c) => c.id), ...often.songs.map((s) => s.song.id)]);
  for (const setlist of weekSetlists) for (const s of setlist.items) left.add(s.id);
  const candidates = new Map<number, SongRecord>();
  for (const { song } of [...pool.songs, ...partners.flat()]) if (!left.has(song.id)) candidates.set(song.id, song);
  const ids = [...candidates.keys()].sort((a, b) => a - b);
  if (ids.length === 0) return [];

  const [usage, rhythms] = await Promise.all([store.usageOfSongs(ids, ALL_TIME), store.songRhythms(ids, rhythmRangeOf(target))]);
  const told: ChosenSong[] = chosen.map((c, i) => ({ id: c.id, name: c.name, timesSung: chosenUsage[i].timesSung }));
  const together = partners.map((list) => new Map(list.map((p) => [p.song.id, p.together])));
  return ids
    .map((id, i) => {
      const song = candidates.get(id)!;
      const scored = scoreCandidate(target, told, {
        together: together.map((m) => m.get(id) ?? 0),
        timesSung: usage[i].timesSung,
        timesOfType: usage[i].byServiceType.find((t) => t.serviceType === target.serviceType)?.timesSung ?? 0,
        rhythm: rhythms[i],
      });
      return { song, ...scored };
    })
    .filter((s) => s.score > 0)
    .sort(bySuggestionOrder)
    .slice(0, limit);
}
