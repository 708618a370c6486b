/**
 * Bring a catalogue in from a spreadsheet or another planning tool's CSV export.
 *
 *   npm run import -- songs.csv [--dry-run] [--skip-invalid] [--batch-size 500]
 *   npm run import -- --services services.csv [--dry-run] [--skip-invalid]
 *
 * Songs: a header row with `Title` or `Name`, and optionally `Author`, `Artist` or `Artists`
 * (several names split on `;`, `,`, `&` and ` and `). Services: `date`, `serviceType` and the
 * setlist as song titles in order (`songs`, separated by `;`, or columns `Song 1`, `Song 2`, ...).
 * Writes to the configured store (STORE, SQLITE_PATH, NEO4J_*), also while the service runs.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { MalformedFileError } from '../import/csv';
import { importFile, type ImportKind, type ImportSummary } from '../import/run';
import { createStore } from '../store';

export const USAGE = `usage: npm run import -- FILE.csv [--services] [--dry-run] [--skip-invalid] [--batch-size N]
  FILE.csv         songs (Title|Name, Author|Artist|Artists), or with --services: date, serviceType, songs
  --dry-run        check and report, write nothing
  --skip-invalid   import the valid rows even if some are rejected (default: a rejected row stops the import)
  --batch-size N   rows per transaction (default 500)`;

class UsageError extends Error {}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      services: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'skip-invalid': { type: 'boolean', default: false },
      'batch-size': { type: 'string', default: '500' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('give exactly one CSV file');
  const batchSize = Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError('--batch-size must be 1 to 10000');
  return {
    file: positionals[0],
    kind: (values.services ? 'services' : 'songs') as ImportKind,
    dryRun: values['dry-run']!,
    skipInvalid: values['skip-invalid']!,
    batchSize,
  };
}

export function formatSummary(kind: ImportKind, file: string, s: ImportSummary): string[] {
  const lines = [`${file}: ${s.rows} rows`];
  const verb = s.heldBack === 'dry-run' ? 'would create' : 'created';
  lines.push(`${verb} ${s.created} ${kind}`);
  lines.push(`skipped ${s.skipped.length} (already there)`);
  for (const r of s.skipped) lines.push(`  line ${r.line}: ${r.reason}`);
  lines.push(`rejected ${s.rejected.length}`);
  for (const r of s.rejected) lines.push(`  line ${r.line}: ${r.reason}`);
  if (s.heldBack === 'rejected') {
    lines.push(`nothing written: fix the rejected rows, or pass --skip-invalid to import the others`);
  } else if (s.heldBack === 'dry-run') {
    lines.push('dry run: nothing written');
  }
  return lines;
}

export async function main(argv = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let opts: ReturnType<typeof parse>;
  try {
    opts = parse(argv);
  } catch (err) {
    console.error(`import: ${err instanceof Error ? err.message : String(err)}`);
    console.error(USAGE);
    return 1;
  }
  try {
    const config = loadConfig(env);
    const store = await createStore(config);
    try {
      const summary = await importFile(store, {
        ...opts,
        zone: config.serviceTimeZone,
        progress: { stream: process.stderr },
      });
      for (const line of formatSummary(opts.kind, opts.file, summary)) console.log(line);
      return summary.heldBack === 'rejected' ? 1 : 0;
    } finally {
      await store.close();
    }
  } catch (err) {
    const what = err instanceof MalformedFileError ? `${opts.file}: ${err.message}; nothing written` : err instanceof Error ? err.message : String(err);
    console.error(`import: ${what}`);
    return 1;
  }
}

if (require.main === module) {
  void main().then((code) => process.exit(code));
}
