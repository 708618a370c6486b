/**
 * The timeline's edge buckets over HTTP, on the demo data (`npm run seed` into a temporary store,
 * a SQLite file or the run's Neo4j; SERVICE_TIME_ZONE UTC as the seed's dates assume): a window
 * filters first, so the first and last buckets count only what lies inside it (their `start`
 * stays the calendar start, and `partial` says they were cut), and the buckets add up to what the
 * other reports count in the same window.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { startDemoServer } from '../helpers/demo-server';
import type { TestServer } from '../helpers/server';

const utc = (iso: string) => DateTime.fromISO(iso, { zone: 'UTC' }).toMillis();

let server: TestServer;

beforeAll(async () => {
  server = await startDemoServer({ SERVICE_TIME_ZONE: 'UTC' });
}, 120_000);
afterAll(() => server?.close());

interface Bucket {
  start: number;
  services: number;
  performances: number;
  distinctSongs: number;
  partial: boolean;
}

async function get<T = any>(p: string): Promise<{ body: T; total: number }> {
  const res = await server.api('GET', p);
  expect([p, res.status]).toEqual([p, 200]);
  return { body: res.body as T, total: Number(res.headers.get('x-total-count')) };
}

/** What the other reports count in a window: services of the types, performances, songs sung. */
async function windowTotals(from: string, to: string, types: string[]) {
  const q = types.map((t) => `&serviceType=${t}`).join('');
  const services = await get(`/services/byDate/between/${encodeURIComponent(from)}/${encodeURIComponent(to)}?limit=1${q}`);
  const usage = await get<{ timesSung: number }[]>(
    `/reports/songUsage?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${q}`,
  );
  return {
    services: services.total,
    performances: usage.body.reduce((n, r) => n + r.timesSung, 0),
    songs: usage.total,
  };
}

describe('GET /reports/timeline: the window filters first', () => {
  it('one Sunday in weeks counts that Sunday only, not the Wednesday before it', async () => {
    const { body } = await get<Bucket[]>('/reports/timeline?bucket=WEEK&from=2024-09-08&to=2024-09-08');
    const day = await windowTotals('2024-09-08', '2024-09-08', []);
    expect(day.services).toBe(2); // the demo data's two Sunday services; Wednesday 2024-09-04 is outside
    expect(body).toEqual([
      {
        start: utc('2024-09-02'), // the ISO week's Monday, although the window starts on Sunday
        services: day.services,
        performances: day.performances,
        distinctSongs: day.songs,
        partial: true,
      },
    ]);
    const gql = await server.gql('{ usageTimeline(bucket: WEEK, from: "2024-09-08", to: "2024-09-08") { start services performances distinctSongs partial } }');
    expect(gql.body).toEqual({ data: { usageTimeline: body } });
  });

  it('a window of whole months in months: no bucket is partial and each equals its month', async () => {
    const { body } = await get<Bucket[]>('/reports/timeline?bucket=MONTH&from=2025-03-01&to=2025-04-30');
    expect(body.map((b) => [b.start, b.partial])).toEqual([
      [utc('2025-03-01'), false],
      [utc('2025-04-01'), false],
    ]);
    const march = await windowTotals('2025-03-01', '2025-03-31', []);
    expect(body[0]).toMatchObject({ services: march.services, performances: march.performances, distinctSongs: march.songs });
  });

  it('only the edge buckets are partial; the middle ones count their whole period', async () => {
    const { body } = await get<Bucket[]>('/reports/timeline?bucket=MONTH&from=2025-01-15T12:00:00Z&to=2025-04-10');
    expect(body.map((b) => [b.start, b.partial])).toEqual([
      [utc('2025-01-01'), true],
      [utc('2025-02-01'), false],
      [utc('2025-03-01'), false],
      [utc('2025-04-01'), true],
    ]);
    const first = await windowTotals('2025-01-15T12:00:00Z', '2025-01-31', []);
    const whole = await windowTotals('2025-01-01', '2025-01-31', []);
    expect(body[0]).toMatchObject({ services: first.services, performances: first.performances, distinctSongs: first.songs });
    expect(body[0].services).toBeLessThan(whole.services);
    const february = await windowTotals('2025-02-01', '2025-02-28', []);
    expect(body[1]).toMatchObject({ services: february.services, performances: february.performances, distinctSongs: february.songs });
  });

  it('for random windows, types and bucket sizes, the buckets add up to the reports of the same window', async () => {
    // Days and instants across the demo history (September 2024 to November 2026) and beyond it.
    const moment = fc.integer({ min: utc('2024-08-01') / 60_000, max: utc('2027-01-31') / 60_000 }).map((m) => m * 60_000);
    const bound = fc.oneof(
      moment.map((t) => DateTime.fromMillis(t, { zone: 'UTC' }).toISODate()!),
      moment.map((t) => new Date(t).toISOString()),
    );
    await fc.assert(
      fc.asyncProperty(
        bound,
        bound,
        fc.constantFrom('WEEK', 'MONTH', 'QUARTER', 'YEAR'),
        fc.subarray(['SUN_AM', 'SUN_PM', 'WED']),
        fc.option(fc.constantFrom(1, 12, 31), { nil: null }),
        async (a, b, bucket, types, songId) => {
          const first = (s: string) => (s.length === 10 ? utc(s) : Date.parse(s));
          const [from, to] = first(a) <= first(b) ? [a, b] : [b, a];
          const q = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${types.map((t) => `&serviceType=${t}`).join('')}`;
          const { body } = await get<Bucket[]>(`/reports/timeline?bucket=${bucket}&${q}${songId ? `&songId=${songId}` : ''}`);
          const sum = (key: 'services' | 'performances') => body.reduce((n, r) => n + r[key], 0);
          if (songId === null) {
            const totals = await windowTotals(from, to, types);
            expect({ services: sum('services'), performances: sum('performances') }).toEqual({
              services: totals.services,
              performances: totals.performances,
            });
          } else {
            const usage = await get<{ timesSung: number }>(`/songs/${songId}/usage?${q}`);
            expect([sum('services'), sum('performances')]).toEqual([usage.body.timesSung, usage.body.timesSung]);
          }
          // Only the first and last bucket can be cut: when the window starts after the first's
          // start, or ends before the last's end.
          const unit = bucket.toLowerCase() as 'week' | 'month' | 'quarter' | 'year';
          const end = (r: Bucket) => DateTime.fromMillis(r.start, { zone: 'UTC' }).plus({ [`${unit}s`]: 1 }).toMillis() - 1;
          const toMs = to.length === 10 ? utc(to) + 86_400_000 - 1 : Date.parse(to);
          const cut = body.map((r, i) => (i === 0 && first(from) > r.start) || (i === body.length - 1 && toMs < end(r)));
          expect(body.map((r) => r.partial)).toEqual(cut);
        },
      ),
      { numRuns: 40, seed: 20240908 },
    );
  });
});
