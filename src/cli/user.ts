/**
 * Operators' account tool, working directly on the configured store (STORE, SQLITE_PATH, NEO4J_*).
 *
 *   npm run user -- list
 *   npm run user -- create --username alice [--role ADMIN|USER]
 *   npm run user -- reset-password --username alice
 *   npm run user -- set-role --username alice --role ADMIN
 *   npm run user -- delete --username alice
 *
 * Passwords come from the USER_PASSWORD environment variable or standard input (typed without
 * echo on a terminal, or piped), never from the command line, where `ps` and shell history see them.
 */
import { loadEnvFile } from '../env-file';
import { parseArgs } from 'node:util';
import { hashPassword } from '../auth/passwords';
import { ConfigError, loadConfig } from '../config';
import { rules, validate } from '../domain/validation';
import { AppError } from '../errors';
import type { Role } from '../generated/graphql';
import { createStore } from '../store';
import type { Store } from '../store/types';

const USAGE = `usage: npm run user -- <list|create|reset-password|set-role|delete> [--username NAME] [--role ADMIN|USER]
password: from USER_PASSWORD or standard input, never from arguments`;

class UsageError extends Error {}

async function readPassword(): Promise<string> {
  if (process.env.USER_PASSWORD) return process.env.USER_PASSWORD;
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  }
  process.stderr.write('Password: ');
  stdin.setRawMode(true);
  stdin.resume();
  let password = '';
  return new Promise((resolve, reject) => {
    stdin.on('data', (data: Buffer) => {
      for (const ch of data.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          return resolve(password);
        }
        if (ch === '\u0003') return reject(new UsageError('cancelled'));
        password = ch === '\u007f' ? password.slice(0, -1) : password + ch;
      }
    });
  });
}

function describe(err: unknown): string {
  if (err instanceof AppError && err.details) return err.details.map((d) => `${d.field} ${d.message}`).join('; ');
  return err instanceof Error ? err.message : String(err);
}

async function findUser(store: Store, username: string | undefined) {
  if (!username) throw new UsageError('--username is required');
  const user = await store.credentialsByUsername(username);
  if (!user) throw new UsageError(`no user named '${username}'`);
  return user;
}

function parseRole(role: string | undefined, fallback?: Role): Role {
  if (role === undefined && fallback) return fallback;
  if (role !== 'ADMIN' && role !== 'USER') throw new UsageError('--role must be ADMIN or USER');
  return role;
}

export async function run(argv: string[], out: (line: string) => void): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { username: { type: 'string' }, role: { type: 'string' } },
  });
  const command = positionals[0];
  const config = loadConfig();
  const store = await createStore(config);
  try {
    switch (command) {
      case 'list':
        for (const u of await store.listUsers()) out(`${u.id}\t${u.username}\t${u.role}`);
        return;
      case 'create': {
        const role = parseRole(values.role, 'USER');
        const username = values.username ?? '';
        const password = await readPassword();
        validate(rules.createUser, { username, password });
        const user = await store.createUser({ username, passwordHash: await hashPassword(password), role });
        if (!user) throw new UsageError(`the username '${username}' is taken`);
        out(`created user ${user.id} '${user.username}' (${user.role})`);
        return;
      }
      case 'reset-password': {
        const user = await findUser(store, values.username);
        const password = await readPassword();
        validate(rules.updateUser, { password });
        await store.updateUser(user.id, { passwordHash: await hashPassword(password) });
        out(`password of '${user.username}' changed; its existing tokens no longer work`);
        return;
      }
      case 'set-role': {
        const user = await findUser(store, values.username);
        const result = await store.updateUser(user.id, { role: parseRole(values.role) });
        if (result === 'last-admin') throw new UsageError('the last ADMIN cannot be demoted');
        out(`'${user.username}' is now ${values.role}`);
        return;
      }
      case 'delete': {
        const user = await findUser(store, values.username);
        const result = await store.deleteUser(user.id);
        if (result === 'last-admin') throw new UsageError('the last ADMIN cannot be deleted');
        out(`deleted '${user.username}'`);
        return;
      }
      default:
        throw new UsageError(USAGE);
    }
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  loadEnvFile();
  run(process.argv.slice(2), (line) => console.log(line)).catch((err) => {
    const known = err instanceof UsageError || err instanceof ConfigError || err instanceof AppError;
    console.error(known ? describe(err) : `failed: ${describe(err)}`);
    process.exit(err instanceof UsageError && err.message === USAGE ? 2 : 1);
  });
}
