import { CsvError, parse } from 'csv-parse/sync';

/** A file that cannot be read as CSV at all: the whole import stops before writing anything. */
export class MalformedFileError extends Error {}

export interface CsvRow {
  /** Line of the file where the record ends (a quoted field may span lines). */
  line: number;
  /** By lower-cased, trimmed header name. */
  values: Record<string, string>;
}

export interface CsvTable {
  headers: string[];
  rows: CsvRow[];
}

/** Header names compare case-insensitively and ignore surrounding spaces. */
export const headerKey = (name: string) => name.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * Parse CSV with a header row (csv-parse): a UTF-8 BOM is dropped, blank lines are skipped, every
 * record must have as many fields as the header. Any syntax problem is a MalformedFileError
 * naming the line.
 */
export function readCsv(text: string): CsvTable {
  let headers: string[] = [];
  try {
    const records = parse(text, {
      bom: true,
      columns: (header: string[]) => {
        headers = header.map(headerKey);
        const repeated = headers.find((h, i) => h !== '' && headers.indexOf(h) !== i);
        if (repeated) throw new MalformedFileError(`the header names the column '${repeated}' twice`);
        return headers;
      },
      info: true,
      skip_empty_lines: true,
      trim: true,
    }) as { info: { lines: number }; record: Record<string, string> }[];
    return { headers, rows: records.map((r) => ({ line: r.info.lines, values: r.record })) };
  } catch (err) {
    if (err instanceof MalformedFileError) throw err;
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      throw new MalformedFileError(`not valid CSV${line ? ` at line ${line}` : ''}: ${err.message.replace(/^Invalid[^:]*:\s*/, '')}`);
    }
    throw err;
  }
}

/** The first of `names` that the header has. */
export function findColumn(headers: string[], names: readonly string[]): string | undefined {
  return names.find((n) => headers.includes(n));
}
