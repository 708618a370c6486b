import type { Request } from 'express';
import { stringify, type Options } from 'csv-stringify/sync';
import { DateTime } from 'luxon';
import { parseWindow } from '../domain/analytics/window';
import { AppError } from '../errors';
import type { ServiceType } from '../generated/graphql';
import type { SongLicensing } from '../domain/licensing';
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
 * How the file is written, for a spreadsheet to open as it is: csv-stringify's `escape_formulas`
 * prefixes a formula cell with a single quote (the same set of characters as FORMULA_START) and
 * `quoted_match` quotes it, as OWASP asks, and every cell holding a line break; records end in
 * CRLF (RFC 4180); and a UTF-8 byte-order mark comes first, without which Excel on Windows reads
 * the file in the system's ANSI code page and garbles every accent ("Ngợi Khen" as "NgÆ°á»£i
 * Khen"). The JSON answer is never touched: this is only how the CSV spells the values.
 */
const CSV_OPTIONS: Options = {
  escape_formulas: true,
  // A bare LF or CR inside a cell is quoted too (RFC 4180): csv-stringify by itself quotes only
  // the record delimiter, CRLF, and a spreadsheet would start a new row at the LF.
  quoted_match: [FORMULA_START, /[\r\n]/],
  record_delimiter: 'windows',
  bom: true,
};

/** A row of the report as the REST facade answers it: the song's licensing details beside it. */
export type SongUsageRow = SongUsageRecord & Partial<SongLicensing>;

/** Headers of the per-type columns, as people call the services. */
export const SERVICE_TYPE_HEADERS: Readonly<Record<ServiceType, string>> = {
  SUN_AM: 'Sunday morning',
  SUN_PM: 'Sunday evening',
  WED: 'Wednesday',
};

interface Column {
  header: string;
  cell: (row: SongUsageRow) => string | number;
}

/**
 * The report's columns, in order, with their headers: the one place they are defined. First what
 * a licensing report files (song, CCLI number, copyright, times sung), then the rest; the
 * service types are those of the filter, in enum order (the order of `byServiceType`).
 */
function columns(types: readonly ServiceType[], zone: string): Column[] {
  return [
    { header: 'Song', cell: (r) => r.song.name },
    { header: 'CCLI #', cell: (r) => r.ccliNumber ?? '' },
    { header: 'Copyright', cell: (r) => r.copyright ?? '' },
    { header: 'Artists', cell: (r) => r.song.artists.join('; ') },
    { header: 'Times sung', cell: (r) => r.timesSung },
    { header: 'First sung', cell: (r) => localDay(r.firstSung, zone) ?? '' },
    { header: 'Last sung', cell: (r) => localDay(r.lastSung, zone) ?? '' },
    ...types.map((type, i): Column => ({ header: SERVICE_TYPE_HEADERS[type], cell: (r) => r.byServiceType[i].timesSung })),
    { header: 'Song ID', cell: (r) => r.song.id },
  ];
}

/**
 * The usage report as CSV (docs/API.md): a header row, then one row per song; dates as local
 * YYYY-MM-DD days in SERVICE_TIME_ZONE. csv-stringify does the quoting and neutralises formulas.
 */
export function songUsageCsv(rows: SongUsageRow[], values: Record<string, unknown>, zone: string) {
  const types: ServiceType[] = rows[0]?.byServiceType.map((t) => t.serviceType) ??
    parseWindow({ serviceTypes: values.serviceTypes as ServiceType[] | undefined }, zone).serviceTypes;
  const cols = columns(types, zone);
  const body = stringify([cols.map((c) => c.header), ...rows.map((r) => cols.map((c) => c.cell(r)))], CSV_OPTIONS);
  return { fileName: fileName(values, zone), body };
}
