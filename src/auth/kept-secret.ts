import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createPrivateFileOnce } from '../private-file';
import { StartupError } from '../startup-errors';

/** The least a JWT_SECRET may be (src/config.ts); a kept secret meets the same rule. */
const MIN_LENGTH = 32;

export interface KeptSecret {
  secret: string;
  file: string;
  /** Made by this start (otherwise read from an earlier one). */
  created: boolean;
  /** The file is readable or writable by others than its owner. */
  looseMode: boolean;
}

/**
 * The JWT signing secret of a service started without JWT_SECRET: generated once and kept in
 * `file` (mode 0600), so a restart keeps every token valid instead of logging everyone out. A
 * file that cannot be read or holds too short a secret stops startup with a message naming the
 * file (never its content) and the remedy.
 */
export function keptJwtSecret(file: string): KeptSecret {
  const where = path.resolve(file);
  let created = false;
  try {
    created = createPrivateFileOnce(where, crypto.randomBytes(48).toString('base64url'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new StartupError(
      `Cannot keep a generated JWT secret in ${where} (${code}): make ${path.dirname(where)} writable, ` +
        'set DATA_DIR to a writable directory, or set JWT_SECRET',
    );
  }
  let secret: string;
  try {
    // As with JWT_SECRET_FILE: one trailing newline (an editor's, or echo's) is not part of it.
    secret = fs.readFileSync(where, 'utf8').replace(/\r?\n$/, '');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new StartupError(`Cannot read the kept JWT secret ${where} (${code}): fix its permissions, or set JWT_SECRET`);
  }
  if (secret.length < MIN_LENGTH) {
    throw new StartupError(
      `The kept JWT secret ${where} holds fewer than ${MIN_LENGTH} characters: delete it to have a new one made ` +
        '(every token issued with it then ends), or set JWT_SECRET',
    );
  }
  const looseMode = (fs.statSync(where).mode & 0o077) !== 0;
  return { secret, file: where, created, looseMode };
}
