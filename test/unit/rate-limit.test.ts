import { parse, type OperationDefinitionNode } from 'graphql';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { ConfigError, loadConfig } from '../../src/config';
import { analyticsFieldsIn } from '../../src/graphql/rate-limit';
import { buildSchema } from '../../src/graphql/schema';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { TokenService } from '../../src/auth/tokens';
import { addressKey, flexibleCounter, RequestRateLimiter, Turns } from '../../src/http/rate-limit';

const BASE = { JWT_SECRET: 'test-secret-that-is-at-least-32-characters-long' };

describe('rate-limit settings', () => {
  test('on by default, with documented defaults; RATE_LIMIT=off turns every limit off', () => {
    expect(loadConfig(BASE).rateLimit).toEqual({ points: 3000, windowSeconds: 60, analyticsWeight: 5, csvWeight: 20 });
    expect(loadConfig({ ...BASE, RATE_LIMIT: 'off' }).rateLimit).toBeUndefined();
    expect(
      loadConfig({
        ...BASE,
        RATE_LIMIT_POINTS: '50',
        RATE_LIMIT_WINDOW_SECONDS: '10',
        RATE_LIMIT_ANALYTICS_WEIGHT: '7',
        RATE_LIMIT_CSV_WEIGHT: '9',
      }).rateLimit,
    ).toEqual({ points: 50, windowSeconds: 10, analyticsWeight: 7, csvWeight: 9 });
  });

  test('bad values stop startup naming the variable', () => {
    expect(() => loadConfig({ ...BASE, RATE_LIMIT: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...BASE, RATE_LIMIT: 'maybe' })).toThrow(/RATE_LIMIT must be 'on' or 'off'/);
    expect(() => loadConfig({ ...BASE, RATE_LIMIT_POINTS: '0' })).toThrow(/RATE_LIMIT_POINTS must be between/);
    expect(() => loadConfig({ ...BASE, RATE_LIMIT_WINDOW_SECONDS: 'x' })).toThrow(/RATE_LIMIT_WINDOW_SECONDS must be a whole number/);
    // A weight over the budget would refuse every such request.
    expect(() => loadConfig({ ...BASE, RATE_LIMIT_POINTS: '10', RATE_LIMIT_CSV_WEIGHT: '11' })).toThrow(
      /RATE_LIMIT_CSV_WEIGHT must not exceed RATE_LIMIT_POINTS/,
    );
    expect(loadConfig({ ...BASE, RATE_LIMIT: 'off', RATE_LIMIT_POINTS: '10', RATE_LIMIT_CSV_WEIGHT: '11' }).rateLimit).toBeUndefined();
  });

  test('TRUST_PROXY=1 trusts one hop (a number for Express), names and addresses pass through', () => {
    expect(loadConfig(BASE).trustProxy).toBe(false);
    expect(loadConfig({ ...BASE, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ...BASE, TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
    expect(loadConfig({ ...BASE, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
  });
});

describe('addressKey: what an address is counted under', () => {
  test.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['unknown', 'unknown'],
  ])('%s -> %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  test('addresses of one /64 share a key; the next /64 does not', () => {
    expect(addressKey('2001:db8:a:b::1')).toBe(addressKey('2001:db8:a:b:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:a:b::1')).not.toBe(addressKey('2001:db8:a:c::1'));
  });
});

describe('flexibleCounter: rate-limiter-flexible behind the PointCounter interface', () => {
  test('charges points until the budget is spent, then refuses with the seconds until the window ends', async () => {
    const counter = flexibleCounter(new RateLimiterMemory({ points: 10, duration: 30 }));
    expect(await counter.consume('a', 4)).toEqual({ allowed: true, limit: 10, remaining: 6, resetSeconds: 30 });
    expect(await counter.consume('a', 6)).toEqual(expect.objectContaining({ allowed: true, remaining: 0 }));
    const refused = await counter.consume('a', 1);
    expect(refused).toEqual(expect.objectContaining({ allowed: false, limit: 10, remaining: 0 }));
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.resetSeconds).toBeLessThanOrEqual(30);
    // Another key has its own budget.
    expect(await counter.consume('b', 10)).toEqual(expect.objectContaining({ allowed: true, remaining: 0 }));
  });

  test('a store failure is an error, not a refusal of the client', async () => {
    const broken = new RateLimiterMemory({ points: 10, duration: 30 });
    broken.consume = () => Promise.reject(new Error('redis down'));
    await expect(flexibleCounter(broken).consume('a', 1)).rejects.toThrow('redis down');
  });
});

describe('Turns: one heavy request per client at a time', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  test("a client's second turn starts only when the first ends; other clients do not wait", async () => {
    const turns = new Turns();
    const log: string[] = [];
    const first = await turns.take('a');
    log.push('a1 started');
    const second = turns.take('a').then((end) => {
      log.push('a2 started');
      return end;
    });
    const other = turns.take('b').then((end) => {
      log.push('b1 started');
      return end;
    });
    for (let i = 0; i < 5; i++) await tick();
    expect(log).toEqual(['a1 started', 'b1 started']);
    expect(turns.size).toBe(2);
    first();
    first(); // ending twice is harmless
    const endSecond = await second;
    expect(log).toEqual(['a1 started', 'b1 started', 'a2 started']);
    endSecond();
    (await other)();
    expect(turns.size).toBe(0);
  });

  test('a turn starts in a later turn of the event loop, after what was already queued there', async () => {
    // The point of Turns: sockets that became readable meanwhile are read before heavy work runs.
    const turns = new Turns();
    const order: string[] = [];
    setImmediate(() => order.push('queued before'));
    const end = await turns.take('a');
    order.push('turn');
    expect(order).toEqual(['queued before', 'turn']);
    end();
  });
});

describe('RequestRateLimiter.chargeHeavy: turns end with the answer', () => {
  test('a request whose connection is lost while it waits gives up its turn', async () => {
    // Over real HTTP, on an app of its own: the server side of the waiting request's connection is
    // destroyed (as a proxy's reset or a shutdown does) before its turn comes.
    const policy = { points: 100, windowSeconds: 60, analyticsWeight: 5, csvWeight: 5 };
    const limiter = RequestRateLimiter.inMemory(policy, new TokenService('t'.repeat(32), '1h'));
    const app = express();
    let waiting: Response | undefined;
    app.use(limiter.middleware((_req, res) => void res.status(429).end()));
    app.get('/heavy/:n', async (req, res) => {
      if (req.params.n === '2') waiting = res;
      if (!(await limiter.chargeHeavy(res, policy.analyticsWeight))) return;
      if (req.params.n === '1') {
        while (!waiting) await new Promise((r) => setTimeout(r, 5));
        waiting.socket?.destroy();
      }
      res.send(`done ${req.params.n}`);
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const [first, second] = await Promise.all([
        fetch(`${base}/heavy/1`).then((r) => r.text()),
        fetch(`${base}/heavy/2`).then(
          (r) => r.text(),
          () => 'lost',
        ),
      ]);
      expect([first, second]).toEqual(['done 1', 'lost']);
      // The same client's next heavy request runs (it would wait forever behind the lost one).
      expect(await (await fetch(`${base}/heavy/3`)).text()).toBe('done 3');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 10_000);
});

describe('analyticsFieldsIn: what a GraphQL operation is charged for', () => {
  const schema = buildSchema();
  const count = (source: string, operationName?: string) => {
    const document = parse(source);
    const operation = document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition' && (!operationName || d.name?.value === operationName),
    )!;
    return analyticsFieldsIn(schema, document, operation);
  };

  test('none in plain reads; one per analytics root field, aliases counted each', () => {
    expect(count('{ songs(limit: 2) { id name } service(id: 1) { songs { id } } }')).toBe(0);
    expect(count('{ usageTimeline(bucket: WEEK) { start } }')).toBe(1);
    expect(count('{ a: newSongs { timesSung } b: newSongs { timesSung } songsSungWith(songId: 1) { together } }')).toBe(3);
  });

  test('Song.usage counts once per selection (one batched statement however many songs)', () => {
    expect(count('{ songs { usage { timesSung } services(limit: 3) { songs { usage { timesSung } } } } }')).toBe(2);
  });

  test('fragments and inline fragments count where they are spread; only the chosen operation counts', () => {
    const source = `
      query A { ...R songs { ...U } }
      query B { songs { id } }
      fragment R on Query { artistUsage { artist } songUsage { timesSung } }
      fragment U on Song { ... on Song { usage { timesSung } } }`;
    expect(count(source, 'A')).toBe(3);
    expect(count(source, 'B')).toBe(0);
  });

  test('a fragment spread many times counts at every spread', () => {
    // Each level spreads the next twice: 2^20 spreads of the one analytics field at the bottom
    // (each fragment is counted once and reused, not walked a million times).
    const levels = Array.from({ length: 20 }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const source = `{ ...F0 }\n${levels}\nfragment F20 on Query { newSongs { timesSung } }`;
    expect(count(source)).toBe(2 ** 20);
  });
});
