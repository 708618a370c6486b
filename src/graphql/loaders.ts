import DataLoader from 'dataloader';
import type { AnalyticsWindow } from '../store/analytics-types';
import type { Page, ServiceQuery, ServiceRecord, SongRecord, Store, UserRecord } from '../store/types';
import type { SongLicensing } from '../domain/licensing';

/**
 * Loaders by the arguments they were made for: every `load` with the same arguments while one
 * GraphQL level resolves becomes one store call. Lives as long as its request, and holds one
 * loader per distinct argument set the query spells out, so it is bounded by the query's size.
 */
function byArguments<A, V>(make: (args: A) => DataLoader<number, V>) {
  const loaders = new Map<string, DataLoader<number, V>>();
  return (args: A): DataLoader<number, V> => {
    const key = JSON.stringify(args);
    let loader = loaders.get(key);
    if (!loader) loaders.set(key, (loader = make(args)));
    return loader;
  };
}

/**
 * Per-request batching: a query over N services with their songs costs the same number of store
 * calls for any N, and paged relation fields (`songs(limit: 3)`) are paged per parent by the
 * store in that same call. Made fresh for each request so that no cached record outlives it, and
 * each on first use: a request reads one or two kinds of record, not all of them.
 */
export function createLoaders(store: Store) {
  let song: DataLoader<number, SongRecord | null> | undefined;
  let licensing: DataLoader<number, SongLicensing | null> | undefined;
  let service: DataLoader<number, ServiceRecord | null> | undefined;
  let user: DataLoader<number, UserRecord | null> | undefined;
  let setlist: DataLoader<number, SongRecord[]> | undefined;
  let setlistPage: ReturnType<typeof setlistPages> | undefined;
  let serviceWithSetlist: ((page: Page) => DataLoader<number, ServiceRecord | null>) | undefined;
  let usage: ReturnType<typeof usages> | undefined;
  let performancePage: ReturnType<typeof performancePages> | undefined;
  let rhythm: ReturnType<typeof rhythms> | undefined;
  return {
    get song() {
      return (song ??= new DataLoader((ids: readonly number[]) => store.songsByIds(ids)));
    },
    /** Song.ccliNumber, Song.copyright and the same on SongUsage: every song of a level in one call. */
    get licensing() {
      return (licensing ??= new DataLoader((ids: readonly number[]) => store.licensingOfSongs(ids)));
    },
    get service() {
      return (service ??= new DataLoader((ids: readonly number[]) => store.servicesByIds(ids)));
    },
    get user() {
      return (user ??= new DataLoader((ids: readonly number[]) => store.usersByIds(ids)));
    },
    /** The whole setlist of a service, in setlist order (what a setlist write answers). */
    get setlist() {
      return (setlist ??= new DataLoader(async (serviceIds: readonly number[]) =>
        (await store.setlistsForServices(serviceIds)).map((p) => p.items),
      ));
    },
    /** A page of each service's setlist. */
    get setlistPage() {
      return (setlistPage ??= setlistPages(store));
    },
    /**
     * Services read with a page of their setlists in one store call (Query.service when the query
     * asks for `songs`: src/graphql/lookahead.ts): the pages prime setlistPage, so Service.songs
     * finds its page there instead of calling the store again.
     */
    get serviceWithSetlist() {
      return (serviceWithSetlist ??= byArguments(
        (page: Page) =>
          new DataLoader(async (ids: readonly number[]) => {
            const rows = await store.servicesWithSetlists(ids, page);
            const pages = this.setlistPage(page);
            rows.forEach((r, i) => pages.prime(ids[i], r.setlist));
            return rows.map((r) => r.service);
          }),
      ));
    },
    /** Song.usage in one window: every song of a level in one store call per distinct window. */
    get usage() {
      return (usage ??= usages(store));
    },
    /** A page of the services each song was performed in, by date either way. */
    get performancePage() {
      return (performancePage ??= performancePages(store));
    },
    /** Song.rotation: every song of a level in one store call per distinct horizon. */
    get rhythm() {
      return (rhythm ??= rhythms(store));
    },
  };
}

const setlistPages = (store: Store) =>
  byArguments((page: Page) => new DataLoader((ids: readonly number[]) => store.setlistsForServices(ids, page)));
const usages = (store: Store) =>
  byArguments((window: AnalyticsWindow) => new DataLoader((ids: readonly number[]) => store.usageOfSongs(ids, window)));
const rhythms = (store: Store) =>
  byArguments((range: { min: number; max: number }) => new DataLoader((ids: readonly number[]) => store.songRhythms(ids, range)));
const performancePages = (store: Store) =>
  byArguments(
    ({ query, page }: { query: ServiceQuery; page: Page }) =>
      new DataLoader((ids: readonly number[]) => store.servicesForSongs(ids, query, page)),
  );

export type Loaders = ReturnType<typeof createLoaders>;
