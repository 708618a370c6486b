#!/usr/bin/env node
/**
 * `npm start`'s build step: compile src/ into dist/ (npm run build) only when something it is
 * compiled from changed since the last build, so a start with nothing to rebuild takes no compile.
 * "Changed" is by modification time: any file or folder under src/ (a folder's time changes when
 * a file in it is added or removed), the tsconfig files or package.json newer than the time the
 * last successful build recorded in dist/.build-stamp.
 *
 *   node scripts/build-if-stale.mjs [root]     (root: the project folder, by default this one's)
 *
 * Plain JavaScript, so that deciding costs no TypeScript loader.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(process.argv[2] ?? HERE);
const stamp = path.join(root, 'dist', '.build-stamp');

function newest(entry) {
  const stat = fs.statSync(entry);
  let latest = stat.mtimeMs;
  if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

const sources = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => path.join(root, p)).filter((p) => fs.existsSync(p));
const changed = Math.max(...sources.map(newest));
// The stamp holds the newest source time the last build compiled from (written, not its own mtime,
// which filesystems round).
const built = fs.existsSync(stamp) ? Number(fs.readFileSync(stamp, 'utf8')) || -Infinity : -Infinity;

if (built >= changed && fs.existsSync(path.join(root, 'dist', 'main.js'))) {
  console.error(`build: dist/ is up to date with src/ (built ${new Date(built).toISOString()})`);
  process.exit(0);
}
console.error('build: src/ changed since the last build; compiling into dist/');
const tsc = path.join(HERE, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);
// The sources' time from before the compile, so an edit made while it ran is not missed.
fs.mkdirSync(path.dirname(stamp), { recursive: true });
fs.writeFileSync(stamp, String(changed));
