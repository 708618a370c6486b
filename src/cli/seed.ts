/**
 * Loads a small, realistic demo data set into the configured store so a new user sees something
 * at once: 36 songs with their artists and a little over two years of services with setlists,
 * ending in the week before the day it is seeded (src/cli/seed-calendar.ts), enough history for
 * the analytics to say something: a few favourites, hymns that fell out of rotation, new songs
 * taken up at different times, one song never sung, a habitual opener and closer.
 * Deterministic given the seed day (the same songs, setlists and order every run; only the dates
 * move with the day) and only into an empty store, unless --force.
 *
 *   npm run seed                        # into ./data/songs.db (or SQLITE_PATH / STORE=neo4j)
 *   SEED_TODAY=2026-11-26 npm run seed  # as if seeded that day: 2024-09-01 to 2026-11-25
 */
import { loadEnvFile } from '../env-file';
import { loadConfig } from '../config';
import { createStore } from '../store';
import type { ServiceType } from '../generated/graphql';
import { firstSunday as firstSundayFor, seedDay, WEEKS } from './seed-calendar';
import { expectSlotFree } from '../store/types';

const SONGS: [string, string[]][] = [
  ['Amazing Grace', ['John Newton']],
  ['Be Thou My Vision', ['Traditional Irish', 'Mary Byrne']],
  ['Holy, Holy, Holy', ['Reginald Heber', 'John Bacchus Dykes']],
  ['It Is Well with My Soul', ['Horatio Spafford', 'Philip Bliss']],
  ['Great Is Thy Faithfulness', ['Thomas Chisholm', 'William Runyan']],
  ['How Great Thou Art', ['Carl Boberg', 'Stuart K. Hine']],
  ['Come Thou Fount of Every Blessing', ['Robert Robinson']],
  ['Crown Him with Many Crowns', ['Matthew Bridges', 'Godfrey Thring']],
  ['Praise to the Lord, the Almighty', ['Joachim Neander']],
  ['A Mighty Fortress Is Our God', ['Martin Luther']],
  ['When I Survey the Wondrous Cross', ['Isaac Watts']],
  ['Joyful, Joyful, We Adore Thee', ['Henry van Dyke', 'Ludwig van Beethoven']],
  ['All Creatures of Our God and King', ['Francis of Assisi', 'William Draper']],
  ['And Can It Be', ['Charles Wesley']],
  ['O for a Thousand Tongues to Sing', ['Charles Wesley']],
  ['Blessed Assurance', ['Fanny Crosby', 'Phoebe Knapp']],
  ['To God Be the Glory', ['Fanny Crosby', 'William Doane']],
  ['Rock of Ages', ['Augustus Toplady']],
  ['Abide with Me', ['Henry Francis Lyte', 'William Henry Monk']],
  ['The Church\u2019s One Foundation', ['Samuel John Stone', 'Samuel Sebastian Wesley']],
  ['Guide Me, O Thou Great Jehovah', ['William Williams']],
  ['Come, Thou Long Expected Jesus', ['Charles Wesley']],
  ['O Worship the King', ['Robert Grant']],
  ['Immortal, Invisible, God Only Wise', ['Walter Chalmers Smith']],
  ['Standing on the Promises', ['Russell Kelso Carter']],
  ['Nearer, My God, to Thee', ['Sarah Flower Adams', 'Lowell Mason']],
  ['Jesus Paid It All', ['Elvina Hall', 'John Grape']],
  ['What a Friend We Have in Jesus', ['Joseph Scriven', 'Charles Converse']],
  ['Doxology', ['Thomas Ken']],
  ['Morning Has Broken', ['Eleanor Farjeon']],
];

/** Songs taken up after the first quarter: [name, artists, the week they are introduced]. */
const NEW_SONGS: [string, string[], number][] = [
  ['10,000 Reasons', ['Matt Redman', 'Jonas Myrin'], 20],
  ['In Christ Alone', ['Keith Getty', 'Stuart Townend'], 35],
  ['Cornerstone', ['Hillsong Worship'], 60],
  ['Build My Life', ['Pat Barrett', 'Housefires'], 80],
  ['Goodness of God', ['Bethel Music', 'Jenn Johnson'], 100],
];
/** Added to the catalogue, never sung. */
const NEVER_SUNG: [string, string[]] = ['The Old Rugged Cross', ['George Bennard']];
/** No longer sung after the first quarter. */
const RETIRED = new Set(['Nearer, My God, to Thee', 'Morning Has Broken', 'Rock of Ages', 'Abide with Me']);

