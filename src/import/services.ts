import { DateTime } from 'luxon';
import { artistKey } from '../domain/artists';
import { DateFormatError, parseTimestamp } from '../domain/dates';
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
 * A service date: epoch milliseconds, an ISO-8601 date-time with Z or an offset, or a local
 * `YYYY-MM-DD[ HH:mm[:ss]]` in the service time zone (planning tools export local times).
 */
export function parseServiceDate(text: string, zone: string): number {
  if (/^-?\d+$/.test(text)) return parseTimestamp(Number(text));
  const local = LOCAL.exec(text);
  if (local) {
    const dt = DateTime.fromISO(local[2] ? `${local[1]}T${local[2]}` : local[1], { zone });
    if (!dt.isValid) throw new DateFormatError(`'${text}' is not a calendar date`);
    return parseTimestamp(dt.toMillis());
  }
  return parseTimestamp(text);
}

function parseServiceType(text: string): ServiceType | undefined {
  const normal = text.trim().toUpperCase().replace(/[\s-]+/g, '_');
  return SERVICE_TYPES.find((t) => t === normal);
}

const titleKey = (title: string) => artistKey(title).replace(/\s+/g, ' ');

/**
 * Decide every row of a services file: its date, type and setlist (titles of stored songs, in
 * order), or why it is rejected; a service already stored (same date and type) is skipped.
 */
export function planServices(
  table: CsvTable,
  songs: SongRecord[],
  existing: ServiceRecord[],
  zone: string,
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
  const byTitle = new Map<string, SongRecord[]>();
  for (const s of songs) byTitle.set(titleKey(s.name), [...(byTitle.get(titleKey(s.name)) ?? []), s]);
  const known = new Map(existing.map((v) => [`${v.date}|${v.serviceType}`, `existing service ${v.id}`]));

  const plan: Plan<ServiceRow> = { create: [], skipped: [], rejected: [] };
  for (const row of table.rows) {
    const problems: string[] = [];
    let when = 0;
    try {
      when = parseServiceDate(row.values[date], zone);
    } catch (err) {
      problems.push(`date ${err instanceof DateFormatError ? err.message : String(err)}`);
    }
    const serviceType = parseServiceType(row.values[type]);
    if (!serviceType) problems.push(`service type '${row.values[type]}' is not one of ${SERVICE_TYPES.join(', ')}`);
    const titles = [
      ...(listColumn ? row.values[listColumn].split(';') : []),
      ...placeColumns.map((c) => row.values[c]),
    ]
      .map((t) => t.trim())
      .filter(Boolean);
    const songIds: number[] = [];
    for (const title of titles) {
      const found = byTitle.get(titleKey(title)) ?? [];
      if (found.length === 0) problems.push(`no song titled '${title}'`);
      else if (found.length > 1) problems.push(`'${title}' is ambiguous: songs ${found.map((s) => s.id).join(', ')}`);
      else if (songIds.includes(found[0].id)) problems.push(`'${title}' is listed twice`);
      else songIds.push(found[0].id);
    }
    if (problems.length) {
      plan.rejected.push({ line: row.line, reason: problems.join('; ') });
      continue;
    }
    const key = `${when}|${serviceType}`;
    const duplicate = known.get(key);
    if (duplicate) {
      plan.skipped.push({ line: row.line, reason: `${row.values[date]} ${serviceType} duplicates ${duplicate}` });
      continue;
    }
    known.set(key, `line ${row.line}`);
    plan.create.push({
      line: row.line,
      input: { service: { date: when, serviceType: serviceType! }, songIds },
      what: `${row.values[date]} ${serviceType} with ${songIds.length} song${songIds.length === 1 ? '' : 's'}`,
    });
  }
  return plan;
}
