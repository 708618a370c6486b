import type { Logger } from 'pino';
import { rules, validate } from '../domain/validation';
import { AppError } from '../errors';
import type { Store } from '../store/types';
import { hashPassword } from './passwords';

/**
 * Create the ADMIN named by ADMIN_USERNAME/ADMIN_PASSWORD when no user of that name exists.
 * Idempotent, and it never touches an existing user: changing a password is `npm run user`'s job.
 */
export async function ensureAdmin(store: Store, admin: { username: string; password: string }, log: Logger) {
  if (await store.credentialsByUsername(admin.username)) return;
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
  if (user) log.info({ userId: user.id, username: user.username }, 'created the ADMIN user from ADMIN_USERNAME');
}
