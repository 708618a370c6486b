import { DateTime } from 'luxon';
import type { ServiceType } from '../../src/generated/graphql';
import type { Store } from '../../src/store/types';
import { prng } from '../../bench/seed';
import { expectSlotFree } from '../../src/store/types';

const ARTISTS = ['Chris Tomlin', 'chris tomlin', 'CHRIS TOMLIN', 'Matt Redman', 'Hillsong', 'Charles Wesley', 'Isaac Watts', 'Fanny Crosby', ''];

export interface HistoryOptions {
  seed: number;
  songs: number;
  /** First Sunday, local date in `zone`. */
  start: string;
  weeks: number;
  zone: string;
  /** Songs (by index from the end) that are never sung. */
  unsung: number;
}

/**
 * Three services a week (Sunday 10:00 and 18:00, Wednesday 23:30 local time, which is the next
 * day in UTC for zones west of Greenwich), setlists of 0–6 songs drawn with a Zipf-like skew so a
 * few songs dominate, the last `unsung` songs never drawn, and about one service in 15 empty.
 */
export async function generateHistory(store: Store, opts: HistoryOptions): Promise<void> {
  const rand = prng(opts.seed);
  const songIds: number[] = [];
  for (let i = 0; i < opts.songs; i++) {
    const artists = [ARTISTS[Math.floor(rand() * ARTISTS.length)]];
    if (rand() < 0.2) artists.push(ARTISTS[Math.floor(rand() * ARTISTS.length)]);
    // Licensing details on some songs (not drawn from `rand`, so the histories stay as they were):
    // the reports read them with their rows, and each row must carry its own song's.
    const licensing = { ccliNumber: i % 3 === 0 ? String(7000000 + i) : undefined, copyright: i % 4 === 1 ? `${1900 + i} Example Music` : undefined };
    songIds.push((await store.createSong({ name: `Song ${String.fromCharCode(65 + (i % 26))}${i}`, artists, ...licensing })).id);
  }
  const singable = songIds.slice(0, songIds.length - opts.unsung);
  const weights = singable.map((_, i) => 1 / (i + 1) ** 1.1);
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const draw = () => {
    let r = rand() * totalWeight;
    for (let i = 0; i < weights.length; i++) if ((r -= weights[i]) <= 0) return singable[i];
    return singable[singable.length - 1];
  };
  const sunday = DateTime.fromISO(opts.start, { zone: opts.zone });
  const slots: [number, number, number, ServiceType][] = [
    [0, 10, 0, 'SUN_AM'],
    [0, 18, 0, 'SUN_PM'],
    [3, 23, 30, 'WED'],
  ];
  for (let w = 0; w < opts.weeks; w++) {
    for (const [days, hour, minute, serviceType] of slots) {
      const date = sunday.plus({ weeks: w, days }).set({ hour, minute }).toMillis();
      const service = expectSlotFree(await store.createService({ date, serviceType }));
      if (rand() < 1 / 15) continue;
      const size = 1 + Math.floor(rand() * 6);
      const picked = new Set<number>();
      while (picked.size < size) picked.add(draw());
      await store.replaceSetlist(service.id, [...picked]);
    }
  }
}
