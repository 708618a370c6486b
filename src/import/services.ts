import { DateTime } from 'luxon';
import { DateFormatError, parseTimestamp, serviceInstant, type ServiceTimes } from '../domain/dates';
import type { SongLicensing } from '../domain/licensing';
import { matchableSongs, prefixedCcliNumber, SongMatcher, type MatchableSong } from '../domain/song-match';
import type { ServiceType } from '../generated/graphql';
import type { ServiceInput, ServiceRecord, SongRecord } from '../store/types';
import { findColumn, MalformedFileError, type CsvTable } from './csv';
import type { Plan } from './plan';

export const DATE_COLUMNS = ['date', 'service date'] as const;
export const TYPE_COLUMNS = ['servicetype', 'service type', 'type'] as const;
export const SONGS_COLUMNS = ['songs', 'setlist'] as const;
const SERVICE_TYPES: readonly ServiceType[] = ['SUN_AM', 'SUN_PM', 'WED'];

export interface ServiceRow {
  service: ServiceInput;
  songIds: number[];
}

const LOCAL = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?$/;

/**
 * A service date: epoch milliseconds, an ISO-8601 date-time with Z or an offset, a local
 * `YYYY-MM-DD HH:mm[:ss]` in the service time zone (planning tools export local times), or a day
 * alone `YYYY-MM-DD`, which is that day at the type's usual time (SERVICE_TIMES), as in request
 * bodies (docs/API.md).
 */
export function parseServiceDate(text: string, type: ServiceType, zone: string, times: ServiceTimes): number | { day: string; at: number } {
  if (/^-?\d+$/.test(text)) return parseTimestamp(Number(text));
  const local = LOCAL.exec(text);
  if (local && !local[2]) return { day: local[1], at: serviceInstant({ serviceDay: local[1] }, type, zone, times) };
  if (local) {
    const dt = DateTime.fromISO(`${local[1]}T${local[2]}`, { zone });
    if (!dt.isValid) throw new DateFormatError(`'${text}' is not a calendar date`);
    return parseTimestamp(dt.toMillis());
  }
  return parseTimestamp(text);
}

function parseServiceType(text: string): ServiceType | undefined {
  const normal = text.trim().toUpperCase().replace(/[\s-]+/g, '_');
  return SERVICE_TYPES.find((t) => t === normal);
}

/**
 * The song a setlist entry names: `id:34` (or `id 34`) by id; `CCLI 7115744` or `#7115744` by CCLI
 * number; bare digits by CCLI number, else by id (a number that is both is ambiguous); anything
 * else by title, under the rule of src/domain/song-match.ts (a setlist gives no artists, so
 * several songs with the title are ambiguous). A song or the reason there is none.
 */
export function setlistSong(entry: string, matcher: SongMatcher, byId: ReadonlyMap<number, MatchableSong>): MatchableSong | string {
  const id = /^id\s*[: ]\s*(\d+)$/i.exec(entry);
  if (id) return byId.get(Number(id[1])) ?? `no song with id ${id[1]}`;
  const ccli = prefixedCcliNumber(entry);
  if (ccli) return matcher.byNumber(ccli) ?? `no song with CCLI number ${ccli}`;
  if (/^\d+$/.test(entry)) {
    const numbered = matcher.byNumber(entry);
    const withId = byId.get(Number(entry));
    if (numbered && withId && numbered.id !== withId.id) {
      return `'${entry}' is ambiguous: the CCLI number of song ${numbered.id} and the id of song ${withId.id} (write CCLI ${entry} or id:${entry})`;
    }
    const found = numbered ?? withId;
    if (found) return found;
  }
  const match = matcher.match({ name: entry, artists: [] });
  if (match.kind === 'ambiguous') return `'${entry}' is ambiguous: songs ${match.candidates.join(', ')}`;
  if (match.kind === 'none') return `no song titled '${entry}'`;
  return match.song;
}

/** Where local service dates are read: the zone, and each type's usual time for a day alone. */
export interface ServiceClock {
  zone: string;
  times: ServiceTimes;
}

