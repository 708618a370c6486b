import path from 'node:path';
import type { Config } from './config';

/** A startup failure whose message is the whole story: what went wrong and what to do. */
export class StartupError extends Error {}

export function listenError(err: Error, config: Pick<Config, 'port' | 'host'>): Error {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') {
    return new StartupError(`Port ${config.port} is already in use (${where}): stop the other process or set PORT to a free port`);
  }
  if (code === 'EACCES') {
    return new StartupError(`Not allowed to listen on ${where}: ports below 1024 need privileges; set PORT to 1024 or above`);
  }
  if (code === 'EADDRNOTAVAIL') {
    return new StartupError(`HOST ${config.host} is not an address of this machine: set HOST to one of its addresses or 0.0.0.0`);
  }
  return err;
}

const FILE_PROBLEMS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM']);

/**
 * Opening the SQLite file failed: say which directory and how to fix it, instead of SQLite's
 * "unable to open database file".
 */
export function sqliteOpenError(err: unknown, file: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (!code || !FILE_PROBLEMS.has(code)) return err as Error;
  const dir = path.dirname(path.resolve(file));
  return new StartupError(
    `Cannot open the SQLite database ${path.resolve(file)} (${code}): the directory ${dir} must exist or be creatable, ` +
      'and be writable by this user; fix its permissions or set SQLITE_PATH to a writable location',
  );
}
