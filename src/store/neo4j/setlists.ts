import type { ManagedTransaction, Record as Neo4jRecord } from 'neo4j-driver';
import { orderAfterLink, orderAfterUnlink, placesToWrite, type PlacedSong } from '../../domain/setlist';
import type { LinkResult, ServicePatch, ServiceRecord } from '../types';
import { maintain, moveArtists, movePairs, movePeriods, moveUsage } from './aggregates';
import type { SetlistState, SetlistTransition } from './maintained';
import type { LinkSeqs } from './link-seqs';
import { artistDeltas, artistsOut } from './usage';
import { run } from './run';
import { fromInt, toService } from './values';
import { WritePlan, wrote, type LockedService } from './write-plan';

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
 * Write `order` over a locked service's stored setlist: the songs it leaves unlinked, those that
 * stay moved to their places, the new ones linked with reserved seqs (no lock every link write
 * takes). A link that is not there to remove answers `notLinked`; a song gone answers 'no-song'.
 */
async function writeSetlist(plan: WritePlan, v: LockedService, order: readonly number[], deps: SetlistDeps, notLinked: unknown = undefined) {
  const keep = new Set(order);
  const stored = new Set(v.songIds);
  const removed = v.songIds.filter((id) => !keep.has(id));
  const writes = placesToWrite(placedOf(v), order);
  const placed = writes.filter((w) => stored.has(w.songId));
  const created = writes.filter((w) => !stored.has(w.songId));
  if (removed.length + placed.length + created.length === 0) return;
  const seqs = await deps.seqs.take(created.length);
  plan.onSongs([...removed, ...order], 'writeLinks', {
    serviceId: v.id,
    removed: removed,
    placed: placed.map((p) => ({ songId: p.songId, position: p.position })),
    created: created.map((p, i) => ({ songId: p.songId, position: p.position, seq: seqs[i] })),
  }, (rows) => {
    wrote('writeLinks', 'removed', removed.length, ...(notLinked === undefined ? [] : [notLinked]))(rows);
    wrote('writeLinks', 'placed', placed.length)(rows);
    wrote('writeLinks', 'created', created.length, 'no-song')(rows);
  });
}

/** Change a service's setlist to `order` (computed from the stored one), with its aggregates. */
async function changeSetlist(
  tx: Tx,
  serviceId: number,
  deps: SetlistDeps,
  next: (current: number[]) => readonly number[] | LinkResult | 'not-linked',
  notLinked?: unknown,
  alsoLock: readonly number[] = [],
): Promise<LinkResult | 'not-linked'> {
  const plan = new WritePlan();
  const v = (await plan.lockSetlists(tx, [serviceId])).get(serviceId);
  if (!v) return 'no-service';
  const order = next(v.songIds);
  if (typeof order === 'string') return order;
  // Every song of the setlist before and after: their usage or pairs may move. They exist
  // (linked to the service we hold) or are being linked: fewer locked means no such song.
  plan.lockSongs([...v.songIds, ...order, ...alsoLock], 'no-song');
  await writeSetlist(plan, v, order, deps, notLinked);
  maintain(plan, { effects: { transitions: [{ serviceId, before: stateOf(v), after: stateOf(v, [...order]) }] }, zone: deps.zone });
  await plan.send(tx);
  return 'ok';
}

export function linkSong(tx: Tx, deps: SetlistDeps, serviceId: number, songId: number, position?: number) {
  return changeSetlist(tx, serviceId, deps, (current) => orderAfterLink(current, songId, position)) as Promise<LinkResult>;
}

export async function unlinkSong(tx: Tx, deps: SetlistDeps, serviceId: number, songId: number): Promise<LinkResult | 'not-linked'> {
  let absent = false;
  const outcome = await changeSetlist(
    tx,
    serviceId,
    deps,
    (current) => {
      absent = !current.includes(songId);
      return orderAfterUnlink(current, songId);
    },
    'not-linked',
    // Not in the setlist: locked too, so a missing song answers 'no-song', an existing one 'not-linked'.
    [songId],
  );
  return outcome === 'ok' && absent ? 'not-linked' : outcome;
}

export function replaceSetlist(tx: Tx, deps: SetlistDeps, serviceId: number, songIds: readonly number[]) {
  return changeSetlist(tx, serviceId, deps, () => songIds) as Promise<LinkResult>;
}

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
  await plan.send(tx);
  return toService(updated!);
}

const orNull = (n: number | undefined) => (n === undefined ? null : n);

export async function deleteService(tx: Tx, deps: SetlistDeps, id: number): Promise<boolean> {
  const plan = new WritePlan();
  const v = (await plan.lockSetlists(tx, [id])).get(id);
  if (!v) return false;
  plan.lockSongs(v.songIds, new Error(`deleteService: a song of service ${id} went away under its lock`));
  plan.onSongs(v.songIds, 'deleteService', { id: id }, wrote('deleteService', 'deleted', 1, false));
  maintain(plan, { effects: { transitions: [{ serviceId: id, before: stateOf(v), after: null }] }, zone: deps.zone });
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
export async function deleteSong(tx: Tx, deps: SetlistDeps, id: number): Promise<boolean> {
  const servicesOf = (rows: Neo4jRecord[]) => rows.map((r) => fromInt(r.get('serviceId'), 'service id'));
  // Read without locks: checked again under the song's lock below.
  const first = servicesOf(await run(tx, 'servicesOfSong', { id }));
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
  await plan.send(tx);
  return true;
}

