/**
 * Helpers of the Neo4j benches (bench/neo4j.ts, bench/analytics.ts) whose logic is subtle enough
 * to pin without a server: how a history too large for one transaction is cut into imports, and
 * the check that a plain statement gives the store's answer before it is timed.
 */
import { HISTORIES, sameAnswer, snapshotOf } from '../../bench/analytics';
import { benchStores, importParts } from '../../bench/neo4j';
import { checkSnapshot } from '../../src/store/snapshot';

describe('importParts', () => {
  const snapshot = snapshotOf(HISTORIES[0]); // 10y: 1,000 songs, 1,560 services, 9,360 links

  test('cuts whole setlists into valid snapshots that together hold exactly the original', () => {
    const parts = [...importParts(snapshot, 3000)];
    expect(parts.length).toBe(4);
    // Every song in the first part, so never-sung songs are imported too; they count toward its size.
    expect(parts[0].songs).toEqual(snapshot.songs);
    expect(parts[0].links.length).toBeLessThan(2000 + 6);
    for (const p of parts) {
      // importSnapshot refuses a link naming a song or service the snapshot lacks.
      expect(() => checkSnapshot(p)).not.toThrow();
      expect(p.links.length).toBeLessThan(3000 + 6);
    }
    const services = parts.flatMap((p) => p.services.map((v) => v.id));
    expect(services).toEqual(snapshot.services.map((v) => v.id));
    const links = parts.flatMap((p) => p.links);
    expect(links).toEqual(snapshot.links);
    // A service and all its links travel together.
    for (const p of parts) {
      const ids = new Set(p.services.map((v) => v.id));
      expect(p.links.every((l) => ids.has(l.serviceId))).toBe(true);
    }
  });

  test("gives each part the licensing details of its own songs only (a part naming another's is refused)", () => {
    const licensing = [3, 500, 999].map((songId) => ({ songId, ccliNumber: String(1000 + songId), copyright: null }));
    const parts = [...importParts({ ...snapshot, licensing }, 3000)];
    expect(parts[0].licensing).toEqual(licensing);
    for (const p of parts) {
      expect(() => checkSnapshot(p)).not.toThrow();
      const songs = new Set(p.songs.map((s) => s.id));
      expect(p.licensing!.every((l) => songs.has(l.songId))).toBe(true);
    }
    expect(parts.slice(1).some((p) => p.licensing!.length > 0)).toBe(true);
  });

  test('leaves a snapshot that fits one transaction whole', () => {
    expect([...importParts(snapshot, 10_360)]).toEqual([snapshot]);
    expect([...importParts(snapshot, 10_000)].length).toBe(2);
  });
});

describe('sameAnswer', () => {
  const usage = (times: number) => ({
    items: [
      {
        song: { id: 7 },
        timesSung: times,
        firstSung: 1,
        lastSung: 9,
        asOpener: 1,
        asCloser: 0,
        byServiceType: [{ serviceType: 'SUN_AM', timesSung: times, lastSung: 9 }],
      },
    ],
  });
  const row = { id: 7, times: 2, first: 1, last: 9, openers: 1, closers: 0, sunAm: 2, sunAmLast: 9, sunPm: 0, sunPmLast: null, wed: 0, wedLast: null };

  test('accepts the same rows, whatever the statement names its columns, and refuses a different count', () => {
    expect(() => sameAnswer('usage', 'usage', usage(2), [row])).not.toThrow();
    const sqlRow = { id: 7, times: 2, first: 1, last: 9, openers: 1, closers: 0, sun_am: 2, sun_am_last: 9, sun_pm: null, sun_pm_last: null, wed: null, wed_last: null };
    expect(() => sameAnswer('usage', 'usage', usage(2), [sqlRow])).not.toThrow();
    expect(() => sameAnswer('usage', 'usage', usage(3), [row])).toThrow(/differs from the store at row 0/);
  });

  test('refuses extra or missing rows, and compares a page with the plain answer\'s first rows', () => {
    expect(() => sameAnswer('usage', 'usage', usage(2), [row, { ...row, id: 8 }])).toThrow(/row 1/);
    expect(() => sameAnswer('usage', 'usage', usage(2), [row, { ...row, id: 8 }], 1)).not.toThrow();
    expect(() => sameAnswer('usage', 'usage', { items: [] }, [])).toThrow(/answered nothing/);
  });
});

describe('benchStores', () => {
  const saved = process.env.STORE;
  afterEach(() => {
    if (saved === undefined) delete process.env.STORE;
    else process.env.STORE = saved;
  });
  test('STORE=neo4j measures SQLite beside Neo4j; a typo is refused', () => {
    delete process.env.STORE;
    expect(benchStores()).toEqual(['sqlite']);
    process.env.STORE = 'neo4j';
    expect(benchStores()).toEqual(['sqlite', 'neo4j']);
    process.env.STORE = 'neo';
    expect(() => benchStores()).toThrow(/STORE must be sqlite or neo4j/);
  });
});
