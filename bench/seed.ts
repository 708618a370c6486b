import type { ServiceType } from '../src/generated/graphql';
import type { Store } from '../src/store/types';
import { expectSlotFree } from '../src/store/types';

export const SEED = { songs: 1000, services: 200, songsPerService: 5 } as const;

const DAY = 86_400_000;
/** Sunday 3 January 2021, 00:00 UTC: week 0 of the seeded calendar. */
const FIRST_SUNDAY = Date.UTC(2021, 0, 3);

/** The date window the byDate scenario asks for: weeks 40..64 (25 weeks, 2 services a week = 50). */
export const RANGE_WEEKS = { first: 40, last: 64 } as const;

/** Deterministic PRNG (mulberry32), so every run benchmarks the same data. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const WORDS = [
  'Amazing', 'Grace', 'Holy', 'Light', 'Shepherd', 'River', 'Glory', 'Mercy', 'King', 'Morning',
  'Praise', 'Spirit', 'Faithful', 'Refuge', 'Hope', 'Cross', 'Crown', 'Love', 'Peace', 'Rock',
];
const ARTISTS = Array.from({ length: 120 }, (_, i) => `Artist ${String.fromCharCode(65 + (i % 26))}${i}`);

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export interface SeedInfo {
  songs: number;
  services: number;
  links: number;
  songIds: number[];
  /** YYYY-MM-DD bounds for GET /services/byDate/between/:from/:to, and how many services they hold. */
  range: { from: string; to: string; expected: number };
  ms: number;
}

/**
 * 1,000 songs with 1-3 artists and 200 services (two each Sunday, morning and evening) with 5
 * distinct songs each, written through the Store API itself (each call its own transaction).
 */
export async function seed(store: Store): Promise<SeedInfo> {
  const started = Date.now();
  const rand = prng(20240605);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];

  const songIds: number[] = [];
  for (let i = 0; i < SEED.songs; i++) {
    const name = `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${i + 1}`;
    const artistCount = 1 + Math.floor(rand() * 3);
    const artists = new Set<string>();
    while (artists.size < artistCount) artists.add(pick(ARTISTS));
    songIds.push((await store.createSong({ name, artists: [...artists] })).id);
  }

  let links = 0;
  for (let i = 0; i < SEED.services; i++) {
    const week = Math.floor(i / 2);
    const morning = i % 2 === 0;
    const serviceType: ServiceType = morning ? 'SUN_AM' : 'SUN_PM';
    const date = FIRST_SUNDAY + week * 7 * DAY + (morning ? 10 : 18) * 3_600_000;
    const service = expectSlotFree(await store.createService({ date, serviceType }));
    const setlist = new Set<number>();
    while (setlist.size < SEED.songsPerService) setlist.add(pick(songIds));
    const outcome = await store.replaceSetlist(service.id, [...setlist]);
    if (outcome !== 'ok') throw new Error(`seeding setlist of service ${service.id}: ${outcome}`);
    links += setlist.size;
  }

  const from = FIRST_SUNDAY + RANGE_WEEKS.first * 7 * DAY;
  const to = FIRST_SUNDAY + RANGE_WEEKS.last * 7 * DAY + 6 * DAY; // the Saturday ending week `last`
  return {
    songs: SEED.songs,
    services: SEED.services,
    links,
    songIds,
    range: { from: isoDay(from), to: isoDay(to), expected: (RANGE_WEEKS.last - RANGE_WEEKS.first + 1) * 2 },
    ms: Date.now() - started,
  };
}
