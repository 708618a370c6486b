import { CCLI_NUMBER, COPYRIGHT_MAX_LENGTH, NO_LICENSING, type SongLicensing } from '../domain/licensing';
import { usernameKey } from './keys';
import type { Snapshot, SnapshotCounts, SnapshotLicensing } from './types';

export const SNAPSHOT_FORMAT = 'worship-records-snapshot' as const;
/** What exports write. Version 1 (before songs had licensing details) is still read. */
export const SNAPSHOT_VERSION = 2 as const;
const READABLE_VERSIONS: readonly number[] = [1, SNAPSHOT_VERSION];

export class SnapshotError extends Error {}

const maxOf = (values: number[]) => values.reduce((a, b) => Math.max(a, b), 0);

/**
 * The sequence values an import must leave behind: the snapshot's own high-water marks, but never
 * below an id it actually contains (a hand-edited snapshot could understate them).
 */
export function sequenceFloor(s: Snapshot): Snapshot['sequences'] {
  return {
    song: Math.max(s.sequences.song, maxOf(s.songs.map((r) => r.id))),
    service: Math.max(s.sequences.service, maxOf(s.services.map((r) => r.id))),
    user: Math.max(s.sequences.user, maxOf(s.users.map((r) => r.id))),
    link: Math.max(s.sequences.link, maxOf(s.links.map((r) => r.seq))),
  };
}

/**
 * A snapshot from what an adapter read, with `issued` the highest id each kind's sequence has
 * handed out (0 where none), raised to the ids actually present.
 */
export function assembleSnapshot(
  records: Pick<Snapshot, 'songs' | 'services' | 'links' | 'users'> & { licensing: SnapshotLicensing[] },
  issued: Partial<Snapshot['sequences']>,
): Snapshot {
  const draft: Snapshot = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    ...records,
    licensing: records.licensing.filter((l) => l.ccliNumber !== null || l.copyright !== null),
    sequences: { song: issued.song ?? 0, service: issued.service ?? 0, user: issued.user ?? 0, link: issued.link ?? 0 },
  };
  return { ...draft, sequences: sequenceFloor(draft) };
}

/** Each song's licensing details in a snapshot, by song id (songs without any are not in it). */
export function licensingBySong(s: Snapshot): Map<number, SongLicensing> {
  return new Map((s.licensing ?? []).map((l) => [l.songId, { ccliNumber: l.ccliNumber, copyright: l.copyright }]));
}

/** The details a store writes for a snapshot's song: none when the snapshot has none for it. */
export const licensingOf = (byId: Map<number, SongLicensing>, songId: number): SongLicensing => byId.get(songId) ?? NO_LICENSING;

export const snapshotCounts = (s: Snapshot): SnapshotCounts => ({
  songs: s.songs.length,
  services: s.services.length,
  links: s.links.length,
  users: s.users.length,
});

const isId = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 1;

function distinctIds(kind: string, ids: number[]): Set<number> {
  const seen = new Set<number>();
  for (const id of ids) {
    if (!isId(id)) throw new SnapshotError(`${kind} id ${String(id)} is not a positive integer`);
    if (seen.has(id)) throw new SnapshotError(`${kind} id ${id} appears twice`);
    seen.add(id);
  }
  return seen;
}

/**
 * Reject a snapshot that no store could hold as it is, before anything is written: an import
 * must never leave a half-copied or silently trimmed store behind.
 */
export function checkSnapshot(s: Snapshot): void {
  if (s?.format !== SNAPSHOT_FORMAT || !READABLE_VERSIONS.includes(s.version)) {
    throw new SnapshotError(`not a ${SNAPSHOT_FORMAT} document of version ${READABLE_VERSIONS.join(' or ')}`);
  }
  const songs = distinctIds('song', s.songs.map((r) => r.id));
  checkLicensing(s, songs);
  const services = distinctIds('service', s.services.map((r) => r.id));
  distinctIds('user', s.users.map((r) => r.id));
  distinctIds('link seq', s.links.map((r) => r.seq));

  const pairs = new Set<string>();
  for (const l of s.links) {
    if (!services.has(l.serviceId)) throw new SnapshotError(`link ${l.seq} names missing service ${l.serviceId}`);
    if (!songs.has(l.songId)) throw new SnapshotError(`link ${l.seq} names missing song ${l.songId}`);
    if (!isId(l.position)) throw new SnapshotError(`link ${l.seq} has position ${l.position}, not >= 1`);
    const pair = `${l.serviceId}/${l.songId}`;
    if (pairs.has(pair)) throw new SnapshotError(`song ${l.songId} is linked twice to service ${l.serviceId}`);
    pairs.add(pair);
  }

  const keys = new Set<string>();
  for (const u of s.users) {
    const key = usernameKey(u.username);
    if (keys.has(key)) throw new SnapshotError(`username '${u.username}' appears twice (ignoring case)`);
    keys.add(key);
    if (!Number.isSafeInteger(u.tokenVersion) || u.tokenVersion < 0) {
      throw new SnapshotError(`user ${u.id} has an invalid token version`);
    }
  }
  for (const r of s.services) {
    if (!Number.isSafeInteger(r.date)) throw new SnapshotError(`service ${r.id} has a non-integer date`);
  }
  for (const name of ['song', 'service', 'user', 'link'] as const) {
    const value = s.sequences?.[name];
    if (!Number.isSafeInteger(value) || value < 0) throw new SnapshotError(`sequence ${name} is missing or invalid`);
  }
}

