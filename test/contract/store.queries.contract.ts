/**
 * The list-query part of the store contract (paging, counts, filters, sort orders, search and
 * keyset cursors), run by test/contract/store.contract.test.ts against every adapter.
 */
import type { ServiceType } from '../../src/generated/graphql';
import type { Page, Paged, ServiceFilter, ServiceQuery, ServiceRecord, Snapshot, SongRecord, Store } from '../../src/store/types';
import { expectSlotFree } from '../../src/store/types';

const DAY = 86_400_000;
const idsOf = (records: readonly { id: number }[]) => records.map((r) => r.id);

/** A page as the contract defines it, cut from a whole list. */
const cut = <T>(list: T[], page: Page): Paged<T> => ({
  items: list.slice(page.offset ?? 0, page.limit === undefined ? undefined : (page.offset ?? 0) + page.limit),
  totalCount: list.length,
});

/**
 * The oracle of the relation pages: read from the store's snapshot (its raw records and links),
 * not from any relation statement or maintained count.
 */
function performances(snapshot: Snapshot, songId: number, query: ServiceQuery = {}): ServiceRecord[] {
  const linked = new Set(snapshot.links.filter((l) => l.songId === songId).map((l) => l.serviceId));
  const way = query.sort === 'DATE_DESC' ? -1 : 1;
  return snapshot.services
    .filter((v) => linked.has(v.id) && (!query.serviceTypes || query.serviceTypes.includes(v.serviceType)))
    .sort((a, b) => way * (a.date - b.date || a.id - b.id));
}
function setlistOf(snapshot: Snapshot, serviceId: number): SongRecord[] {
  const song = new Map(snapshot.songs.map((x) => [x.id, x]));
  return snapshot.links
    .filter((l) => l.serviceId === serviceId)
    .sort((a, b) => a.position - b.position || a.seq - b.seq)
    .map((l) => song.get(l.songId)!);
}

const RELATION_PAGES: Page[] = [{ limit: 20 }, { limit: 7, offset: 13 }, { offset: 50 }, { limit: 1 }, { limit: 1, offset: 1 }, {}, { limit: 5, offset: 500 }];
const RELATION_FILTERS: ServiceFilter[] = [{}, { serviceTypes: ['WED'] }, { serviceTypes: ['SUN_PM', 'SUN_AM'] }, { serviceTypes: ['WED', 'WED'] }, { serviceTypes: [] }];

