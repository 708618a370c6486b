import type { Request } from 'express';
import { stringify } from 'csv-stringify/sync';
import { DateTime } from 'luxon';
import { parseWindow } from '../domain/analytics/window';
import { AppError } from '../errors';
import type { ServiceType } from '../generated/graphql';
import type { SongUsageRecord } from '../store/analytics-types';

/**
 * True when a route that can answer CSV is asked for it: `format=csv`, or an Accept header that
 * prefers text/csv to JSON. `format=json` forces JSON.
 */
export function wantsCsv(req: Request): boolean {
  const format = req.query.format;
  if (format !== undefined) {
    if (format === 'csv') return true;
    if (format === 'json') return false;
    throw new AppError('BAD_REQUEST', "format must be 'csv' or 'json'");
  }
  return req.accepts(['application/json', 'text/csv']) === 'text/csv';
}

const localDay = (ms: number | null, zone: string) => (ms === null ? '' : DateTime.fromMillis(ms, { zone }).toISODate());

/** `song-usage_2024-01-01_2024-03-31.csv`, `song-usage_all-time.csv`, `song-usage_from_2024-01-01.csv`. */
function fileName(values: Record<string, unknown>, zone: string): string {
  const w = parseWindow(values as { from?: string; to?: string }, zone);
  const [from, to] = [localDay(w.from, zone), localDay(w.to, zone)];
  const span = from && to ? `${from}_${to}` : from ? `from_${from}` : to ? `until_${to}` : 'all-time';
  return `song-usage_${span}.csv`;
}

/**
 * Cells a spreadsheet would read as a formula (OWASP, CSV injection): those starting with `=`,
 * `+`, `-`, `@`, a tab or a carriage return, and the full-width forms of the first four, which
 * some spreadsheets normalise. Song names, artists and copyright lines are written by any
 * signed-in user, and this file is opened by an administrator.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * csv-stringify's `escape_formulas` prefixes such a cell with a single quote (the same set of
 * characters as FORMULA_START); OWASP also asks for the cell to be quoted, which `quoted_match`
 * does. The JSON answer is never touched: this is only how the CSV spells the value.
 */
const NEUTRALISE_FORMULAS = { escape_formulas: true, quoted_match: FORMULA_START } as const;

/**
 * The usage report as CSV: a header row, then one row per song; dates as local YYYY-MM-DD days
 * in SERVICE_TIME_ZONE; one column per service type of the filter. csv-stringify does the quoting
 * and neutralises formulas.
 */
export function songUsageCsv(rows: SongUsageRecord[], values: Record<string, unknown>, zone: string) {
  const types: ServiceType[] = rows[0]?.byServiceType.map((t) => t.serviceType) ??
    parseWindow({ serviceTypes: values.serviceTypes as ServiceType[] | undefined }, zone).serviceTypes;
  const body = stringify([
    ['id', 'title', 'artists', 'timesSung', 'firstSung', 'lastSung', ...types],
    ...rows.map((r) => [
      r.song.id,
      r.song.name,
      r.song.artists.join('; '),
      r.timesSung,
      localDay(r.firstSung, zone),
      localDay(r.lastSung, zone),
      ...r.byServiceType.map((t) => t.timesSung),
    ]),
  ], NEUTRALISE_FORMULAS);
  return { fileName: fileName(values, zone), body };
}
