/**
 * Which index each list statement of the SQLite store uses (README "Paging, counting and
 * search"), read from EXPLAIN QUERY PLAN on a migrated database: no list may scan a whole table
 * or sort the whole table to answer a page.
 */
import Database from 'better-sqlite3';
import { migrate } from '../src/store/sqlite/migrations';
import { SQL, type StatementName } from '../src/store/sqlite/statements';

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
  ['countInRange', [/SEARCH services USING (COVERING )?INDEX services_date \(date>\? AND date<\?\)/]],
  ['setlists', [/SEARCH p USING INDEX performed_in_setlist \(service_id=\?\)/]],
  ['servicesForSongs', [/SEARCH p USING (COVERING )?INDEX performed_in_song(_usage)? \(song_id=\?\)/, /SEARCH v USING INTEGER PRIMARY KEY/]],
])('%s uses its index', (name, expected) => {
  const detail = plan(name);
  for (const re of expected) expect(detail.some((d) => re.test(d))).toBe(true);
  // Sorting a whole table for a page would cost what the store holds.
  if (!/^(setlists|servicesForSongs|searchSongs)$/.test(name)) {
    expect(detail.filter((d) => d.startsWith('USE TEMP B-TREE FOR ORDER BY'))).toEqual([]);
  }
});
