import fs from 'node:fs';
import path from 'node:path';

/** Backups and snapshots hold password hashes: only their owner may read them. */
export const PRIVATE_MODE = 0o600;

/**
 * A new, empty file readable by its owner only, ready to be filled, whatever the umask. Refuses to
 * replace an existing file.
 */
export function createPrivateFile(file: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.closeSync(fs.openSync(file, 'wx', PRIVATE_MODE));
  fs.chmodSync(file, PRIVATE_MODE);
}

/** Write `data` to `file` (mode 0600) through a temporary file, so a crash never leaves half a file. */
export function writePrivateFile(file: string, data: string): void {
  const partial = `${file}.tmp`;
  fs.rmSync(partial, { force: true });
  createPrivateFile(partial);
  fs.writeFileSync(partial, data);
  fs.renameSync(partial, file);
}
