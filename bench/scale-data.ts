import type { ServiceType } from '../src/generated/graphql';
import type { Snapshot } from '../src/store/types';
import { prng, WORDS } from './seed';

/** The two store sizes of the scale scenario (the numbers); the small one is 1/100 of the large. */
export const SIZES = {
  small: { songs: 1_000, services: 200, songsPerService: 6, popularServices: 30 },
  large: { songs: 100_000, services: 20_000, songsPerService: 6, popularServices: 3_000 },
} as const;
export type SizeName = keyof typeof SIZES;

const DAY = 86_400_000;
/** Sunday 7 January 1900: week 0. Three services a week (SUN_AM, SUN_PM, WED) in both stores, so a
 * four-week window holds the same 12 services whatever the store's size. */
const FIRST_SUNDAY = Date.UTC(1900, 0, 7);
const SLOTS: { type: ServiceType; offset: number }[] = [
  { type: 'SUN_AM', offset: 10 * 3_600_000 },
  { type: 'SUN_PM', offset: 18 * 3_600_000 },
  { type: 'WED', offset: 3 * DAY + 19 * 3_600_000 },
];
export const RANGE_WEEKS = { first: 20, last: 23 } as const;

export const SEARCH = { q: 'savior bleed', expected: 10 };
/** The byArtist request's artist: on exactly 15 songs in each store (other artists: ~13 songs each). */
export const ARTIST = 'Bench Choir';
const ARTIST_SONGS = 15;
/** The withSong request's song is performed in exactly this many services in each store. */
const BENCH_SONG_SERVICES = 8;
/** The popular song's page (20 services) must not cost its performances: tens here, thousands there. */
export const POPULAR_PAGE = 20;

export interface ScaleInfo {
  size: SizeName;
  songs: number;
  services: number;
  links: number;
  /** The song the withSong request asks for, and in how many services it was performed. */
  busiestSong: { id: number; services: number };
  /** A song sung in `popularServices` services (SIZES), whose first page is asked for. */
  popularSong: { id: number; services: number };
  /** YYYY-MM-DD bounds of the four-week window. */
  range: { from: string; to: string };
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A deterministic snapshot of the given size: uniform random setlists of distinct songs. */
export function scaleSnapshot(size: SizeName): { snapshot: Snapshot; info: ScaleInfo } {
  const spec = SIZES[size];
  const rand = prng(20240605);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const artistCount = spec.songs / 10;
  const songs = Array.from({ length: spec.songs }, (_, i) => {
    const id = i + 1;
    const special = id % (spec.songs / SEARCH.expected) === 0;
    const name = special ? `Alas! And Did My Savior Bleed? ${id}` : `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${id}`;
    const artists = [`Artist ${Math.floor(rand() * artistCount)}`];
    if (rand() < 0.3) artists.push(`Artist ${Math.floor(rand() * artistCount)}`);
    if (id % Math.floor(spec.songs / ARTIST_SONGS) === 0 && id / Math.floor(spec.songs / ARTIST_SONGS) <= ARTIST_SONGS) artists.push(ARTIST);
    return { id, name, artists: [...new Set(artists)] };
  });
  const services = Array.from({ length: spec.services }, (_, i) => {
    const slot = SLOTS[i % 3];
    return { id: i + 1, date: FIRST_SUNDAY + Math.floor(i / 3) * 7 * DAY + slot.offset, serviceType: slot.type };
  });
  const links: Snapshot['links'] = [];
  const performances = new Map<number, number>();
  const benchSong = spec.songs / 2 + 1;
  const popularSong = spec.songs / 2 + 2;
  const every = Math.floor(spec.services / BENCH_SONG_SERVICES);
  // Spread over the whole history, in services of every type, so a page reads across all of it.
  const popularEvery = spec.services / spec.popularServices;
  for (const v of services) {
    const setlist = new Set<number>();
    if (v.id % every === 0 && v.id / every <= BENCH_SONG_SERVICES) setlist.add(benchSong);
    if (Math.floor((v.id - 1) / popularEvery) !== Math.floor(v.id / popularEvery)) setlist.add(popularSong);
    while (setlist.size < spec.songsPerService) {
      const songId = 1 + Math.floor(rand() * spec.songs);
      if (songId !== benchSong && songId !== popularSong) setlist.add(songId);
    }
    let position = 0;
    for (const songId of setlist) {
      links.push({ serviceId: v.id, songId, position: ++position, seq: links.length + 1 });
      performances.set(songId, (performances.get(songId) ?? 0) + 1);
    }
  }
  const [busiest, count] = [benchSong, performances.get(benchSong) ?? 0];
  const snapshot: Snapshot = {
    format: 'worship-records-snapshot',
    version: 1,
    songs,
    services,
    links,
    users: [],
    sequences: { song: spec.songs, service: spec.services, user: 0, link: links.length },
  };
  const from = FIRST_SUNDAY + RANGE_WEEKS.first * 7 * DAY;
  const to = FIRST_SUNDAY + RANGE_WEEKS.last * 7 * DAY + 6 * DAY;
  return {
    snapshot,
    info: {
      size,
      songs: songs.length,
      services: services.length,
      links: links.length,
      busiestSong: { id: busiest, services: count },
      popularSong: { id: popularSong, services: performances.get(popularSong) ?? 0 },
      range: { from: isoDay(from), to: isoDay(to) },
    },
  };
}
