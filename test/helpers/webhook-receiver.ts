import crypto from 'node:crypto';
import dgram from 'node:dgram';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  contentType: string;
  body: string;
  /** When it arrived (epoch ms). */
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `n` requests arrived; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A webhook receiver on 127.0.0.1: records every request and answers the status `answer` gives
 * for the n-th (0-based) one; `hang` answers nothing at all for the ones it names.
 */
export async function startReceiver(answer: (n: number) => number = () => 200, hang: (n: number) => boolean = () => false): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({
        id: String(req.headers['webhook-id']),
        timestamp: String(req.headers['webhook-timestamp']),
        signature: String(req.headers['webhook-signature']),
        contentType: String(req.headers['content-type']),
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      for (const w of waiters.splice(0)) w();
      if (hang(n)) return;
      res.statusCode = answer(n);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`the receiver got ${received.length} requests, not ${n}, within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.slice(0, n);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A Standard Webhooks signature check written here from the specification, with node:crypto
 * alone (not the library the service signs with): the base64 HMAC-SHA256, under the secret's
 * base64-decoded bytes, of `<id>.<timestamp>.<body>`, against each `v1,` entry of the header.
 */
export function verifies(secret: string, r: Pick<Received, 'id' | 'timestamp' | 'signature' | 'body'>): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = crypto.createHmac('sha256', key).update(`${r.id}.${r.timestamp}.${r.body}`).digest();
  return r.signature.split(' ').some((entry) => {
    const [version, sig] = entry.split(',');
    if (version !== 'v1' || !sig) return false;
    const given = Buffer.from(sig, 'base64');
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  });
}

/**
 * A DNS server on 127.0.0.1 (UDP) answering A queries from `records` (name → IPv4), which the
 * test may change while it runs: what WEBHOOKS_DNS_SERVERS points the service at, so a name can
 * resolve to one address when an endpoint is made and to another when it is delivered to.
 * Anything else is answered with no records.
 */
export async function startDnsServer(records: Map<string, string>): Promise<{ server: string; close(): Promise<void> }> {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg, rinfo) => {
    // Header (12 bytes), then the question: labels, a zero byte, QTYPE, QCLASS.
    let at = 12;
    const labels: string[] = [];
    while (msg[at] !== 0 && at < msg.length) {
      labels.push(msg.subarray(at + 1, at + 1 + msg[at]).toString('ascii'));
      at += msg[at] + 1;
    }
    const questionEnd = at + 5;
    const qtype = msg.readUInt16BE(at + 1);
    const address = qtype === 1 ? records.get(labels.join('.').toLowerCase()) : undefined;
    const header = Buffer.from(msg.subarray(0, 12));
    header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    header.writeUInt32BE(0, 8);
    const question = msg.subarray(12, questionEnd);
    const answer = address
      ? Buffer.concat([Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4]), Buffer.from(address.split('.').map(Number))])
      : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, answer]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { server: `127.0.0.1:${socket.address().port}`, close: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}

/** Retries `check` until it passes (deliveries are asynchronous), up to `timeoutMs`. */
export async function eventually(check: () => Promise<void>, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
