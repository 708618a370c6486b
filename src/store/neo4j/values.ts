import neo4j, { isInt, type Integer, type Record as Neo4jRecord } from 'neo4j-driver';
import type { SongLicensing } from '../../domain/licensing';
import type { ServiceRecord, SongRecord, UserCredentials, UserRecord } from '../types';
import type { ParamDecl, ParamType, ScalarType } from './statements';

/**
 * JS number -> Cypher INTEGER. The driver sends a plain number as a FLOAT, which Neo4j would store
 * as a float id or date; every integer parameter goes through here instead.
 */
export function toInt(n: number): Integer {
  if (!Number.isSafeInteger(n)) throw new TypeError(`${n} is not a safe integer`);
  return neo4j.int(n);
}

/**
 * Cypher INTEGER -> JS number. The driver's default lossless Integer is kept (rather than
 * `disableLosslessIntegers`) so that a value beyond 2^53 fails loudly here instead of rounding.
 */
export function fromInt(value: unknown, what: string): number {
  if (isInt(value)) {
    if (!value.inSafeRange()) throw new RangeError(`${what} ${value.toString()} is beyond JavaScript's safe integers`);
    return value.toNumber();
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw new TypeError(`${what} is not an integer: ${String(value)}`);
}

function matches(type: ScalarType, value: unknown): boolean {
  if (value === null) return type.endsWith('?');
  switch (type.replace('?', '')) {
    case 'INTEGER':
      return isInt(value);
    case 'STRING':
      return typeof value === 'string';
    case 'BOOLEAN':
      return typeof value === 'boolean';
    case 'LIST<INTEGER>':
      return Array.isArray(value) && value.every((v) => isInt(v));
    case 'LIST<STRING>':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
    default:
      return false;
  }
}

/**
 * A value of a declared type, JS numbers made Cypher INTEGERs where the type is one. `where`
 * names it for an error, and is only worked out for one: an import part sends a million values.
 */
function encodeValue(where: () => string, type: ParamType, value: unknown): unknown {
  if (typeof type !== 'string') {
    if (!Array.isArray(value)) throw new TypeError(`${where()} must be a list of rows`);
    return value.map((row, i) => encodeKeys(() => `${where()}[${i}]`, type.rows, row as Record<string, unknown>));
  }
  const base = type.replace('?', '');
  let encoded = value;
  if (base === 'INTEGER' && typeof value === 'number') encoded = toInt(value);
  if (base === 'LIST<INTEGER>' && Array.isArray(value)) encoded = value.map((v) => (typeof v === 'number' ? toInt(v) : v));
  if (!matches(type, encoded)) throw new TypeError(`${where()} must be ${type}, got ${describe(value)}`);
  return encoded;
}

/** Each declaration's names, sorted, worked out once. */
const namesOf = new WeakMap<object, string[]>();

function encodeKeys(where: () => string, decl: Readonly<Record<string, ParamType>>, params: Record<string, unknown>): Record<string, unknown> {
  let declared = namesOf.get(decl);
  if (!declared) namesOf.set(decl, (declared = Object.keys(decl).sort()));
  const given = Object.keys(params);
  if (given.length !== declared.length || !declared.every((key) => Object.hasOwn(params, key))) {
    throw new TypeError(`${where()} takes {${declared.join(', ')}} but was given {${given.sort().join(', ')}}`);
  }
  const out: Record<string, unknown> = {};
  for (const key of declared) out[key] = encodeValue(() => `${where()}.${key}`, decl[key], params[key]);
  return out;
}

const describe = (v: unknown) => (Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v);

/**
 * The parameters of a statement as Neo4j must get them, checked against its declaration (the one
 * the Cypher linter used): the one place integers are converted. A JS number declared INTEGER
 * becomes a Cypher INTEGER (sent as it is, it would be a FLOAT, stored as a float id or date); a
 * misspelt or missing name, a value of another type, or a number that is not a safe integer is
 * refused, since Cypher would silently read it as null or a float. Cheap next to a round trip,
 * so it always runs.
 */
export function encodeParams(statement: string, decl: ParamDecl, params: Record<string, unknown>): Record<string, unknown> {
  return encodeKeys(() => statement, decl, params);
}

// Record -> domain objects. Column names are fixed by the RETURN clauses in ./statements.ts.

export const toSong = (r: Neo4jRecord): SongRecord => ({
  id: fromInt(r.get('id'), 'song id'),
  name: r.get('name') as string,
  artists: (r.get('artists') as string[] | null) ?? [],
});

/** Absent properties (not recorded) read as null. */
export const toLicensing = (r: Neo4jRecord): SongLicensing => ({
  ccliNumber: (r.get('ccliNumber') as string | null) ?? null,
  copyright: (r.get('copyright') as string | null) ?? null,
});

export const toService = (r: Neo4jRecord): ServiceRecord => ({
  id: fromInt(r.get('id'), 'service id'),
  date: fromInt(r.get('date'), 'service date'),
  serviceType: r.get('serviceType') as ServiceRecord['serviceType'],
});

export const toUser = (r: Neo4jRecord): UserRecord => ({
  id: fromInt(r.get('id'), 'user id'),
  username: r.get('username') as string,
  role: r.get('role') as UserRecord['role'],
});

export const toCredentials = (r: Neo4jRecord): UserCredentials => ({
  ...toUser(r),
  passwordHash: r.get('passwordHash') as string,
  tokenVersion: fromInt(r.get('tokenVersion'), 'token version'),
});

/** Answer a batch read: one slot per requested id, filled from rows carrying their index `i`. */
export function placeByIndex<T>(length: number, rows: Neo4jRecord[], map: (r: Neo4jRecord) => T): (T | null)[] {
  const out: (T | null)[] = new Array(length).fill(null);
  for (const row of rows) {
    if (row.get('id') !== null) out[fromInt(row.get('i'), 'batch index')] = map(row);
  }
  return out;
}

/** Group rows carrying their key's index `i` into one list per key, keeping row order. */
export function groupByIndex<T>(length: number, rows: Neo4jRecord[], map: (r: Neo4jRecord) => T): T[][] {
  const out: T[][] = Array.from({ length }, () => []);
  for (const row of rows) out[fromInt(row.get('i'), 'batch index')].push(map(row));
  return out;
}
