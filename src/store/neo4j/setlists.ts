import type { ManagedTransaction, Record as Neo4jRecord } from 'neo4j-driver';
import { orderAfterLink, orderAfterUnlink, placesToWrite, wouldOverfill, type PlacedSong } from '../../domain/setlist';
import { changes } from '../../events/changes';
import type { ServiceType } from '../../generated/graphql';
import type { LinkSongResult, ServicePatch, ServiceRecord, SongRecord } from '../types';
import { maintain, moveArtists, movePairs, movePeriods, moveUsage } from './aggregates';
import type { SetlistState, SetlistTransition } from './maintained';
import type { LinkSeqs } from './link-seqs';
import { artistDeltas, artistsOut } from './usage';
import { run } from './run';
import { fromInt, toService, toSong } from './values';
import { WritePlan, wrote, type LockedService } from './write-plan';
import { recordInPlan } from './events';

/**
 * The Neo4j writers of setlists and services: each one a WritePlan (./write-plan.ts), so in three
 * round trips (read and lock the service; send the song locks, the link changes and the
 * aggregates' deltas at once; commit), taking its locks in the one order. The aggregates move by
 * what the write changed (./aggregates.ts), so a write costs the same however long the history.
 * Nothing has been written when one answers other than 'ok'.
 */

type Tx = Pick<ManagedTransaction, 'run'>;

export interface SetlistDeps {
  zone: string;
  seqs: LinkSeqs;
}

/** A locked service's state for the aggregates, with `songIds` as its setlist (default: as stored). */
const stateOf = (v: Pick<LockedService, 'date' | 'serviceType' | 'songIds'>, songIds = v.songIds): SetlistState => ({
  songIds,
  serviceType: v.serviceType,
  date: v.date,
});

const placedOf = (v: LockedService): PlacedSong[] => v.songIds.map((songId, i) => ({ songId, position: v.positions[i] }));

/**
 * Write each locked service's `order` over its stored setlist, in one statement: the songs it
 * leaves unlinked, those that stay moved to their places, the new ones linked with reserved seqs
 * (no lock every link write takes). A link that is not there to remove answers `notLinked`; a
 * song gone answers 'no-song'.
 */
async function writeSetlists(plan: WritePlan, written: readonly { v: LockedService; order: readonly number[] }[], deps: SetlistDeps, notLinked: unknown = undefined) {
  const removed: { serviceId: number; songId: number }[] = [];
  const placed: { serviceId: number; songId: number; position: number }[] = [];
  const created: { serviceId: number; songId: number; position: number }[] = [];
  for (const { v, order } of written) {
    const keep = new Set(order);
    const stored = new Set(v.songIds);
    for (const songId of v.songIds) if (!keep.has(songId)) removed.push({ serviceId: v.id, songId });
    for (const w of placesToWrite(placedOf(v), order)) (stored.has(w.songId) ? placed : created).push({ serviceId: v.id, ...w });
  }
  if (removed.length + placed.length + created.length === 0) return;
  const seqs = await deps.seqs.take(created.length);
  const songs = [...removed, ...placed, ...created].map((r) => r.songId);
  plan.onSongs(songs, 'writeLinks', { removed, placed, created: created.map((c, i) => ({ ...c, seq: seqs[i] })) }, (rows) => {
    wrote('writeLinks', 'removed', removed.length, ...(notLinked === undefined ? [] : [notLinked]))(rows);
    wrote('writeLinks', 'placed', placed.length)(rows);
    wrote('writeLinks', 'created', created.length, 'no-song')(rows);
  });
}

/**
 * One setlist write: from the service's setlist as the writes before it left it, the order it
 * leaves (or an answer without a change), and the songs it locks besides those of the setlists.
 */
export interface SetlistWrite {
  serviceId: number;
  next(current: readonly number[]): { order: readonly number[]; outcome: SetlistOutcome } | SetlistOutcome;
  alsoLock?: readonly number[];
  /** Songs its setlist may hold besides those it holds now (for its event's records). */
  names?: readonly number[];
  /** The answer, written alone, when a link it removes is not there (a batch runs it again alone). */
  missingLink?: SetlistOutcome;
}

export type SetlistOutcome = LinkSongResult | 'not-linked';

/**
 * Write these setlist changes in one transaction (one write, or a batch: ./setlist-batches.ts),
 * each answered in order against the setlist the writes before it left. The services are locked
 * and read once; every song of their setlists before and after is locked at once; each changed
 * service's links go from its stored setlist to its last order, and the aggregates move by each
 * service's transition from its stored state to its last, so writes to the same songs send their
 * deltas summed. A song that is not there rolls everything back, answering 'no-song'.
 */
