import type { ManagedTransaction } from 'neo4j-driver';
import { artistKey } from '../../domain/artists';
import { usernameKey } from '../keys';
import { CatalogueError, checkSetlist } from '../catalogue';
import { licensingBySong, licensingOf, sequenceFloor, snapshotCounts } from '../snapshot';
import type { CatalogueBatch, ImportedCatalogue, ServiceRecord, Snapshot, SnapshotCounts, SongInput, SongRecord } from '../types';
import { maintain, moveArtists, SLICE } from './aggregates';
import type { SetlistState, SetlistTransition } from './maintained';
import type { SetlistDeps } from './setlists';
import { periodsOfDates } from './periods';
import { recomputePeriods } from './timeline';
import { artistsIn, artistsOut } from './usage';
import { fromInt, toService, toSong } from './values';
import { WritePlan, wrote, type LockedService } from './write-plan';

/**
 * Moving records in bulk: a snapshot (`npm run migrate`, in parts) and a catalogue batch
 * (`npm run import`). Each runs in one transaction and moves the maintained aggregates once, by
 * what it changed (./aggregates.ts): its cost follows what it brings, not what the store holds.
 * A snapshot recomputes the timeline periods of its services' dates instead (once each).
 * Rows go in slices of SLICE per statement (large UNWIND batches, no unbounded parameter list).
 */

type Tx = Pick<ManagedTransaction, 'run'>;

function* slices<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += SLICE) yield items.slice(i, i + SLICE);
}

/** Sorted so that concurrent writers MERGE shared Artist nodes in one order. */
export const distinctKeys = (artists: readonly string[]) => [...new Set(artists.map(artistKey))].sort();

/** createSong's parameters: licensing details absent are null. */
export const createSongParams = (input: SongInput) => ({
  name: input.name,
  artists: input.artists,
  artistKeys: distinctKeys(input.artists),
  ccliNumber: input.ccliNumber ?? null,
  copyright: input.copyright ?? null,
});

const SEQUENCE_NAMES = { song: 'Song', service: 'Service', user: 'User', link: 'PERFORMED_IN' } as const;
export { SEQUENCE_NAMES };

const unordered = () => new WritePlan({ ordered: false });

const stateOf = (v: LockedService): SetlistState => ({ songIds: v.songIds, serviceType: v.serviceType, date: v.date });

/** Lock and read services in slices (a plan of its own per slice: imports run with writers stopped). */
async function readServices(tx: Tx, ids: readonly number[]): Promise<Map<number, LockedService>> {
  const out = new Map<number, LockedService>();
  for (const part of slices(ids)) for (const [id, v] of await unordered().lockSetlists(tx, part)) out.set(id, v);
  return out;
}

/**
 * Upsert a snapshot by id (./types.ts Store.importSnapshot), its caller's one transaction. The
 * aggregates: songs the snapshot brings with other artists than the target holds leave their
 * artists (usage and spellings) before they change and join the new ones after; the services it
 * brings change from the setlist the target held (none for a new one) to the one they hold after
 * (MERGE keeps the target's links beside the imported ones), which moves usage, pairs and artist
 * totals by deltas; the periods of their dates are recomputed.
 * Imports are meant to run with writers stopped: their locks are not taken in the writers' order,
 * and a deadlock with a writer is retried by the driver.
 */
