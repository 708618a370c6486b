import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A log of the REST calls the suite makes, so that test/global-teardown.ts can check each observed
 * status, and each success body, against the OpenAPI document. test/global-setup.ts names a
 * directory in this variable; every jest worker appends to its own file there (no interleaved
 * writes across processes).
 */
export const CALL_LOG_ENV = 'API_CALL_LOG_DIR';

export interface ApiCall {
  method: string;
  /** The path below /api/v1, without the query string, as sent (still percent-encoded). */
  path: string;
  status: number;
  /** The test file that made the call, for the failure message. */
  file?: string;
  /** On a success (2xx) only: the answer's Content-Type and its body as sent (absent when empty). */
  contentType?: string;
  body?: string;
}

const API_PREFIX = '/api/v1';

/** Calls this worker logged already: a call repeated exactly (same answer too) is logged once. */
const logged = new Set<string>();

export function recordCall(method: string, url: string, status: number, answer?: { contentType: string | null; text: string }): void {
  const dir = process.env[CALL_LOG_ENV];
  if (!dir) return;
  const p = url.split('?')[0];
  if (p !== API_PREFIX && !p.startsWith(`${API_PREFIX}/`)) return;
  const success = status >= 200 && status < 300;
  const call: ApiCall = {
    method: method.toUpperCase(),
    path: p.slice(API_PREFIX.length),
    status,
    file: (globalThis as { expect?: { getState(): { testPath?: string } } }).expect?.getState().testPath,
    ...(success && answer?.contentType ? { contentType: answer.contentType } : {}),
    ...(success && answer?.text ? { body: answer.text } : {}),
  };
  const line = JSON.stringify(call);
  const key = createHash('sha1').update(line).digest('base64');
  if (logged.has(key)) return;
  logged.add(key);
  fs.appendFileSync(path.join(dir, `calls-${process.pid}.jsonl`), `${line}\n`);
}

export function readCalls(dir: string): ApiCall[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) => fs.readFileSync(path.join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ApiCall);
}