export async function changeSetlists(
  tx: Tx,
  deps: SetlistDeps,
  writes: readonly SetlistWrite[],
  /** Each write that changed a setlist records its setlist.changed event with its steps; a merge records none. */
  recordEvents = true,
): Promise<SetlistOutcome[]> {
  const plan = new WritePlan();
  const serviceIds = writes.map((w) => w.serviceId);
  const lockedNow = plan.lockSetlists(tx, serviceIds);
  // The records the events carry, read in the first round trip too, right after the services'
  // locks (statements of a transaction run in the order sent): the songs of their setlists and
  // those the writes name. The events then go with the other steps, in the second.
  const named = [...new Set(writes.flatMap((w) => [...(w.names ?? []), ...(w.alsoLock ?? [])]))];
  const recordsNow = recordEvents
    ? Promise.all([
        run(tx, 'setlists', { ids: [...new Set(serviceIds)], offset: 0, limit: 1_000_000 }),
        named.length ? run(tx, 'songsByIds', { ids: named }) : Promise.resolve([]),
      ])
    : undefined;
  // Both awaited together: neither's failure is left unobserved.
  const [locked, read] = await Promise.all([lockedNow, recordsNow]);
  const records = new Map<number, SongRecord>();
  for (const r of read?.flat() ?? []) if (r.get('id') !== null) records.set(fromInt(r.get('id'), 'song id'), toSong(r));
  const orders = new Map<number, readonly number[]>();
  /** Each write's setlist after it, in the batch's order: each acknowledged write has its event. */
  const after: { v: LockedService; order: readonly number[] }[] = [];
  const outcomes: SetlistOutcome[] = [];
  const songs: number[] = [];
  for (const w of writes) {
    const v = locked.get(w.serviceId);
    if (!v) {
      outcomes.push('no-service');
      continue;
    }
    const step = w.next(orders.get(v.id) ?? v.songIds);
    songs.push(...(w.alsoLock ?? []));
    if (typeof step === 'string') {
      outcomes.push(step);
      continue;
    }
    orders.set(v.id, step.order);
    after.push({ v, order: step.order });
    // Every song a write names is locked, even one a later write of the batch takes out again:
    // a song that is not there must answer 'no-song' as it would alone.
    songs.push(...step.order);
    outcomes.push(step.outcome);
  }
  if (orders.size === 0 && songs.length === 0) return outcomes;
  const changed = [...orders].map(([id, order]) => ({ v: locked.get(id)!, order }));
  // Every song of the setlists before and after: their usage or pairs may move. They exist
  // (linked to a service we hold) or are being linked: fewer locked means no such song.
  plan.lockSongs([...changed.flatMap(({ v, order }) => [...v.songIds, ...order]), ...songs], 'no-song');
  const missingLink = writes.length === 1 ? writes[0].missingLink : undefined;
  await writeSetlists(plan, changed, deps, missingLink);
  const transitions = changed.map(({ v, order }) => ({ serviceId: v.id, before: stateOf(v), after: stateOf(v, [...order]) }));
  maintain(plan, { effects: { transitions }, zone: deps.zone });
  // A song not found has no record: the plan's song locks then roll everything back ('no-song').
  if (recordEvents && after.every(({ order }) => order.every((id) => records.has(id)))) {
    recordInPlan(plan, after.map(({ v, order }) => changes.setlistChanged(serviceOf(v), order.map((id) => records.get(id)!))));
  }
  await plan.send(tx);
  return outcomes;
}

const serviceOf = (v: Pick<LockedService, 'id' | 'date' | 'serviceType'>): ServiceRecord => ({ id: v.id, date: v.date, serviceType: v.serviceType as ServiceType });

/** The setlist writes, as the store submits them (alone or in a batch: ./setlist-batches.ts). */
export const setlistWrites = {
  link(serviceId: number, songId: number, position?: number): SetlistWrite {
    return {
      serviceId,
      next: (current) => (wouldOverfill(current, songId) ? 'setlist-full' : { order: orderAfterLink(current, songId, position), outcome: 'ok' }),
      // Locked even when the setlist is full: a missing song answers 'no-song' first, as on SQLite.
      alsoLock: [songId],
      names: [songId],
    };
  },
  unlink(serviceId: number, songId: number): SetlistWrite {
    return {
      serviceId,
      next: (current) => (current.includes(songId) ? { order: orderAfterUnlink(current, songId), outcome: 'ok' } : 'not-linked'),
      // Locked even when not in the setlist: a missing song answers 'no-song', an existing one 'not-linked'.
      alsoLock: [songId],
      missingLink: 'not-linked',
    };
  },
  replace(serviceId: number, songIds: readonly number[]): SetlistWrite {
    return { serviceId, next: () => ({ order: songIds, outcome: 'ok' }), names: songIds };
  },
};

/**
 * A new service: its number taken from the Service sequence, its periods moved, in one round trip.
 * Its transition names no id: a service with no links is counted in its periods by date and type
 * alone.
 */
export async function createService(tx: Tx, deps: SetlistDeps, input: { date: number; serviceType: string }): Promise<ServiceRecord> {
  const plan = new WritePlan().locking('services', 'createService', { date: input.date, serviceType: input.serviceType });
  movePeriods(plan, { transitions: [{ serviceId: 0, before: null, after: { songIds: [], ...input } }] }, deps.zone);
  const [rows] = await plan.send(tx);
  return toService(rows[0]);
}

