/**
 * What the Neo4j store does when no Neo4j answers, checked with the real driver (no server
 * needed): calls fail with StoreUnavailableError (503 UNAVAILABLE) within a bounded time instead
 * of hanging, and startup waits with bounded retries and says so.
 */
import net from 'node:net';
import { StoreUnavailableError } from '../../src/errors';
import { connectNeo4j } from '../../src/store/neo4j/connect';
import { NEO4J_TIMEOUTS, createNeo4jDriver } from '../../src/store/neo4j/driver';
import { Neo4jStore } from '../../src/store/neo4j/store';

/** A port nothing listens on: bind an ephemeral one, then release it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A server that accepts connections and never answers: a hung or firewalled database. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const PASSWORD = 'not-a-real-password-123';

async function timed(promise: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await promise;
    return { error: undefined, ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
}

describe('Neo4j store without a reachable Neo4j', () => {
  it('answers UNAVAILABLE, with Retry-After, within seconds when the connection is refused (a 2 s retry budget)', async () => {
    const port = await closedPort();
    const store = new Neo4jStore(
      createNeo4jDriver({ uri: `bolt://127.0.0.1:${port}`, user: 'neo4j', password: PASSWORD, maxRetryTimeMs: 2_000 }),
    );
    try {
      const calls: (() => Promise<unknown>)[] = [
        () => store.listSongs({}, {}),
        () => store.createSong({ name: 'x', artists: [] }),
        () => store.ping(),
      ];
      for (const call of calls) {
        const { error, ms } = await timed(call());
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as StoreUnavailableError).code).toBe('UNAVAILABLE');
        expect((error as StoreUnavailableError).retryAfter).toBe(5);
        expect(ms).toBeLessThan(6_000);
      }
    } finally {
      await store.close();
    }
  }, 40_000);

  it('keeps retrying a refused connection for the retry budget (NEO4J_RETRY_SECONDS), and no longer', async () => {
    const port = await closedPort();
    const budget = async (maxRetryTimeMs: number) => {
      const store = new Neo4jStore(createNeo4jDriver({ uri: `bolt://127.0.0.1:${port}`, user: 'neo4j', password: PASSWORD, maxRetryTimeMs }));
      try {
        return await timed(store.songsByIds([1]));
      } finally {
        await store.close();
      }
    };
    // No budget: the first failure (or the one retry already scheduled) is the answer.
    const none = await budget(0);
    expect(none.error).toBeInstanceOf(StoreUnavailableError);
    expect(none.ms).toBeLessThan(2_500);
    // 6 s: retried after about 1, 3 and 7 s (the driver doubles its wait, with 20% jitter) until
    // the budget is spent. The driver schedules a retry whenever the budget is not yet spent, so
    // the last one can start as late as just under 6 s plus its wait (8 s, up to 9.6 s with
    // jitter): low jitter on the first waits (0.8 + 1.6 + 3.2 s) put a retry at 5.6 s and the
    // answer at 14.9 s in one run. The default, 30 s, is sized for a cluster's leader election.
    const six = await budget(6_000);
    expect(six.error).toBeInstanceOf(StoreUnavailableError);
    expect(six.ms).toBeGreaterThanOrEqual(5_000);
    expect(six.ms).toBeLessThan(6_000 + 9_600 + 1_000);
    expect(NEO4J_TIMEOUTS.maxRetryTimeMs).toBe(30_000);
  }, 40_000);

  it('answers UNAVAILABLE instead of hanging when the server accepts but never answers', async () => {
    const server = await silentServer();
    const store = new Neo4jStore(
      createNeo4jDriver({ uri: `bolt://127.0.0.1:${server.port}`, user: 'neo4j', password: PASSWORD }),
    );
    try {
      const { error, ms } = await timed(store.songsByIds([1, 2]));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(ms).toBeLessThan(8_000);
    } finally {
      await store.close();
      await server.close();
    }
  }, 40_000);

  it('waits at startup with bounded retries, logging each wait without the password, then fails clearly', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    const { error } = await timed(
      connectNeo4j({ uri: `bolt://127.0.0.1:${port}`, user: 'neo4j', password: PASSWORD }, log, {
        attempts: 3,
        initialDelayMs: 10,
        maxDelayMs: 20,
      }),
    );
    expect((error as Error).message).toMatch(new RegExp(`^Cannot use Neo4j at bolt://127\\.0\\.0\\.1:${port} after 3 attempts: `));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^Waiting for Neo4j at bolt://127\\.0\\.0\\.1:${port}: attempt 1/3 failed \\(.+\\); retrying in 10 ms$`));
    expect(lines[1]).toContain('attempt 2/3 failed');
    expect([...lines, (error as Error).message].join('\n')).not.toContain(PASSWORD);
  }, 40_000);
});