export async function importSnapshot(tx: Tx, deps: SetlistDeps, snapshot: Snapshot): Promise<SnapshotCounts> {
  const floor = sequenceFloor(snapshot);
  const licensing = licensingBySong(snapshot);
  const songIds = snapshot.songs.map((s) => s.id);
  const serviceIds = snapshot.services.map((v) => v.id);
  const steps = unordered();
  // What the target holds before: the setlists of the services it brings.
  const before = await readServices(tx, serviceIds);
  // The songs it brings that the target holds are locked before their usage and artists are
  // read: a writer moving one's usage commits first, or waits for the import, and its artists see
  // each change once.
  const locks = unordered();
  for (const part of slices(songIds)) locks.step('lockSongs', { songIds: [...part].sort((a, b) => a - b) });
  const lockSteps = Math.ceil(songIds.length / SLICE);
  for (const part of slices(songIds)) locks.step('songsByIds', { ids: part });
  const held = new Map<number, readonly string[]>();
  for (const rows of (await locks.send(tx)).slice(lockSteps)) {
    for (const r of rows) if (r.get('id') !== null) held.set(fromInt(r.get('id'), 'song id'), (r.get('artists') as string[] | null) ?? []);
  }
  // Only songs whose artists change (or that are new) leave their artists and join the new ones:
  // a later part of a large snapshot brings again every song its links name, mostly unchanged.
  const sameArtists = (a: readonly string[] | undefined, b: readonly string[]) => a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
  const joining = snapshot.songs.filter((s) => !sameArtists(held.get(s.id), s.artists));
  const joiningIds = joining.map((s) => s.id);
  const leaving = joiningIds.filter((id) => held.has(id));
  for (const part of slices(leaving)) moveArtists(steps, artistsOut(part));
  for (const part of slices(leaving)) steps.step('moveSpellings', { rows: part.map((id) => ({ id, sign: -1 })) }, wrote('moveSpellings', 'moved', part.length));

  for (const part of slices(snapshot.songs)) {
    steps.step('importSongs', {
      rows: part.map((s) => ({ id: s.id, name: s.name, artists: s.artists, ...licensingOf(licensing, s.id) })),
    }, wrote('importSongs', 'written', part.length));
  }
  for (const part of slices(joining)) {
    steps.step('setSongArtists', { rows: part.map((s) => ({ id: s.id, artistKeys: distinctKeys(s.artists) })) }, wrote('setSongArtists', 'songs', part.length));
    steps.step('moveSpellings', { rows: part.map((s) => ({ id: s.id, sign: 1 })) }, wrote('moveSpellings', 'moved', part.length));
  }
  // One service per date and type (../types.ts SlotTaken): of the snapshot's services sharing
  // one (written before the rule), the first holds it.
  const slots = new Set<string>();
  const first = (v: ServiceRecord) => {
    const slot = `${v.date}|${v.serviceType}`;
    if (slots.has(slot)) return false;
    slots.add(slot);
    return true;
  };
  for (const part of slices(serviceIds)) steps.step('unguardServices', { ids: part });
  for (const part of slices(snapshot.services)) {
    steps.step('importServices', {
      rows: part.map((v) => ({ id: v.id, date: v.date, serviceType: v.serviceType, first: first(v) })),
    }, wrote('importServices', 'written', part.length));
  }
  for (const part of slices(snapshot.users)) {
    steps.step('importUsers', {
      rows: part.map((u) => ({
        id: u.id,
        username: u.username,
        usernameKey: usernameKey(u.username),
        passwordHash: u.passwordHash,
        role: u.role,
        tokenVersion: u.tokenVersion,
      })),
    }, wrote('importUsers', 'written', part.length));
  }
  for (const part of slices(snapshot.links)) {
    steps.step('importLinks', {
      rows: part.map((l) => ({ serviceId: l.serviceId, songId: l.songId, position: l.position, seq: l.seq })),
    }, wrote('importLinks', 'written', part.length));
  }
  const kinds = Object.keys(SEQUENCE_NAMES) as (keyof typeof SEQUENCE_NAMES)[];
  steps.step('raiseSequences', {
    rows: kinds.map((k) => ({ name: SEQUENCE_NAMES[k], value: floor[k] })),
  }, wrote('raiseSequences', 'raised', kinds.length));
  const records = steps.send(tx);
  // Awaited below; this only keeps a throw before then from leaving its failure unhandled.
  records.catch(() => undefined);

  // The services' setlists after the import, and the aggregates' steps for them. One the target
  // did not hold has exactly the snapshot's links, in setlist order (importLinks wrote each, or the
  // import failed); `after` holds those it did, as read after the records.
  const imported = new Map<number, Snapshot['links']>();
  for (const l of snapshot.links) {
    const list = imported.get(l.serviceId);
    if (list) list.push(l);
    else imported.set(l.serviceId, [l]);
  }
  const importedState = (v: Snapshot['services'][number]): SetlistState => ({
    songIds: (imported.get(v.id) ?? []).sort((a, b) => a.position - b.position || a.seq - b.seq).map((l) => l.songId),
    serviceType: v.serviceType,
    date: v.date,
  });
  const aggregates = (after: Map<number, LockedService>) => {
    const transitions: SetlistTransition[] = snapshot.services.map((v) => ({
      serviceId: v.id,
      before: before.has(v.id) ? stateOf(before.get(v.id)!) : null,
      after: before.has(v.id) ? stateOf(after.get(v.id)!) : importedState(v),
    }));
    // The periods of every date before and after are recomputed once from their links (through
    // the performed_in_date index), below: a delta per song and period would seek that song's
    // other links there, once per row, in a transaction holding a part's worth of new links.
    const plan = maintain(unordered(), { effects: { transitions }, zone: deps.zone, artists: artistsIn(joiningIds), periods: false });
    return { plan, transitions };
  };
  // A first import (no service held before) knows every setlist after it: its aggregates' steps
  // are worked out while the server writes the records (a 1m-history part: 1.7-2.8 s of this
  // process's time, which the server waited through). The driver writes the records' messages
  // once this turn's promises have run: the work waits for the next turn of the event loop.
  let early: ReturnType<typeof aggregates> | null = null;
  if (before.size === 0) {
    await new Promise((resolve) => setImmediate(resolve));
    early = aggregates(new Map());
  }
  // Its failure is thrown here (the aggregates' work above is then thrown away).
  await records;
  // A block of link seqs this process holds may lie below the seqs the snapshot brought.
  deps.seqs.discard();
  // One the target held is read again (MERGE kept its links beside the imported ones).
  const { plan, transitions } = early ?? aggregates(await readServices(tx, serviceIds.filter((id) => before.has(id))));
  await plan.send(tx);
  const dates = transitions.flatMap((t) => [t.before, t.after].flatMap((s) => (s ? [s.date] : [])));
  await recomputePeriods(tx, periodsOfDates(dates.sort((a, b) => a - b), deps.zone), deps.zone);
  return snapshotCounts(snapshot);
}

