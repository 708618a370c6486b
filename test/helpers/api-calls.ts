import fs from 'node:fs';
import path from 'node:path';

/**
 * A log of the REST calls the suite makes, so that test/global-teardown.ts can check each observed
 * status against the OpenAPI document. test/global-setup.ts names a directory in this variable;
 * every jest worker appends to its own file there (no interleaved writes across processes).
 */
export const CALL_LOG_ENV = 'API_CALL_LOG_DIR';

export interface ApiCall {
  method: string;
  /** The path below /api/v1, without the query string, as sent (still percent-encoded). */
  path: string;
  status: number;
  /** The test file that made the call, for the failure message. */
  file?: string;
}

const API_PREFIX = '/api/v1';

export function recordCall(method: string, url: string, status: number): void {
  const dir = process.env[CALL_LOG_ENV];
  if (!dir) return;
  const p = url.split('?')[0];
  if (p !== API_PREFIX && !p.startsWith(`${API_PREFIX}/`)) return;
  const call: ApiCall = {
    method: method.toUpperCase(),
    path: p.slice(API_PREFIX.length),
    status,
    file: (globalThis as { expect?: { getState(): { testPath?: string } } }).expect?.getState().testPath,
  };
  fs.appendFileSync(path.join(dir, `calls-${process.pid}.jsonl`), `${JSON.stringify(call)}\n`);
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
