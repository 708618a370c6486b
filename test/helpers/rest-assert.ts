import jwt from 'jsonwebtoken';
import type { Reply } from './server';

/** Records exactly as docs/API.md puts them on the REST wire. */
export interface Song {
  id: number;
  name: string;
  artists: string[];
}
export interface Service {
  id: number;
  date: number;
  serviceType: 'SUN_AM' | 'SUN_PM' | 'WED';
}

export const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';

/** Headers every /api/v1 answer carries (docs/API.md). */
function expectCommonHeaders(res: Reply): void {
  expect(res.headers.get('access-control-allow-methods')).toBe(ALLOWED_METHODS);
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-powered-by')).toBeNull();
}

function expectJsonType(res: Reply): void {
  expect(res.headers.get('content-type')).toMatch(/^application\/json(;\s*charset=utf-8)?$/i);
}

/**
 * A successful JSON answer with exactly this status and body. Status and body are compared
 * together so that a failure shows the error body the server sent.
 */
export function expectJson(res: Reply, status: number, body: unknown): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body });
  expectJsonType(res);
  expectCommonHeaders(res);
}

/** 204 with no body at all. */
export function expectNoContent(res: Reply): void {
  expect({ status: res.status, text: res.text }).toEqual({ status: 204, text: '' });
  expectCommonHeaders(res);
}

/**
 * The contract's error shape `{"error":{"code","message","details"?}}`. With `fields`, `details`
 * must be present, each entry exactly `{field, message}`, and the fields named must be exactly
 * those given (in any order); without, there is no `details`.
 */
export function expectError(res: Reply, status: number, code: string, fields?: string[]): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body).toEqual({
    error: { code, message: expect.any(String), ...(fields ? { details: expect.any(Array) } : {}) },
  });
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (fields) {
    const details = res.body.error.details as unknown[];
    for (const d of details) expect(d).toEqual({ field: expect.any(String), message: expect.any(String) });
    const named = [...new Set(details.map((d) => (d as { field: string }).field))].sort();
    expect(named).toEqual([...fields].sort());
  }
  if (status === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer');
  expectJsonType(res);
  expectCommonHeaders(res);
}

/** Path ids that are not positive integers in range (docs/API.md): each is a 400. */
export const BAD_IDS = ['abc', '1.5', '0', '-3', '99999999999999999999'];

/** A well-formed HS256 token for an existing user, signed with the wrong secret. */
export function forgedToken(sub = 1): string {
  return jwt.sign({ role: 'ADMIN', tv: 0 }, 'not-the-server-secret-but-long-enough-1234', {
    algorithm: 'HS256',
    subject: String(sub),
    expiresIn: '1h',
  });
}

/** Epoch ms of an ISO instant, for readable fixtures. */
export const ms = (iso: string): number => {
  const value = Date.parse(iso);
  if (Number.isNaN(value)) throw new Error(`bad fixture date ${iso}`);
  return value;
};

/** Order services as the contract lists them: date, then id. */
export const byDateThenId = (a: Service, b: Service) => a.date - b.date || a.id - b.id;
