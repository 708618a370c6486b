import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/store';
import { freePort, listening, logRecords, run, type Run } from '../helpers/process';
import { tempDbPath } from '../helpers/server';

/**
 * The real process (src/main.ts under tsx) being stopped and failing to start: a
 * request in flight survives SIGTERM, and each common startup failure is one line saying what to do.
 */

const JWT_SECRET = 'lifecycle-test-jwt-secret-0123456789-abc';

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A raw HTTP/1.1 connection, so a request can be left half-sent and others pipelined after it. */
async function rawConnection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (d) => (received += d.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => received, closed };
}

async function connectionRefused(port: number): Promise<string> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve('connected');
    });
    c.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

const QUERY = JSON.stringify({ query: '{ songs { id name } }' });
const slowRequestHead = (port: number) =>
  `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
  `Content-Length: ${Buffer.byteLength(QUERY)}\r\nX-Request-Id: slow-one\r\n\r\n`;

describe('graceful shutdown', () => {
  let r: Run | undefined;
  afterEach(() => {
    r?.child.kill('SIGKILL');
  });

  async function started(env: Record<string, string> = {}) {
    const port = await freePort();
    r = run({ PORT: String(port), SQLITE_PATH: tempDbPath(), LOG_LEVEL: 'info', JWT_SECRET, ...env });
    await listening(r);
    return { port, r };
  }

  test('on SIGTERM: readiness fails, new connections are refused, the request in flight completes, exit 0', async () => {
    const { port, r } = await started();
    const conn = await rawConnection(port);
    // Half the body: the request is in progress (its handler waits for the rest).
    conn.socket.write(slowRequestHead(port) + QUERY.slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 300));

    r.child.kill('SIGTERM');
    await waitFor('the shutdown log line', () => r.output.stdout.includes('"msg":"shutting down"'));
    expect(await connectionRefused(port)).toBe('ECONNREFUSED');

    // The rest of the body, and a readiness probe pipelined on the same (still open) connection.
    conn.socket.write(QUERY.slice(10) + `GET /readyz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await conn.closed;
    const answers = conn.received().split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answers[0]).toContain('{"data":{"songs":[]}}');
    expect(answers[1]).toMatch(/^HTTP\/1\.1 503 /);
    expect(answers[1]).toContain('"status":"shutting-down"');
    expect(answers[1]).toMatch(/connection: close/i);

    expect(await r.exit).toEqual({ code: 0, signal: null });
    const records = logRecords(r.output.stdout);
    const messages = records.map((l) => l.msg);
    expect(messages.indexOf('shutting down')).toBeLessThan(messages.indexOf('stopped: store closed'));
    expect(records.find((l) => l.reqId === 'slow-one')).toMatchObject({ res: { status: 200 }, route: '/graphql' });
    expect(r.output.stderr).toBe('');
  }, 30_000);

  test('cuts off a request that outlives SHUTDOWN_TIMEOUT_SECONDS, still closes the store and exits 0', async () => {
    const { port, r } = await started({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const conn = await rawConnection(port);
    conn.socket.write(slowRequestHead(port) + QUERY.slice(0, 10)); // and never the rest
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalled = Date.now();
    r.child.kill('SIGINT');
    expect(await r.exit).toEqual({ code: 0, signal: null });
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(8_000);
    await conn.closed;
    const messages = logRecords(r.output.stdout).map((l) => l.msg);
    expect(messages).toContain('requests still running at the shutdown timeout were cut off');
    expect(messages).toContain('stopped: store closed');
  }, 30_000);
});

describe('startup failures are one line naming the cause and the remedy', () => {
  async function failsWith(env: Record<string, string>, pattern: RegExp) {
    const r = run({ PORT: String(await freePort()), SQLITE_PATH: tempDbPath(), LOG_LEVEL: 'info', JWT_SECRET, ...env });
    const { code } = await r.exit;
    expect(code).toBe(1);
    const lines = r.output.stderr.trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(pattern)]);
  }

  test('a busy port', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as net.AddressInfo;
    try {
      await failsWith(
        { PORT: String(port), HOST: '127.0.0.1' },
        new RegExp(`^Startup failed: Port ${port} is already in use \\(127\\.0\\.0\\.1:${port}\\): stop the other process or set PORT`),
      );
    } finally {
      blocker.close();
    }
  }, 20_000);

  test('a database directory that cannot be created or written', async () => {
    const dir = path.dirname(tempDbPath());
    let target: string;
    if (process.getuid?.() === 0) {
      // root ignores permission bits: a regular file where the directory should be fails alike.
      fs.writeFileSync(path.join(dir, 'not-a-dir'), '');
      target = path.join(dir, 'not-a-dir', 'songs.db');
    } else {
      fs.chmodSync(dir, 0o500);
      target = path.join(dir, 'sub', 'songs.db');
    }
    await failsWith(
      { SQLITE_PATH: target },
      /^Startup failed: Cannot open the SQLite database .*songs\.db \((EEXIST|ENOTDIR|EACCES)\): the directory .* must exist or be creatable, and be writable by this user; .*SQLITE_PATH/,
    );
  }, 20_000);

  test('a database file from a newer release', async () => {
    const file = tempDbPath();
    await new SqliteStore(file).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_migrations (version, description, applied_at) VALUES (99, 'future', '2030-01-01')").run();
    db.close();
    await failsWith(
      { SQLITE_PATH: file },
      /^Startup failed: The database has schema version 99, newer than this release knows \(\d+\): run the release that wrote it, or restore a backup/,
    );
  }, 20_000);
});
