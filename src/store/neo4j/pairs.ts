import type { SetlistState, WriteEffects } from './maintained';
import { USAGE_TYPES } from './statements';

/**
 * Song pairs ("songs sung with"), maintained by deltas: for every two songs sung in one service,
 * one (:Song)-[:SUNG_WITH]->(:Song) relationship, from the song with the lower id to the other,
 * counts the services of each type holding both (./statements.ts, movePairs). Stored once, not
 * once each way round: the counts are the same both ways, and each pair written is an index seek,
 * a property update and two index entries (twice each, the 1m import's largest cost and a sixth
 * of a setlist write's). A song's pairs are its relationships either way round (the reports read
 * both sides). A write changes the pairs of the services it touches only:
 * each service's pairs before the write are counted out (its type then), its pairs after it in (its
 * type now), so a link, an unlink, a replaced setlist, a type change and a delete are all the same
 * computation, and pairs that come out even (a moved song, a date change) write nothing.
 *
 * A deleted song's pairs went with its node (DETACH DELETE), so they are left out here.
 */
export interface PairRow {
  songId: number;
  otherId: number;
  sunAm: number;
  sunPm: number;
  wed: number;
}

type TypeProperty = (typeof USAGE_TYPES)[number][1];
const PROPERTY = new Map<string, TypeProperty>(USAGE_TYPES.map(([type, p]) => [type, p]));

/**
 * The pair count changes of one write, each pair once (songId < otherId), in (songId, otherId)
 * order; none for pairs that came out even.
 */
export function pairDeltas(effects: WriteEffects): PairRow[] {
  const gone = new Set(effects.deletedSongs ?? []);
  // By song, then other song: numbers, not a string key per pair (an import part moves 600,000).
  const rows = new Map<number, Map<number, PairRow>>();
  const count = (state: SetlistState | null, sign: 1 | -1) => {
    if (!state) return;
    const property = PROPERTY.get(state.serviceType);
    if (!property) throw new Error(`pairDeltas: unknown service type ${state.serviceType}`);
    const ids = state.songIds.filter((id) => !gone.has(id));
    for (const songId of ids) {
      for (const otherId of ids) {
        if (songId >= otherId) continue;
        let others = rows.get(songId);
        if (!others) rows.set(songId, (others = new Map()));
        let row = others.get(otherId);
        if (!row) others.set(otherId, (row = { songId, otherId, sunAm: 0, sunPm: 0, wed: 0 }));
        row[property] += sign;
      }
    }
  };
  for (const t of effects.transitions) {
    count(t.before, -1);
    count(t.after, 1);
  }
  const out: PairRow[] = [];
  for (const others of rows.values()) for (const r of others.values()) if (r.sunAm !== 0 || r.sunPm !== 0 || r.wed !== 0) out.push(r);
  return out.sort((a, b) => a.songId - b.songId || a.otherId - b.otherId);
}