export function queryContract(getStore: () => Store) {
  describe('list queries in the store', () => {
    let store: Store;
    let songs: SongRecord[];
    let services: ServiceRecord[];
    beforeEach(async () => {
      store = getStore();
      songs = [];
      for (const [name, artists] of [
        ['Alas! And Did My Savior Bleed?', ['Isaac Watts']],
        ['Ngợi Khen Danh Ngài', ['Thánh Ca']],
        ['What a Beautiful Name', ['Hillsong Worship']],
        ['Cornerstone', ['Hillsong Worship', 'Edward Mote']],
        ['amazing love', []],
        ['Be Thou My Vision', ['Traditional']],
      ] as const) {
        songs.push(await store.createSong({ name, artists: [...artists] }));
      }
      services = [];
      const types = ['SUN_AM', 'WED', 'SUN_PM', 'SUN_AM', 'WED'] as const;
      for (let i = 0; i < types.length; i++) {
        // Two services share a date: id breaks the tie.
        services.push(expectSlotFree(await store.createService({ date: (i === 4 ? 3 : i) * DAY, serviceType: types[i] })));
      }
    });

    it('pages songs with LIMIT/OFFSET and counts the whole list', async () => {
      const page = await store.listSongs({}, { limit: 2, offset: 1 });
      expect(idsOf(page.items)).toEqual(idsOf(songs.slice(1, 3)));
      expect(page.totalCount).toBe(6);
      expect((await store.listSongs({}, { offset: 5 })).items).toEqual([songs[5]]);
      expect(await store.listSongs({}, { offset: 50 })).toEqual({ items: [], totalCount: 6 });
    });

    it('keeps the count in step with creates and deletes', async () => {
      await store.deleteSong(songs[0].id);
      expect((await store.listSongs({}, { limit: 1 })).totalCount).toBe(5);
      await store.deleteService(services[0].id);
      await store.updateService(services[1].id, { serviceType: 'SUN_AM' });
      expect((await store.listServices({ serviceTypes: ['SUN_AM'] }, {})).totalCount).toBe(2);
      expect((await store.listServices({}, { limit: 1 })).totalCount).toBe(4);
    });

    it('sorts songs by name (code point order) and id, both ways', async () => {
      const byName = [...songs].sort((a, b) => (a.name < b.name ? -1 : 1));
      expect(idsOf((await store.listSongs({ sort: 'NAME_ASC' }, {})).items)).toEqual(idsOf(byName));
      expect(idsOf((await store.listSongs({ sort: 'NAME_DESC' }, {})).items)).toEqual(idsOf(byName).reverse());
      expect(idsOf((await store.listSongs({ sort: 'ID_DESC' }, { limit: 2 })).items)).toEqual([songs[5].id, songs[4].id]);
    });

    it('filters services by type and sorts by date both ways, id breaking ties', async () => {
      const [a, b, c, d, e] = idsOf(services);
      expect(idsOf((await store.listServices({}, {})).items)).toEqual([a, b, c, d, e]);
      expect(idsOf((await store.listServices({ sort: 'DATE_DESC' }, {})).items)).toEqual([e, d, c, b, a]);
      const wedOrAm = await store.listServices({ serviceTypes: ['WED', 'SUN_AM'] }, { limit: 3 });
      expect(idsOf(wedOrAm.items)).toEqual([a, b, d]);
      expect(wedOrAm.totalCount).toBe(4);
      const inRange = await store.servicesInRange({ min: DAY, max: 3 * DAY }, { serviceTypes: ['WED'] }, { limit: 1, offset: 1 });
      expect(inRange).toEqual({ items: [services[4]], totalCount: 2 });
    });

    it('pages byArtist with its count', async () => {
      const page = await store.songsByArtistKey('hillsong worship', { limit: 1, offset: 1 });
      expect(page).toEqual({ items: [songs[3]], totalCount: 2 });
    });

    it('pages relations per parent in one call, with per-parent totals', async () => {
      const [v1, v2, v3] = services;
      await store.replaceSetlist(v1.id, idsOf(songs.slice(0, 4)));
      await store.replaceSetlist(v2.id, idsOf(songs.slice(2, 3)));
      const pages = await store.setlistsForServices([v1.id, v2.id, v3.id], { limit: 2, offset: 1 });
      expect(pages.map((p) => idsOf(p.items))).toEqual([idsOf(songs.slice(1, 3)), [], []]);
      expect(pages.map((p) => p.totalCount)).toEqual([4, 1, 0]);
      const performed = await store.servicesForSongs([songs[2].id, songs[5].id], { serviceTypes: ['WED'] }, { limit: 5 });
      expect(performed).toEqual([{ items: [v2], totalCount: 1 }, { items: [], totalCount: 0 }]);
      const all = await store.servicesForSongs([songs[2].id], {}, { limit: 1, offset: 1 });
      expect(all).toEqual([{ items: [v2], totalCount: 2 }]);
      // No limit is the whole list; the largest offset the API lets through (a GraphQL Int) plus
      // a limit reaches past the 32-bit list indices Cypher allows, and answers an empty page.
      expect((await store.setlistsForServices([v1.id])).map((p) => idsOf(p.items))).toEqual([idsOf(songs.slice(0, 4))]);
      const far = { limit: 1000, offset: 2 ** 31 - 1 };
      expect(await store.setlistsForServices([v1.id], far)).toEqual([{ items: [], totalCount: 4 }]);
      expect(await store.servicesForSongs([songs[2].id], {}, far)).toEqual([{ items: [], totalCount: 2 }]);
    });

    it('reads services with a page of their setlists together, as the two reads answer them apart', async () => {
      const [v1, v2] = services;
      await store.replaceSetlist(v1.id, idsOf(songs.slice(0, 4)));
      const ids = [v2.id, 2_000_000, v1.id];
      for (const page of [undefined, { limit: 2, offset: 1 }, { limit: 1000, offset: 2 ** 31 - 1 }]) {
        const together = await store.servicesWithSetlists(ids, page);
        const records = await store.servicesByIds(ids);
        const setlists = await store.setlistsForServices(ids, page);
        expect(together).toEqual(records.map((service, i) => ({ service, setlist: setlists[i] })));
      }
      expect((await store.servicesWithSetlists([v1.id], { limit: 2, offset: 1 }))[0]).toEqual({
        service: v1,
        setlist: { items: songs.slice(1, 3), totalCount: 4 },
      });
      expect(await store.servicesWithSetlists([])).toEqual([]);
    });

    describe('relation pages of a parent with many links, alone and in a batch', () => {
      let popular: SongRecord;
      let quiet: SongRecord;
      let unsung: SongRecord;
      let big: ServiceRecord;
      let pairs: [ServiceRecord, ServiceRecord][];
      const MISSING = 2_000_000;

      beforeEach(async () => {
        const made = await store.importCatalogue({
          songs: [
            { name: 'Popular', artists: [] },
            { name: 'Quiet', artists: [] },
            { name: 'Unsung', artists: [] },
            ...Array.from({ length: 40 }, (_, i) => ({ name: `Filler ${i}`, artists: [] })),
          ],
          services: [],
        });
        [popular, quiet, unsung] = made.songs;
        const filler = made.songs.slice(3);
        // 90 services, later ids on earlier dates; each date holds three services, one of each type,
        // the two Sunday ones first (a tie on the date that the id breaks: one service per date and
        // type, so a tie within one type cannot happen). The popular song opens the first of each
        // pair and sits mid-setlist in the second, so an order by setlist ends before the id (the
        // order of the analytics index) would put them the wrong way round.
        const services = Array.from({ length: 90 }, (_, k) => {
          const group = Math.floor(k / 3);
          const sundays: ServiceType[] = group % 4 === 3 ? ['SUN_PM', 'SUN_AM'] : ['SUN_AM', 'SUN_PM'];
          const serviceType: ServiceType = k % 3 === 2 ? 'WED' : sundays[k % 3];
          const songIds =
            k % 3 === 2 && group % 5 === 0 ? [filler[0].id] : k % 3 === 1 ? [filler[0].id, popular.id, filler[1].id] : [popular.id, filler[2].id];
          if (k === 5 || k === 40) songIds.push(quiet.id);
          return { service: { date: (40 - group) * DAY, serviceType }, songIds };
        });
        // One service with a long setlist.
        services.push({ service: { date: 50 * DAY, serviceType: 'SUN_PM' }, songIds: idsOf(filler) });
        const created = (await store.importCatalogue({ songs: [], services })).services;
        big = created[90];
        pairs = Array.from({ length: 30 }, (_, g) => [created[3 * g], created[3 * g + 1]]);
      });

      const checkSongPages = async () => {
        const snapshot = await store.exportSnapshot();
        const batch = [quiet.id, popular.id, unsung.id, MISSING, popular.id];
        for (const filter of RELATION_FILTERS) {
          for (const sort of [undefined, 'DATE_ASC', 'DATE_DESC'] as const) {
            const query: ServiceQuery = sort ? { ...filter, sort } : filter;
            for (const page of RELATION_PAGES) {
              const want = (id: number) => cut(performances(snapshot, id, query), page);
              const where = JSON.stringify({ query, page });
              expect([where, await store.servicesForSongs([popular.id], query, page)]).toEqual([where, [want(popular.id)]]);
              expect([where, await store.servicesForSongs(batch, query, page)]).toEqual([where, batch.map(want)]);
            }
          }
        }
      };

      it('pages a song\'s services per parent in (date, id) order either way, with totals, for one song and for many', async () => {
        expect(performances(await store.exportSnapshot(), popular.id)).toHaveLength(84);
        await checkSongPages();
        // Ties on a date go by service id, whatever the song's place in the setlists.
        const [first, second] = pairs[29];
        expect(idsOf((await store.servicesForSongs([popular.id], {}, { limit: 2 }))[0].items)).toEqual([first.id, second.id]);
        expect(idsOf((await store.servicesForSongs([popular.id, quiet.id], { serviceTypes: ['SUN_AM', 'SUN_PM'] }, { limit: 1, offset: 1 }))[0].items)).toEqual([second.id]);
        // Most recent first: the latest date, its tie by the higher service id first.
        const [older, newer] = pairs[0];
        expect(idsOf((await store.servicesForSongs([popular.id], { sort: 'DATE_DESC' }, { limit: 2 }))[0].items)).toEqual([newer.id, older.id]);
        expect(idsOf((await store.servicesForSongs([quiet.id, popular.id], { serviceTypes: ['SUN_AM', 'SUN_PM'], sort: 'DATE_DESC' }, { limit: 1, offset: 1 }))[1].items)).toEqual([older.id]);
      });

      it('pages setlists per parent in setlist order, with totals, for one service and for many', async () => {
        const snapshot = await store.exportSnapshot();
        const [first] = pairs[0];
        const batch = [first.id, big.id, MISSING, pairs[1][1].id, big.id];
        for (const page of [...RELATION_PAGES, { limit: 3, offset: 39 }]) {
          const want = (id: number) => cut(setlistOf(snapshot, id), page);
          expect(await store.setlistsForServices([big.id], page)).toEqual([want(big.id)]);
          expect(await store.setlistsForServices(batch, page)).toEqual(batch.map(want));
        }
        expect((await store.setlistsForServices([big.id], { limit: 2, offset: 38 }))[0].totalCount).toBe(40);
      });

      it('keeps per-parent pages and totals in step with every write that moves a link', async () => {
        const [a, b] = pairs[10];
        await store.unlinkSong(a.id, popular.id);
        await store.updateService(b.id, { serviceType: 'WED' });
        await store.updateService(pairs[3][0].id, { date: 100 * DAY });
        await store.deleteService(pairs[20][0].id);
        await store.replaceSetlist(pairs[21][1].id, [quiet.id]);
        await store.linkSong(big.id, popular.id, 1);
        await store.linkSong(pairs[22][0].id, quiet.id);
        await store.deleteSong(quiet.id);
        expect(performances(await store.exportSnapshot(), popular.id)).toHaveLength(82);
        await checkSongPages();
        const snapshot = await store.exportSnapshot();
        expect(await store.setlistsForServices([big.id, pairs[21][1].id], { limit: 2 })).toEqual([
          cut(setlistOf(snapshot, big.id), { limit: 2 }),
          { items: [], totalCount: 0 },
        ]);
      });

      it('answers an empty batch with no pages', async () => {
        expect(await store.servicesForSongs([], {}, { limit: 5 })).toEqual([]);
        expect(await store.setlistsForServices([], { limit: 5 })).toEqual([]);
      });
    });

    it.each([
      ['Alas and did', 0],
      ['alas! AND did', 0],
      ['ngoi khen', 1],
      ['NGỢI', 1],
      ['hillsong', 2],
      ['savi', 0],
      ['Beautiful hillsong', 2],
    ])('search %p finds what it should, ignoring case, accents and punctuation', async (q, first) => {
      const found = await store.listSongs({ search: q }, {});
      expect(found.items.map((s) => s.id)).toContain(songs[first].id);
      expect(found.totalCount).toBe(found.items.length);
      for (const s of found.items) expect(s).toEqual(songs.find((x) => x.id === s.id));
    });

    it('search: no match, syntax-looking input and paging', async () => {
      expect(await store.listSongs({ search: 'zzzz' }, {})).toEqual({ items: [], totalCount: 0 });
      expect(await store.listSongs({ search: '"*(:^' }, {})).toEqual({ items: [], totalCount: 0 });
      expect((await store.listSongs({ search: 'NEAR( OR "alas' }, {})).totalCount).toBe(0);
      const hill = await store.listSongs({ search: 'hillsong' }, { limit: 1, offset: 1 });
      expect(hill.totalCount).toBe(2);
      expect(hill.items).toHaveLength(1);
    });

    it('search follows updates and deletes in the same transaction', async () => {
      await store.updateSong(songs[4].id, { name: 'Reckless Love' });
      expect(idsOf((await store.listSongs({ search: 'reckless' }, {})).items)).toEqual([songs[4].id]);
      expect((await store.listSongs({ search: 'amazing' }, {})).totalCount).toBe(0);
      await store.deleteSong(songs[4].id);
      expect((await store.listSongs({ search: 'reckless' }, {})).totalCount).toBe(0);
    });

    it('keyset pages walk every order exactly once', async () => {
      const orders = ['ID_ASC', 'ID_DESC', 'NAME_ASC', 'NAME_DESC'] as const;
      for (const sort of orders) {
        const whole = idsOf((await store.listSongs({ sort }, {})).items);
        const seen: number[] = [];
        let after: { key: string | number; id: number } | undefined;
        for (;;) {
          const page = await store.songsAfter(sort, { first: 4, after });
          expect(page.totalCount).toBe(6);
          seen.push(...idsOf(page.items));
          if (!page.hasNextPage) break;
          const last = page.items.at(-1)!;
          after = { key: sort.startsWith('NAME') ? last.name : last.id, id: last.id };
        }
        expect(seen).toEqual(whole);
      }
      for (const sort of ['DATE_ASC', 'DATE_DESC'] as const) {
        const whole = idsOf((await store.listServices({ sort, serviceTypes: ['SUN_AM', 'WED'] }, {})).items);
        const first = await store.servicesAfter({ sort, serviceTypes: ['SUN_AM', 'WED'] }, { first: 2 });
        const last = first.items[1];
        const rest = await store.servicesAfter({ sort, serviceTypes: ['SUN_AM', 'WED'] }, { first: 5, after: { key: last.date, id: last.id } });
        expect([...idsOf(first.items), ...idsOf(rest.items)]).toEqual(whole);
        expect([first.hasNextPage, rest.hasNextPage, rest.totalCount]).toEqual([true, false, 4]);
      }
    });
  });
}
