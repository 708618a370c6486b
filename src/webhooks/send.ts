import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { CheckedTarget } from './targets';

export interface SendLimits {
  /** The whole attempt, from connecting to the end of the answer's head. */
  timeoutMs: number;
  /** Of the answer's body, at most this much is read (and kept for the log); the rest is dropped. */
  maxResponseBytes: number;
}

export const DEFAULT_SEND_LIMITS: SendLimits = { timeoutMs: 10_000, maxResponseBytes: 1024 };

export type SendResult = { status: number; body: string } | { error: string };

/**
 * One POST of a signed payload to a checked target, by Node's own client: connected to the
 * addresses the check approved (its `lookup` answers them, so no second resolution can point it
 * elsewhere), redirects not followed (a 3xx is a failure, as the specification says), the time
 * and the answer read bounded.
 */
export function send(target: CheckedTarget, headers: Record<string, string>, body: string, limits: SendLimits = DEFAULT_SEND_LIMITS): Promise<SendResult> {
  const [address] = target.addresses;
  const family = net.isIP(address);
  const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as net.LookupFunction;
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = client.request(
      target.url,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'worship-records-webhooks/1', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < limits.maxResponseBytes) chunks.push(chunk.subarray(0, limits.maxResponseBytes - size));
          size += chunk.length;
          if (size >= limits.maxResponseBytes) res.destroy();
        });
        const finish = () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ error: `no answer within ${limits.timeoutMs} ms` });
    }, limits.timeoutMs);
    req.on('error', (err) => done({ error: err.message }));
    req.end(body);
  });
}
