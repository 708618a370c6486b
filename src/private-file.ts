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

/**
 * Create `file` (mode 0600) holding `data`, unless it already exists. Atomic: the data is written
 * to a temporary file first and then hard-linked into place, which fails if the name is taken, so
 * a reader never sees half a file and of two processes racing to create it exactly one wins.
 * Returns whether this call created it.
 */
export function createPrivateFileOnce(file: string, data: string): boolean {
  const partial = `${file}.${process.pid}.tmp`;
  fs.rmSync(partial, { force: true });
  createPrivateFile(partial);
  try {
    fs.writeFileSync(partial, data);
    fs.linkSync(partial, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(partial, { force: true });
  }
}