/** Licensing entries name songs of the snapshot, once each, with values a store accepts. */
function checkLicensing(s: Snapshot, songs: Set<number>): void {
  if (s.licensing === undefined) {
    if (s.version === 1) return;
    throw new SnapshotError('licensing is missing');
  }
  if (!Array.isArray(s.licensing)) throw new SnapshotError('licensing is not a list');
  const seen = new Set<number>();
  for (const l of s.licensing) {
    if (!songs.has(l?.songId)) throw new SnapshotError(`licensing names missing song ${String(l?.songId)}`);
    if (seen.has(l.songId)) throw new SnapshotError(`licensing names song ${l.songId} twice`);
    seen.add(l.songId);
    if (l.ccliNumber !== null && !(typeof l.ccliNumber === 'string' && CCLI_NUMBER.test(l.ccliNumber))) {
      throw new SnapshotError(`song ${l.songId} has a CCLI number that is not 1 to 10 digits`);
    }
    if (l.copyright !== null && !(typeof l.copyright === 'string' && l.copyright.trim() !== '' && l.copyright.length <= COPYRIGHT_MAX_LENGTH)) {
      throw new SnapshotError(`song ${l.songId} has a copyright that is empty or longer than ${COPYRIGHT_MAX_LENGTH} characters`);
    }
  }
}

/**
 * The snapshot as consecutive snapshots of whole services (a setlist is never split), each with
 * the songs its links name (and their licensing details) and at most about `maxRecords` songs and
 * links; every song and user goes in the first (so never-sung songs are there too), which then
 * takes fewer services. Importing them in order leaves a store as importing the whole would:
 * imports write records by id (upserts) and move the maintained aggregates by what each part
 * changes. Used where one transaction cannot hold a whole snapshot: a Neo4j transaction's state
 * lives in the server's heap, capped by dbms.memory.transaction.total.max.
 */
export function* snapshotParts(snapshot: Snapshot, maxRecords: number): Generator<Snapshot> {
  if (snapshot.songs.length + snapshot.links.length <= maxRecords) {
    yield snapshot;
    return;
  }
  const linksOf = new Map<number, Snapshot['links']>();
  for (const l of snapshot.links) {
    const list = linksOf.get(l.serviceId);
    if (list) list.push(l);
    else linksOf.set(l.serviceId, [l]);
  }
  const songById = new Map(snapshot.songs.map((s) => [s.id, s]));
  const licensingOfSong = new Map((snapshot.licensing ?? []).map((l) => [l.songId, l]));
  let first = true;
  let services: Snapshot['services'] = [];
  let links: Snapshot['links'] = [];
  const part = (): Snapshot => {
    const songs = first ? snapshot.songs : [...new Set(links.map((l) => l.songId))].map((id) => songById.get(id)!);
    const licensing = first
      ? snapshot.licensing
      : snapshot.licensing && songs.flatMap((s) => (licensingOfSong.has(s.id) ? [licensingOfSong.get(s.id)!] : []));
    const p: Snapshot = { ...snapshot, songs, licensing, services, links, users: first ? snapshot.users : [] };
    first = false;
    services = [];
    links = [];
    return p;
  };
  for (const v of snapshot.services) {
    services.push(v);
    links.push(...(linksOf.get(v.id) ?? []));
    if ((first ? snapshot.songs.length : 0) + links.length >= maxRecords) yield part();
  }
  if (services.length > 0 || first) yield part();
}
