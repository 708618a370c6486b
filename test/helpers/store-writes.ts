/**
 * The writes the Neo4j property suites draw (test/neo4j/neo4j.usage.test.ts, sequential;
 * test/neo4j/neo4j.concurrency.test.ts, concurrent), and how each reaches the Store API.
 */
import type { ServiceType } from '../../src/generated/graphql';
import type { Snapshot, Store } from '../../src/store/types';

export type StoreWrite =
  | { kind: 'link'; service: number; song: number; position?: number }
  | { kind: 'unlink'; service: number; song: number }
  | { kind: 'replace'; service: number; songs: number[] }
  | { kind: 'updateService'; service: number; date?: number; serviceType?: ServiceType }
  | { kind: 'deleteService'; service: number }
  | { kind: 'deleteSong'; song: number }
  | { kind: 'createService'; date: number; serviceType: ServiceType }
  /** Artists default to ['Amy']. */
  | { kind: 'createSong'; artists?: string[] }
  | { kind: 'updateSong'; song: number; artists: string[] }
  | { kind: 'importCatalogue'; songs: number[]; date: number; serviceType: ServiceType }
  | { kind: 'importSnapshot'; service: number; date: number; serviceType: ServiceType; songs: { id: number; artists: string[] }[] };

/**
 * A small snapshot over a service of the store: the service (its date and type as drawn) and the
 * songs (their artists as drawn), each linked to it at positions 1..n. Link seqs start at
 * `seqBase`, above any the store has issued (the import raises the link sequence to them), so
 * links stay ordered by (position, seq) without ties. Ids the store has issued only: a snapshot
 * bringing an id above a sequence would race a concurrent create for it.
 */
export function snapshotOf(o: Extract<StoreWrite, { kind: 'importSnapshot' }>, seqBase: number): Snapshot {
  return {
    format: 'worship-records-snapshot',
    version: 2,
    songs: [...o.songs].sort((a, b) => a.id - b.id).map((s) => ({ id: s.id, name: `s${s.id}`, artists: s.artists })),
    licensing: [],
    services: [{ id: o.service, date: o.date, serviceType: o.serviceType }],
    links: o.songs.map((s, i) => ({ serviceId: o.service, songId: s.id, position: i + 1, seq: seqBase + i })),
    users: [],
    sequences: { song: 0, service: 0, user: 0, link: 0 },
  };
}

/** Send one write through the Store API; `seqBase` is where an imported snapshot's link seqs start. */
export function applyWrite(store: Store, o: StoreWrite, seqBase = 1_000_000): Promise<unknown> {
  switch (o.kind) {
    case 'link':
      return store.linkSong(o.service, o.song, o.position);
    case 'unlink':
      return store.unlinkSong(o.service, o.song);
    case 'replace':
      return store.replaceSetlist(o.service, o.songs);
    case 'updateService':
      return store.updateService(o.service, { date: o.date, serviceType: o.serviceType });
    case 'deleteService':
      return store.deleteService(o.service);
    case 'deleteSong':
      return store.deleteSong(o.song);
    case 'createService':
      return store.createService({ date: o.date, serviceType: o.serviceType });
    case 'createSong':
      return store.createSong({ name: 'new', artists: o.artists ?? ['Amy'] });
    case 'updateSong':
      return store.updateSong(o.song, { artists: o.artists });
    case 'importCatalogue':
      return store.importCatalogue({
        songs: [{ name: 'imported', artists: ['Bea'] }],
        services: [{ service: { date: o.date, serviceType: o.serviceType }, songIds: o.songs }],
      });
    case 'importSnapshot':
      return store.importSnapshot(snapshotOf(o, seqBase));
  }
}
