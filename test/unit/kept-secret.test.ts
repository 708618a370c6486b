import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keptJwtSecret } from '../../src/auth/kept-secret';
import { ConfigError, loadConfig } from '../../src/config';
import { StartupError } from '../../src/startup-errors';

/**
 * The JWT secret a service started without JWT_SECRET keeps in its data directory, so a restart
 * does not log everyone out. test/service/process.e2e.test.ts restarts the real process on it.
 */

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kept-secret-'));
const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe('keptJwtSecret', () => {
  it('makes a long random secret once, owner-only whatever the umask, and reads the same one after', () => {
    const file = path.join(tempDir(), 'nested', 'jwt-secret');
    const old = process.umask(0o022);
    let first;
    try {
      first = keptJwtSecret(file);
    } finally {
      process.umask(old);
    }
    expect(first).toMatchObject({ file, created: true, looseMode: false });
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    expect(modeOf(file)).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe(first.secret);
    // Nothing else beside it: the temporary file it was written through is gone.
    expect(fs.readdirSync(path.dirname(file))).toEqual(['jwt-secret']);

    const again = keptJwtSecret(file);
    expect(again).toEqual({ ...first, created: false });
    expect(keptJwtSecret(path.join(tempDir(), 'jwt-secret')).secret).not.toBe(first.secret);
  });

  it('keeps a secret an operator put there (one trailing newline or not), and says when others can read it', () => {
    const file = path.join(tempDir(), 'jwt-secret');
    const secret = 'an-operator-chosen-secret-of-40-characters';
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    expect(keptJwtSecret(file)).toEqual({ secret, file, created: false, looseMode: true });
  });

  it('refuses a kept secret that is too short, naming the file and never its content', () => {
    const file = path.join(tempDir(), 'jwt-secret');
    fs.writeFileSync(file, 'short-secret-x1', { mode: 0o600 });
    expect(() => keptJwtSecret(file)).toThrow(StartupError);
    expect(() => keptJwtSecret(file)).toThrow(`The kept JWT secret ${file} holds fewer than 32 characters`);
    expect(() => keptJwtSecret(file)).not.toThrow(/short-secret-x1/);
    fs.writeFileSync(file, '');
    expect(() => keptJwtSecret(file)).toThrow(/fewer than 32 characters: delete it/);
  });

  it('says where and what to do when the directory cannot hold it', () => {
    const blocker = path.join(tempDir(), 'a-file');
    fs.writeFileSync(blocker, 'not a directory');
    const file = path.join(blocker, 'jwt-secret');
    expect(() => keptJwtSecret(file)).toThrow(StartupError);
    expect(() => keptJwtSecret(file)).toThrow(/^Cannot keep a generated JWT secret in .*a-file\/jwt-secret \((ENOTDIR|EEXIST)\): .*set DATA_DIR .*or set JWT_SECRET$/);
  });
});

describe('where the configuration keeps a generated secret', () => {
  const JWT_SECRET = 'a-secret-given-in-the-environment-0123456789';

  it.each<[string, Record<string, string>, string | undefined]>([
    ['beside the default SQLite file', {}, path.join('data', 'jwt-secret')],
    ['beside a configured SQLite file', { SQLITE_PATH: '/srv/worship/songs.db' }, '/srv/worship/jwt-secret'],
    ['in DATA_DIR when it is set', { SQLITE_PATH: '/srv/worship/songs.db', DATA_DIR: '/var/lib/worship' }, '/var/lib/worship/jwt-secret'],
    ['in ./data with Neo4j', { STORE: 'neo4j', NEO4J_URI: 'bolt://db:7687' }, path.join('data', 'jwt-secret')],
    ['in DATA_DIR with Neo4j', { STORE: 'neo4j', NEO4J_URI: 'bolt://db:7687', DATA_DIR: '/var/lib/worship' }, '/var/lib/worship/jwt-secret'],
    ['nowhere for an in-memory store (its users end with the process)', { SQLITE_PATH: ':memory:' }, undefined],
    ['in DATA_DIR for an in-memory store when it is set', { SQLITE_PATH: ':memory:', DATA_DIR: '/var/lib/worship' }, '/var/lib/worship/jwt-secret'],
    ['nowhere when JWT_SECRET is given', { JWT_SECRET }, undefined],
  ])('%s', (_label, env, expected) => {
    const config = loadConfig(env);
    expect(config.jwtSecretFile).toBe(expected);
    expect(config.jwtSecretGenerated).toBe(env.JWT_SECRET === undefined);
  });

  it('still requires JWT_SECRET in production, even with a kept secret in the data directory', () => {
    const dir = tempDir();
    keptJwtSecret(path.join(dir, 'jwt-secret'));
    const env = { NODE_ENV: 'production', SQLITE_PATH: path.join(dir, 'songs.db') };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(/JWT_SECRET is required when NODE_ENV=production/);
  });
});