export async function updateService(tx: Tx, deps: SetlistDeps, id: number, patch: ServicePatch): Promise<ServiceRecord | null> {
  const plan = new WritePlan();
  const v = (await plan.lockSetlists(tx, [id])).get(id);
  if (!v) return null;
  const after = { date: patch.date ?? v.date, serviceType: patch.serviceType ?? v.serviceType };
  // Its songs' links take the new date and type (the statement's copy to the links).
  plan.lockSongs(v.songIds, new Error(`updateService: a song of service ${id} went away under its lock`));
  let updated: Neo4jRecord | undefined;
  plan.onSongs(v.songIds, 'updateService', { id: id, date: orNull(patch.date), serviceType: patch.serviceType ?? null }, (rows) => {
    if (rows.length !== 1) throw new Error(`updateService wrote ${rows.length} services where 1 was meant; rolled back`);
    updated = rows[0];
  });
  if (after.date !== v.date || after.serviceType !== v.serviceType) {
    maintain(plan, { effects: { transitions: [{ serviceId: id, before: stateOf(v), after: stateOf({ ...v, ...after }) }] }, zone: deps.zone });
  }
  recordInPlan(plan, [changes.serviceUpdated(serviceOf({ id, ...after }))]);
  await plan.send(tx);
  return toService(updated!);
}

const orNull = (n: number | undefined) => (n === undefined ? null : n);

/** False when there was no such service. Its event (the service as it was) goes with its steps. */
export async function deleteService(tx: Tx, deps: SetlistDeps, id: number): Promise<boolean> {
  const plan = new WritePlan();
  const v = (await plan.lockSetlists(tx, [id])).get(id);
  if (!v) return false;
  plan.lockSongs(v.songIds, new Error(`deleteService: a song of service ${id} went away under its lock`));
  plan.onSongs(v.songIds, 'deleteService', { id: id }, wrote('deleteService', 'deleted', 1, false));
  maintain(plan, { effects: { transitions: [{ serviceId: id, before: stateOf(v), after: null }] }, zone: deps.zone });
  recordInPlan(plan, [changes.serviceDeleted(serviceOf(v))]);
  await plan.send(tx);
  return true;
}

/** Ask for the transaction to run again from the start (a link made beside a song delete's reads). */
export class RunAgain extends Error {}

/**
 * Delete a song: the services it is in are locked and read first, then the song and the songs
 * that take its place at either end of those setlists; its usage leaves its artists before its
 * node goes (its links and pairs with it); the setlists close the gap; the other songs' usage,
 * pairs and the periods move by the transitions. A link to it made between the first read and its
 * lock sends the transaction round again.
 */
export async function deleteSong(tx: Tx, deps: SetlistDeps, id: number, recordIt = true): Promise<boolean> {
  const servicesOf = (rows: Neo4jRecord[]) => rows.map((r) => fromInt(r.get('serviceId'), 'service id'));
  // Read without locks: checked again under the song's lock below. With them, in the same round
  // trip, the song's record for the event of its delete (a merge records none).
  const [firstRows, songRows] = await Promise.all([run(tx, 'servicesOfSong', { id }), recordIt ? run(tx, 'songsByIds', { ids: [id] }) : []]);
  const first = servicesOf(firstRows);
  const plan = new WritePlan();
  const services = [...(await plan.lockSetlists(tx, first)).values()];
  const transitions: SetlistTransition[] = services.map((v) => ({
    serviceId: v.id,
    before: stateOf(v),
    after: stateOf(v, v.songIds.filter((s) => s !== id)),
  }));
  const others = services.flatMap((v) => v.songIds).filter((s) => s !== id);
  // The song and every song of its setlists: their usage (ends) and pairs may move.
  plan.lockSongs([id, ...others], false);
  // Its services again, under its lock: one more than read first sends the transaction round again.
  plan.onSongs([id], 'servicesOfSong', { id: id }, (rows) => {
    if (servicesOf(rows).join() !== services.map((v) => v.id).join()) throw new RunAgain(`song ${id} was linked beside its delete`);
  });
  const effects = { transitions, deletedSongs: [id] };
  const usage = moveUsage(plan, effects);
  moveArtists(plan, [...artistsOut([id]), ...artistDeltas(usage)]);
  // Its entries stop counting for its artists' spellings, before it goes.
  plan.locking('artists', 'moveSpellings', { rows: [{ id, sign: -1 }] }, wrote('moveSpellings', 'moved', 1));
  plan.locking('artists', 'deleteSong', { id: id }, wrote('deleteSong', 'deleted', 1, false));
  const rows = services.flatMap((v) =>
    placesToWrite(
      placedOf(v).filter((p) => p.songId !== id),
      v.songIds.filter((s) => s !== id),
    ).map((p) => ({ serviceId: v.id, songId: p.songId, position: p.position })),
  );
  if (rows.length > 0) plan.onSongs(others, 'placeLinks', { rows }, wrote('placeLinks', 'placed', rows.length));
  movePairs(plan, effects);
  movePeriods(plan, effects, deps.zone);
  // No record: no such song, and its lock above rolls the transaction back answering false.
  if (songRows[0] && songRows[0].get('id') !== null) recordInPlan(plan, [changes.songDeleted(toSong(songRows[0]))]);
  await plan.send(tx);
  return true;
}

