/**
 * Which index each list statement of the SQLite store uses (docs/performance.md "Paging, counting and
 * search"), read from EXPLAIN QUERY PLAN on a migrated database: no list may scan a whole table
 * or sort the whole table to answer a page.
 */
import Database from 'better-sqlite3';
import { migrate } from '../../src/store/sqlite/migrations';
import { ANALYTICS_SQL, type AnalyticsStatementName } from '../../src/store/sqlite/analytics-statements';
import { SQL, type StatementName } from '../../src/store/sqlite/statements';
import { WEBHOOK_SQL } from '../../src/store/sqlite/webhook-statements';

const db = new Database(':memory:');
migrate(db);
afterAll(() => db.close());

const plan = (name: StatementName) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${SQL[name]}`).all(Object.fromEntries(
    [...SQL[name].matchAll(/@(\w+)/g)].map((m) => [m[1], m[1] === 'ids' || m[1] === 'types' ? '[]' : 1]),
  )) as { detail: string }[]).map((r) => r.detail);

test.each<[StatementName, RegExp[]]>([
  ['songsPageIdAsc', [/^SCAN songs$/]],
  ['songsPageIdDesc', [/^SCAN songs$/]],
  ['songsPageNameAsc', [/SCAN songs USING (COVERING )?INDEX songs_name/]],
  ['songsPageNameDesc', [/SCAN songs USING (COVERING )?INDEX songs_name/]],
  ['songsAfterIdAsc', [/SEARCH songs USING INTEGER PRIMARY KEY \(rowid>\?\)/]],
  ['songsAfterNameAsc', [/SEARCH songs USING INDEX songs_name \(name>\?\)/]],
  ['songsAfterNameDesc', [/SEARCH songs USING INDEX songs_name \(name<\?\)/]],
  ['countSongs', [/SEARCH row_counts USING PRIMARY KEY/]],
  ['searchSongs', [/SCAN f VIRTUAL TABLE INDEX/, /SEARCH s USING INTEGER PRIMARY KEY/]],
  ['songsByArtistKey', [/SEARCH k USING PRIMARY KEY \(artist_key=\?\)/, /SEARCH s USING INTEGER PRIMARY KEY/]],
  ['countByArtistKey', [/SEARCH song_artist_keys USING PRIMARY KEY \(artist_key=\?\)/]],
  ['servicesPageDateAsc', [/SCAN services USING INDEX services_date/]],
  ['servicesPageDateDesc', [/SCAN services USING INDEX services_date/]],
  ['servicesAfterDateAsc', [/SEARCH services USING INDEX services_date \(date>\?\)/]],
  ['countServices', [/SEARCH row_counts USING PRIMARY KEY/]],
  ['servicesInRange', [/SEARCH services USING INDEX services_date \(date>\? AND date<\?\)/]],
  // The one-service-per-date-and-type index leads with the date and holds the type: a covering seek.
  ['countInRange', [/SEARCH services USING COVERING INDEX services_slot \(date>\? AND date<\?\)/]],
  ['setlist', [/SEARCH p USING INDEX performed_in_setlist \(service_id=\?\)/, /SEARCH s USING INTEGER PRIMARY KEY/]],
  ['servicesForSong', [/^SEARCH performed_in USING COVERING INDEX performed_in_song_date \(song_id=\?\)$/]],
  ['servicesForSongDesc', [/^SEARCH performed_in USING COVERING INDEX performed_in_song_date \(song_id=\?\)$/]],
  // A setlist's range of either index on service_id (setlists are short).
  ['setlistCounts', [/SEARCH performed_in USING COVERING INDEX (performed_in_setlist|sqlite_autoindex_performed_in_1) \(service_id=\?\)/]],
  ['servicesForSongsCounts', [/SEARCH song_usage USING INTEGER PRIMARY KEY \(rowid=\?\)/]],
])('%s uses its index', (name, expected) => {
  const detail = plan(name);
  for (const re of expected) expect(detail.some((d) => re.test(d))).toBe(true);
  // Sorting a whole table for a page would cost what the store holds.
  if (name !== 'searchSongs') {
    expect(detail.filter((d) => d.startsWith('USE TEMP B-TREE FOR ORDER BY'))).toEqual([]);
  }
});

type PlanRow = { id: number; parent: number; detail: string };
const planRows = (name: StatementName) =>
  db.prepare(`EXPLAIN QUERY PLAN ${SQL[name]}`).all({ id: 1, ids: '[1, 2]', types: '["WED"]', limit: 20, offset: 0, end: 20 }) as PlanRow[];
/** The plan rows below `root`, at any depth. */
function below(rows: PlanRow[], root: PlanRow): PlanRow[] {
  const children = rows.filter((r) => r.parent === root.id);
  return children.flatMap((c) => [c, ...below(rows, c)]);
}

// Relation pages (Song.services, Service.songs, withSong, forService) read each parent's page from
// an index and stop there: a popular song's page must not cost its performances. Per parent (and
// per asked type when only some are asked), the links are sought in page order with their own
// LIMIT (at most the ties of the last date are sorted), never all read and numbered; many parents
// are one statement with that seek per parent. Sorts outside the seek order the rows it gave.
const TYPE_SEEK = /^SEARCH q USING COVERING INDEX performed_in_song_usage \(song_id=\? AND service_type=\?\)$/;
test.each<[StatementName, RegExp, RegExp]>([
  ['setlists', /^SEARCH q USING (COVERING )?INDEX performed_in_setlist \(service_id=\?\)$/, /^$/],
  ['servicesForSongs', /^SEARCH q USING COVERING INDEX performed_in_song_date \(song_id=\?\)$/, /^$/],
  ['servicesForSongOfTypes', TYPE_SEEK, /^LAST TERM OF ORDER BY$/],
  ['servicesForSongsOfTypes', TYPE_SEEK, /^LAST TERM OF ORDER BY$/],
  ['servicesForSongsDesc', /^SEARCH q USING COVERING INDEX performed_in_song_date \(song_id=\?\)$/, /^$/],
  ['servicesForSongOfTypesDesc', TYPE_SEEK, /^LAST TERM OF ORDER BY$/],
  ['servicesForSongsOfTypesDesc', TYPE_SEEK, /^LAST TERM OF ORDER BY$/],
])('%s seeks each parent\'s page in index order and stops there', (name, seek, sortAllowed) => {
  const rows = planRows(name);
  const seeks = rows.filter((r) => seek.test(r.detail));
  expect(seeks).toHaveLength(1);
  // The seek runs once per parent (or per parent and type): in a correlated subquery.
  const perParent = rows.find((r) => r.id === seeks[0].parent)!;
  expect(perParent.detail).toMatch(/^CORRELATED LIST SUBQUERY/);
  // A sort of the parent's whole range would read every link before the LIMIT could stop it.
  const sorts = below(rows, perParent).map((r) => r.detail).filter((d) => d.startsWith('USE TEMP B-TREE FOR '));
  expect(sorts.map((d) => d.slice('USE TEMP B-TREE FOR '.length)).filter((d) => !sortAllowed.test(d))).toEqual([]);
  // Nothing else reads links or services but by primary key: no window over a parent's links.
  const reads = rows.filter((r) => r !== seeks[0] && /^(SCAN|SEARCH) /.test(r.detail) && !/VIRTUAL TABLE|USING INTEGER PRIMARY KEY/.test(r.detail));
  expect(reads.map((r) => r.detail)).toEqual([]);
  expect(rows.filter((r) => /CO-ROUTINE/.test(r.detail))).toEqual([]);
});

// The all-time usage report, rotation and new songs (every service type) read song_usage in the
// order they answer in: no sort, so a page stops the walk (docs/analytics.md "Analytics performance").
test.each<[AnalyticsStatementName, RegExp]>([
  ['songUsageByTimes', /SCAN u USING INDEX song_usage_times\b/],
  ['songUsageByLastDesc', /SCAN u USING INDEX song_usage_last_desc\b/],
  ['songUsageByLast', /SCAN u USING INDEX song_usage_last\b/],
  ['songUsageByFirst', /SCAN u USING INDEX song_usage_first\b/],
])('%s walks its song_usage index', (name, index) => {
  const detail = (db.prepare(`EXPLAIN QUERY PLAN ${ANALYTICS_SQL[name]}`).all({
    allTime: 1, sun_am: 1, sun_pm: 1, wed: 1, allTypes: 1, includeUnsung: 0, lastBefore: null,
    firstFrom: null, firstTo: null, limit: 10, offset: 0,
  }) as { detail: string }[]).map((r) => r.detail);
  expect(detail.some((d) => index.test(d))).toBe(true);
  expect(detail.filter((d) => d.includes('TEMP B-TREE'))).toEqual([]);
  expect(detail.filter((d) => /performed_in|services/.test(d))).toEqual([]);
});

// Songs sung often: the run is the newest services up to @to, read backwards off services_date
// (no sort of the services), and only those services' setlists: its cost follows the run, not
// the history.
test('songsSungOften walks services_date back from @to and reads only the run\'s setlists', () => {
  const detail = (db.prepare(`EXPLAIN QUERY PLAN ${ANALYTICS_SQL.songsSungOften}`).all({
    to: 1, sun_am: 1, sun_pm: 1, wed: 1, allTypes: 1, lastServices: 12, moreThanPercent: 50,
  }) as { detail: string }[]).map((r) => r.detail);
  expect(detail).toContain('SEARCH services USING INDEX services_date (date<?)');
  expect(detail).toContain('SEARCH p USING INDEX performed_in_setlist (service_id=?)');
  expect(detail.filter((d) => /^SCAN (services|performed_in|p)\b/.test(d))).toEqual([]);
});

// Songs sung with one song, all time and every type (what suggestions read per chosen song): a seek
// of the song's range of song_pair_totals_order for the page's last count, then that range again
// down to it. Only the page and its ties are sorted (by Jaccard index); song_pairs, the links and
// the services are not read.
test('songsSungWithAllTypes seeks song_pair_totals_order and reads only the page and its ties', () => {
  const detail = (db.prepare(`EXPLAIN QUERY PLAN ${ANALYTICS_SQL.songsSungWithAllTypes}`).all({ songId: 1, limit: 25 }) as {
    detail: string;
  }[]).map((r) => r.detail);
  const seeks = detail.filter((d) => d === 'SEARCH song_pair_totals USING COVERING INDEX song_pair_totals_order (song_id=?)');
  const bounded = detail.filter((d) => d === 'SEARCH song_pair_totals USING COVERING INDEX song_pair_totals_order (song_id=? AND together>?)');
  expect([seeks.length, bounded.length]).toEqual([1, 1]);
  // The one row of `cut` is the only thing scanned.
  expect(detail.filter((d) => (/^SCAN\b/.test(d) && d !== 'SCAN cut') || /song_pairs\b|performed_in|services/.test(d))).toEqual([]);
});

// A song's rhythm (suggestions read it for every candidate): per song, its dates in the range and
// the one before it are each a range of performed_in_song_date; nothing else is read.
test('songRhythms seeks each song\'s range of performed_in_song_date, twice', () => {
  const detail = (db.prepare(`EXPLAIN QUERY PLAN ${ANALYTICS_SQL.songRhythms}`).all({ songIds: '[1, 2]', min: 0, max: 1 }) as {
    detail: string;
  }[]).map((r) => r.detail);
  expect(detail.filter((d) => /^SEARCH p USING COVERING INDEX performed_in_song_date \(song_id=\? AND service_date>\? AND service_date<\?\)$/.test(d))).toHaveLength(1);
  expect(detail.filter((d) => /^SEARCH p USING COVERING INDEX performed_in_song_date \(song_id=\? AND service_date<\?\)$/.test(d))).toHaveLength(1);
  expect(detail.filter((d) => /^SCAN (?!j\b)/.test(d) || d.includes('TEMP B-TREE'))).toEqual([]);
});

// A suggestion's pool: the run off services_date walked backwards, each service's setlist by its
// index; the songs' ids only (no songs row read), made distinct and ordered in one temp b-tree.
test('songsOfLastServices reads the run and its setlists, no song row and no history', () => {
  const detail = (db.prepare(`EXPLAIN QUERY PLAN ${ANALYTICS_SQL.songsOfLastServices}`).all({
    to: 0, lastServices: 156, allTypes: 1, sun_am: 1, sun_pm: 1, wed: 1,
  }) as { detail: string }[]).map((r) => r.detail);
  expect(detail).toEqual(expect.arrayContaining([expect.stringMatching(/^SEARCH services USING (COVERING )?INDEX services_date \(date<\?\)$/), expect.stringMatching(/^SEARCH p USING (COVERING )?INDEX performed_in_setlist \(service_id=\?\)$/)]));
  expect(detail.filter((d) => /\bsongs\b|song_usage|performed_in_song|SCAN (?!run\b)/.test(d))).toEqual([]);
});

// A suggestion's candidates' counts per type: a primary-key read of song_usage per song, nothing else.
test('songTimesByType reads song_usage by primary key per song', () => {
  const detail = (db.prepare(`EXPLAIN QUERY PLAN ${ANALYTICS_SQL.songTimesByType}`).all({ songIds: '[1, 2]' }) as { detail: string }[]).map((r) => r.detail);
  expect(detail).toContain('SEARCH u USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN');
  expect(detail.filter((d) => d.includes('TEMP B-TREE') || /performed_in|services|song_pair/.test(d) || (/^SCAN/.test(d) && !/^SCAN j\b/.test(d)))).toEqual([]);
});

// Song.usage over all time for a batch (a suggestion's candidates): a primary-key read of
// song_usage per song, no grouping or sort, nothing of the history.
test('usageOfSongsAllTime reads song_usage by primary key per song', () => {
  const detail = (db.prepare(`EXPLAIN QUERY PLAN ${ANALYTICS_SQL.usageOfSongsAllTime}`).all({
    songIds: '[1, 2]', sun_am: 1, sun_pm: 1, wed: 1,
  }) as { detail: string }[]).map((r) => r.detail);
  expect(detail).toContain('SEARCH u USING INTEGER PRIMARY KEY (rowid=?) LEFT-JOIN');
  expect(detail.filter((d) => d.includes('TEMP B-TREE') || /performed_in|services/.test(d) || (/^SCAN/.test(d) && !/^SCAN j\b/.test(d)))).toEqual([]);
});

test('the outbox is read after an event by its primary key, and a setlist event reads only its service\'s links', () => {
  const detail = (sql: string, ...params: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
  expect(detail(SQL.eventsAfter, 0, 10)).toEqual([expect.stringMatching(/^SEARCH events USING INTEGER PRIMARY KEY \(rowid>\?\)$/)]);
  expect(detail(SQL.setlistOfService, 1)).toEqual([
    expect.stringMatching(/^SEARCH p USING INDEX performed_in_setlist \(service_id=\?\)$/),
    expect.stringMatching(/^SEARCH s USING INTEGER PRIMARY KEY/),
  ]);
});

test('webhook deliveries: the due ones by their index, an endpoint\'s log by its key, newest first', () => {
  const detail = (sql: string, params: Record<string, unknown>) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail);
  const due = detail(WEBHOOK_SQL.dueDeliveries, { now: 1, limit: 20 });
  expect(due[0]).toMatch(/^SEARCH d USING INDEX webhook_deliveries_due \(due_at<\?\)$/);
  expect(due.slice(1)).toEqual([expect.stringMatching(/^SEARCH w USING INTEGER PRIMARY KEY/), expect.stringMatching(/^SEARCH e USING INTEGER PRIMARY KEY/)]);
  const log = detail(WEBHOOK_SQL.deliveriesOf, { id: 1, limit: 20, offset: 0 });
  expect(log[0]).toMatch(/^SEARCH d USING PRIMARY KEY \(webhook_id=\?\)$/);
  expect(log.join('\n')).not.toMatch(/TEMP B-TREE/);
});
