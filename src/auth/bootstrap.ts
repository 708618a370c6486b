import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { rules, validate } from '../domain/validation';
import { AppError } from '../errors';
import type { Store } from '../store/types';
import { hashPassword } from './passwords';

/**
 * Create the ADMIN named by ADMIN_USERNAME/ADMIN_PASSWORD when no user of that name exists.
 * Idempotent, and it never touches an existing user: changing a password is `npm run user`'s job.
 * Without ADMIN_PASSWORD a password is generated (120 random bits) and returned, for the caller
 * to show once; it is never logged.
 */
export async function ensureAdmin(
  store: Store,
  given: { username: string; password?: string },
  log: Logger,
): Promise<{ generatedPassword?: string }> {
  if (await store.credentialsByUsername(given.username)) return {};
  const generatedPassword = given.password === undefined ? crypto.randomBytes(15).toString('base64url') : undefined;
  const admin = { username: given.username, password: given.password ?? generatedPassword! };
  try {
    validate(rules.createUser, admin);
  } catch (err) {
    const details = err instanceof AppError ? err.details?.map((d) => `${d.field} ${d.message}`).join('; ') : '';
    throw new Error(`ADMIN_USERNAME/ADMIN_PASSWORD are not a valid account: ${details}`);
  }
  const user = await store.createUser({
    username: admin.username,
    passwordHash: await hashPassword(admin.password),
    role: 'ADMIN',
  });
  // null: another process created it between our check and insert; that is the goal anyway.
  if (!user) return {};
  log.info({ userId: user.id, username: user.username, passwordGenerated: generatedPassword !== undefined }, 'created the ADMIN user from ADMIN_USERNAME');
  return { generatedPassword };
}
