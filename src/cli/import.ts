/**
 * Bring a catalogue in from a spreadsheet or another planning tool's CSV export.
 *
 *   npm run import -- songs.csv [--dry-run] [--skip-invalid] [--batch-size 500] [--artist-separators ';|,']
 *   npm run import -- --services services.csv [--dry-run] [--skip-invalid]
 *
 * Songs: a header row with `Title` or `Name`, and optionally `Author`, `Artist` or `Artists`
 * (several names split on `;`, `|` and `,`, never on `&` or "and", which join the names of one
 * act; --artist-separators chooses others), `CCLI Number`, `CCLI #` or `CCLI`, and `Copyright`
 * (Planning Center's and SongSelect's names too). A row that matches a stored song
 * (src/domain/song-match.ts) adds what that song lacks instead of creating another.
 * Services: `date`, `serviceType` and the setlist in order (`songs`, separated by `;`, or columns
 * `Song 1`, `Song 2`, ...), each song by title, CCLI number or `id:N`. Writes to the configured store (STORE, SQLITE_PATH,
 * NEO4J_*), also while the service runs. docs/operations.md has the details.
 */
import { loadEnvFile } from '../env-file';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { MalformedFileError } from '../import/csv';
import { importFile, type ImportKind, type ImportSummary } from '../import/run';
import { checkArtistSeparators, DEFAULT_ARTIST_SEPARATORS } from '../import/songs';
import { createStore } from '../store';

export const USAGE = `usage: npm run import -- FILE.csv [--services] [--dry-run] [--update] [--skip-invalid] [--batch-size N] [--artist-separators CHARS]
  FILE.csv         songs (Title|Song Title|Name, Author|Authors|Artist|Artists, CCLI Number|CCLI #|Song Number|CCLI, Copyright),
                   or with --services: date, serviceType, songs (by title, CCLI number or id:N)
                   a song row matching a stored song (CCLI number, else title) adds what the song lacks
  --dry-run        list every row as create, match, update, ambiguous or reject; write nothing (exit 0 unless the file cannot be read)
  --update         replace a matched song's copyright when the row's differs (by default the stored one is kept)
  --skip-invalid   import the valid rows even if some are rejected (default: a rejected row stops the import)
  --batch-size N   rows per transaction (default 500)
  --artist-separators CHARS
                   characters that separate names in the artists column (default '${DEFAULT_ARTIST_SEPARATORS}'; never & or "and")`;

class UsageError extends Error {}

function parse(argv: string[]) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      services: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      update: { type: 'boolean', default: false },
      'skip-invalid': { type: 'boolean', default: false },
      'batch-size': { type: 'string', default: '500' },
      'artist-separators': { type: 'string', default: DEFAULT_ARTIST_SEPARATORS },
    },
  });
  if (positionals.length !== 1) throw new UsageError('give exactly one CSV file');
  const batchSize = Number(values['batch-size']);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000) throw new UsageError('--batch-size must be 1 to 10000');
  const artistSeparators = values['artist-separators']!;
  const bad = checkArtistSeparators(artistSeparators);
  if (bad) throw new UsageError(`--artist-separators: ${bad}`);
  return {
    file: positionals[0],
    kind: (values.services ? 'services' : 'songs') as ImportKind,
    dryRun: values['dry-run']!,
    update: values.update!,
    skipInvalid: values['skip-invalid']!,
    batchSize,
    artistSeparators,
  };
}

export function formatSummary(kind: ImportKind, file: string, s: ImportSummary, skipInvalid = false): string[] {
  const dry = s.heldBack === 'dry-run';
  const lines = [`${file}: ${s.rows} rows`];
  lines.push(`${dry ? 'would create' : 'created'} ${s.created} ${kind}`);
  for (const r of s.toCreate ?? []) lines.push(`  line ${r.line}: ${r.what}`);
  if (kind === 'songs') {
    lines.push(`${dry ? 'would update' : 'updated'} ${s.updated.length} (matched a stored song, which gains what the row adds)`);
    for (const r of s.updated) lines.push(`  line ${r.line}: ${r.what}`);
  }
  lines.push(`${dry ? 'would skip' : 'skipped'} ${s.skipped.length} (already there)`);
  for (const r of s.skipped) lines.push(`  line ${r.line}: ${r.reason}`);
  if (kind === 'songs') {
    lines.push(`ambiguous ${s.ambiguous.length} (nothing written for these rows)`);
    for (const r of s.ambiguous) lines.push(`  line ${r.line}: ${r.reason}`);
  }
  lines.push(`${dry ? 'would reject' : 'rejected'} ${s.rejected.length}`);
  for (const r of s.rejected) lines.push(`  line ${r.line}: ${r.reason}`);
  if (s.heldBack === 'rejected') {
    lines.push(`nothing written: fix the rejected rows, or pass --skip-invalid to import the others`);
  } else if (dry) {
    // What the same command without --dry-run would do with rejected rows.
    if (s.rejected.length > 0 && !skipInvalid) {
      lines.push('dry run: nothing written; as it is, the import would write nothing until the rejected rows are fixed (or --skip-invalid)');
    } else lines.push('dry run: nothing written');
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
    // A dry run writes nothing, not even a new empty database: a SQLite file that does not exist
    // yet holds no songs, which an empty store in memory says as well.
    const missing = opts.dryRun && config.store === 'sqlite' && config.sqlitePath !== ':memory:' && !fs.existsSync(config.sqlitePath);
    const store = await createStore(missing ? { ...config, sqlitePath: ':memory:' } : config);
    try {
      const summary = await importFile(store, {
        ...opts,
        clock: { zone: config.serviceTimeZone, times: config.serviceTimes },
        progress: { stream: process.stderr },
      });
      for (const line of formatSummary(opts.kind, opts.file, summary, opts.skipInvalid)) console.log(line);
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
  loadEnvFile();
  void main().then((code) => process.exit(code));
}