/**
 * Decide every row of a services file: its date, type and setlist (stored songs named by title,
 * CCLI number or id, in order: `setlistSong`), or why it is rejected; a service already stored
 * (same date and type: docs/API.md allows one) is skipped. A row giving a day alone is also the
 * service of its type stored on that local day at another time (files of releases that read a
 * day alone as midnight), so importing such a file again writes nothing.
 */
export function planServices(
  table: CsvTable,
  songs: SongRecord[],
  existing: ServiceRecord[],
  clock: ServiceClock,
  /** Each song's licensing details, in the order of `songs` (CCLI numbers name songs too). */
  licensing: readonly (SongLicensing | null)[] = [],
): Plan<ServiceRow> {
  const date = findColumn(table.headers, DATE_COLUMNS);
  const type = findColumn(table.headers, TYPE_COLUMNS);
  // Titles in one column separated by ';', or one column per place: 'song 1', 'song 2', ...
  const listColumn = findColumn(table.headers, SONGS_COLUMNS);
  const placeColumns = table.headers
    .map((h) => ({ h, n: /^song ?(\d+)$/.exec(h)?.[1] }))
    .filter((c) => c.n !== undefined)
    .sort((a, b) => Number(a.n) - Number(b.n))
    .map((c) => c.h);
  if (!date || !type) {
    throw new MalformedFileError(
      `a services file needs a date column (${DATE_COLUMNS.join(', ')}) and a service type column (${TYPE_COLUMNS.join(', ')})`,
    );
  }
  const catalogue = matchableSongs(songs, licensing);
  const matcher = new SongMatcher(catalogue);
  const byId = new Map(catalogue.map((s) => [s.id, s]));
  const known = new Map(existing.map((v) => [`${v.date}|${v.serviceType}`, `existing service ${v.id}`]));
  const dayOf = (at: number) => DateTime.fromMillis(at, { zone: clock.zone }).toISODate();
  const knownDays = new Map(existing.map((v) => [`${dayOf(v.date)}|${v.serviceType}`, `existing service ${v.id}`]));

  const plan: Plan<ServiceRow> = { create: [], skipped: [], rejected: [] };
  for (const row of table.rows) {
    const problems: string[] = [];
    const serviceType = parseServiceType(row.values[type]);
    let when = 0;
    let day: string | undefined;
    try {
      const parsed = parseServiceDate(row.values[date], serviceType ?? 'SUN_AM', clock.zone, clock.times);
      if (typeof parsed === 'number') when = parsed;
      else ({ at: when, day } = parsed);
    } catch (err) {
      problems.push(`date ${err instanceof DateFormatError ? err.message : String(err)}`);
    }
    if (!serviceType) problems.push(`service type '${row.values[type]}' is not one of ${SERVICE_TYPES.join(', ')}`);
    const titles = [
      ...(listColumn ? row.values[listColumn].split(';') : []),
      ...placeColumns.map((c) => row.values[c]),
    ]
      .map((t) => t.trim())
      .filter(Boolean);
    const songIds: number[] = [];
    for (const title of titles) {
      const found = setlistSong(title, matcher, byId);
      if (typeof found === 'string') problems.push(found);
      else if (songIds.includes(found.id)) problems.push(`'${title}' is listed twice`);
      else songIds.push(found.id);
    }
    if (problems.length) {
      plan.rejected.push({ line: row.line, reason: problems.join('; ') });
      continue;
    }
    const key = `${when}|${serviceType}`;
    const duplicate = known.get(key) ?? (day === undefined ? undefined : knownDays.get(`${day}|${serviceType}`));
    if (duplicate) {
      plan.skipped.push({ line: row.line, reason: `${row.values[date]} ${serviceType} duplicates ${duplicate}` });
      continue;
    }
    known.set(key, `line ${row.line}`);
    if (day !== undefined) knownDays.set(`${day}|${serviceType}`, `line ${row.line}`);
    plan.create.push({
      line: row.line,
      input: { service: { date: when, serviceType: serviceType! }, songIds },
      what: `${row.values[date]} ${serviceType} with ${songIds.length} song${songIds.length === 1 ? '' : 's'}`,
    });
  }
  return plan;
}