/**
 * Create a catalogue batch (./types.ts Store.importCatalogue) in the caller's one transaction:
 * the services first (the Service sequence), then the songs its setlists name are locked
 * (ascending: a missing one fails the batch), then the new songs (the Song sequence, their
 * artists); then the links with reserved seqs and the aggregates, as any setlist write.
 */
export async function importCatalogue(tx: Tx, deps: SetlistDeps, batch: CatalogueBatch): Promise<ImportedCatalogue> {
  for (const { songIds } of batch.services) checkSetlist(songIds);
  const plan = new WritePlan();
  for (const { service } of batch.services) {
    plan.locking('services', 'createService', { date: service.date, serviceType: service.serviceType });
  }
  plan.lockSongs(
    batch.services.flatMap((v) => v.songIds),
    new CatalogueError('a setlist names a song that does not exist'),
  );
  // Each new song's entries count for its artists' spellings as it is made (createSong).
  for (const input of batch.songs) plan.locking('artists', 'createSong', createSongParams(input));
  const rows = await plan.send(tx);
  const services: ServiceRecord[] = rows.slice(0, batch.services.length).map((r) => toService(r[0]));
  const songs: SongRecord[] = rows.slice(rows.length - batch.songs.length).map((r) => toSong(r[0]));

  const transitions: SetlistTransition[] = [];
  const seqs = await deps.seqs.take(batch.services.reduce((n, v) => n + v.songIds.length, 0));
  let next = 0;
  const created: { serviceId: number; songId: number; position: number; seq: number }[] = [];
  batch.services.forEach(({ songIds }, i) => {
    const v = services[i];
    transitions.push({ serviceId: v.id, before: null, after: { songIds, serviceType: v.serviceType, date: v.date } });
    songIds.forEach((songId, k) => created.push({ serviceId: v.id, songId, position: k + 1, seq: seqs[next++] }));
  });
  if (created.length > 0) {
    plan.onSongs(
      created.map((c) => c.songId),
      'writeLinks',
      { removed: [], placed: [], created },
      wrote('writeLinks', 'created', created.length),
    );
  }
  maintain(plan, { effects: { transitions }, zone: deps.zone });
  await plan.send(tx);
  return { songs, services };
}