/** A small deterministic generator (mulberry32), so the demo data is the same on every machine. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const force = process.argv.includes('--force');
  // Checked before the store is opened: a bad day writes nothing.
  const firstSunday = firstSundayFor(seedDay(process.env.SEED_TODAY));
  const store = await createStore(loadConfig());
  try {
    if (!force && (await store.listSongs({}, { limit: 1 })).totalCount > 0) {
      console.log('The store already has songs; nothing seeded (use --force to add the demo data anyway).');
      return;
    }
    const songs = [];
    for (const [name, artists] of SONGS) songs.push(await store.createSong({ name, artists }));

    const next = random(2024);
    // Thirteen weeks from the first Sunday: Sunday morning and evening, Wednesday Bible study.
    const day = 86_400_000;
    const slots: [number, ServiceType, number][] = [
      [0, 'SUN_AM', 10 * 3_600_000],
      [0, 'SUN_PM', 18 * 3_600_000],
      [3, 'WED', 19 * 3_600_000 + 1_800_000],
    ];
    let services = 0;
    let links = 0;
    let last = 0;
    for (let week = 0; week < 13; week++) {
      for (const [offset, serviceType, time] of slots) {
        const service = expectSlotFree(await store.createService({ date: firstSunday + (week * 7 + offset) * day + time, serviceType }));
        services++;
        const count = serviceType === 'WED' ? 3 : 4 + Math.floor(next() * 3);
        const picked = new Set<number>();
        while (picked.size < count) picked.add(songs[Math.floor(next() * songs.length)].id);
        await store.replaceSetlist(service.id, [...picked]);
        links += picked.size;
      }
    }

    // After the first quarter: a skewed rotation (a few favourites), the retired hymns gone, each
    // new song sung often once introduced, the Doxology opening most Sunday mornings.
    const later = random(2026);
    const catalogue = [...songs];
    const introduced = new Map<number, number>();
    for (const [name, artists, week] of NEW_SONGS) {
      const song = await store.createSong({ name, artists });
      catalogue.push(song);
      introduced.set(song.id, week);
    }
    await store.createSong({ name: NEVER_SUNG[0], artists: NEVER_SUNG[1] });
    const doxology = songs.find((s) => s.name === 'Doxology')!.id;
    for (let week = 13; week < WEEKS; week++) {
      const weights = catalogue.map((song, rank) => {
        if (RETIRED.has(song.name) || song.id === doxology) return 0;
        const since = introduced.get(song.id);
        if (since !== undefined) return week < since ? 0 : 0.6;
        return 1 / (rank + 1) ** 1.1;
      });
      const total = weights.reduce((a, b) => a + b, 0);
      const draw = () => {
        let r = later() * total;
        for (let i = 0; i < weights.length; i++) if ((r -= weights[i]) <= 0) return catalogue[i].id;
        return catalogue[0].id;
      };
      for (const [offset, serviceType, time] of slots) {
        const service = expectSlotFree(await store.createService({ date: firstSunday + (week * 7 + offset) * day + time, serviceType }));
        services++;
        last = service.date;
        const count = serviceType === 'WED' ? 3 : 4 + Math.floor(later() * 3);
        const picked = new Set<number>();
        if (serviceType === 'SUN_AM' && later() < 0.7) picked.add(doxology);
        while (picked.size < count) picked.add(draw());
        await store.replaceSetlist(service.id, [...picked]);
        links += picked.size;
      }
    }
    const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    console.log(
      `Seeded ${catalogue.length + 1} songs, ${services} services and ${links} performances, ` +
        `from ${isoDay(firstSunday)} to ${isoDay(last)}.`,
    );
  } finally {
    await store.close();
  }
}

loadEnvFile();
main().catch((err) => {
  console.error(`Seeding failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
