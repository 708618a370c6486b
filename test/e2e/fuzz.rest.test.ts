import zlib from 'node:zlib';
import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import jwt from 'jsonwebtoken';
import { ERROR_STATUS } from '../../src/errors';
import { EVENT_KINDS } from '../../src/events/changes';
import { buildSchema } from '../../src/graphql/schema';
import { ROUTES, pathParams, type RestRoute } from '../../src/rest/routes';
import { JWT_SECRET, startTestServer, type TestServer } from '../helpers/server';

/**
 * The REST half of the fuzz suite: property-based requests to every route of the route table,
 * each built from the route's GraphQL field (path parameter and body types come from its
 * arguments, the success shape from its return type). Hostile ids, percent-encodings, bodies,
 * encodings, headers, tokens and query strings; the answer must never be a 5xx, every error must be
 * exactly the contract's shape with a contract code matching its status, and every success exactly
 * the route's record shape. Records made before the run must be unchanged after it.
 *
 * FUZZ_RUNS (requests per route, default 30) and FUZZ_SEED make longer or replayed runs:
 * `npm run fuzz:rest`. A failure prints the seed and the shrunk request.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** Per route: a login or a new user costs a slow password hash, so long runs need long limits. */
const TIMEOUT = Math.max(30_000, RUNS * 500);
const BASE = '/api/v1';

let s: TestServer;
const errorLogs: string[] = [];
const tokens: Record<'admin' | 'user', string> = { admin: '', user: '' };
/** Records made before the fuzz: ids 1..PROTECTED of each kind, with what they looked like. */
const PROTECTED = 3;
let before: unknown;

const schema = buildSchema();
const fieldOf = (route: RestRoute): GraphQLField<unknown, unknown> => {
  const [type, name] = route.field.split('.');
  return (type === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[name];
};

async function snapshot() {
  const get = async (path: string) => {
    const res = await s.api('GET', path, { token: tokens.admin });
    return [res.status, res.body];
  };
  const ids = Array.from({ length: PROTECTED }, (_, i) => i + 1);
  return {
    songs: await Promise.all(ids.map((id) => get(`/songs/${id}`))),
    services: await Promise.all(ids.map((id) => get(`/services/${id}`))),
    setlists: await Promise.all(ids.map((id) => get(`/songs/forService/${id}`))),
    users: await Promise.all(ids.map((id) => get(`/users/${id}`))),
  };
}

beforeAll(async () => {
  // The rate limits stay in the path, with a budget no run spends: a spent budget would turn the
  // rest of the run into 429s, which the contract allows and which would test nothing.
  s = await startTestServer({ LOG_LEVEL: 'error', RATE_LIMIT_POINTS: '1000000' }, { write: (line: string) => void errorLogs.push(line) });
  tokens.admin = await s.adminToken();
  await s.createUser('fuzz-user-1');
  tokens.user = (await s.createUser('fuzz-user-2')).token;
  for (let i = 1; i <= PROTECTED; i++) {
    await s.api('POST', '/songs', { token: tokens.admin, body: { name: `Song ${i}`, artists: [`Artist ${i}`, 'Shared'] } });
    await s.api('POST', '/services', {
      token: tokens.admin,
      body: { date: Date.UTC(2024, 0, i * 7, 10), serviceType: ['SUN_AM', 'SUN_PM', 'WED'][i - 1] },
    });
  }
  await s.api('PUT', '/services/1/songs', { token: tokens.admin, body: { songIds: [3, 1, 2] } });
  await s.api('PUT', '/services/2/songs', { token: tokens.admin, body: { songIds: [2] } });
  before = await snapshot();
}, 60_000);
afterAll(() => s?.close());

// ---- tokens -------------------------------------------------------------------------------

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Credential {
  header?: string;
  /** A credential that really is someone's: its requests stay off the records made before the run. */
  valid: boolean;
}

/** Credentials that are nearly someone's: each must be refused where a login is needed. */
const NEAR_MISSES: (() => string)[] = [
  () => tokens.admin, // no scheme
  () => tokens.user,
  () => `${tokens.admin} `,
  () => `Token ${tokens.admin}`,
  () => `JWT ${tokens.admin}`,
  () => `Bearer ${tokens.admin} extra`,
  () => `Bearer ${tokens.admin}x`,
  () => `Bearer ${jwt.sign({ role: 'ADMIN', tv: 0 }, JWT_SECRET, { subject: '1', expiresIn: -60 })}`,
  () => `Bearer ${jwt.sign({ role: 'ADMIN', tv: 0 }, 'a-wrong-secret-that-is-32-characters!!', { subject: '1' })}`,
  () => `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: '1', role: 'ADMIN', tv: 0, exp: 4e9 })}.`,
  () => `Bearer ${jwt.sign({ role: 'ADMIN', tv: 99 }, JWT_SECRET, { subject: '1' })}`, // retired version
  () => `Bearer ${jwt.sign({ role: 'ADMIN', tv: 0 }, JWT_SECRET, { subject: '999' })}`, // no such user
  () => `Bearer ${jwt.sign({ role: 'ADMIN', tv: 0 }, JWT_SECRET, { subject: 'abc' })}`,
  () => `Bearer ${tokens.user.split('.').slice(0, 2).join('.')}.${tokens.admin.split('.')[2]}`, // spliced
  () => 'Bearer',
  () => 'Basic YWRtaW46YWRtaW4tcGFzc3dvcmQtMQ==',
  () => `Bearer ${'a'.repeat(8000)}`,
];

const credential: fc.Arbitrary<Credential> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ valid: false }) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom('Bearer admin', 'Bearer user', 'bearer admin', 'BEARER user')
      .map((text) => {
        const [scheme, who] = text.split(' ');
        return { header: `${scheme} ${tokens[who as 'admin' | 'user']}`, valid: true };
      }),
  },
  { weight: 4, arbitrary: fc.constantFrom(...NEAR_MISSES).map((make) => ({ header: make(), valid: false })) },
  { weight: 1, arbitrary: fc.stringMatching(/^[\x20-\x7e\xa0-\xff]{0,80}$/).map((header) => ({ header, valid: false })) },
  { weight: 1, arbitrary: fc.stringMatching(/^[\x21-\x7e]{1,80}$/).map((t) => ({ header: `Bearer ${t}`, valid: false })) },
);

// ---- path segments ------------------------------------------------------------------------

/** Raw (already percent-encoded) segments; none is empty or a dot segment, so the route stays the same. */
const MALFORMED = ['%ZZ', '%', '%2', '%E2%82', '%ED%A0%80', '%C0%AF', '%FF', '%F4%90%80%80', 'a%', '%%41'];
const BAD_IDS = ['abc', '1.5', '0', '-3', '00', '007', '1e3', '+7', '0x10', '%207', '7%20', '2147483648',
  '99999999999999999999', '%D9%A1', '%EF%BC%97', '1%2F2', '%2F', 'null', '%5B%5D', '%00', '1%3B2', 'me', 'NaN'];

const encoded = (text: fc.Arbitrary<string>) => text.filter((t) => t !== '' && t !== '.' && t !== '..').map(encodeURIComponent);

/**
 * Ids of records. A real credential gets only ids past the records made before the run, which it
 * could legitimately change; anything else aims at those records first.
 */
function idSegment(valid: boolean): fc.Arbitrary<string> {
  const ids = valid
    ? fc.integer({ min: PROTECTED + 1, max: PROTECTED + 30 })
    : fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 1, max: PROTECTED }) }, fc.integer({ min: 1, max: 40 }));
  return fc.oneof(
    { weight: 4, arbitrary: ids.map(String) },
    { weight: 3, arbitrary: fc.constantFrom(...BAD_IDS) },
    { weight: 1, arbitrary: fc.constantFrom(...MALFORMED) },
    { weight: 1, arbitrary: encoded(fc.string({ unit: 'binary', maxLength: 12 })) },
  );
}

const DATES = ['2024-01-07', '2024-01-07T10:00:00Z', '2024-01-07T10:00:00+14:00', '1704621600000', '-1', '0',
  '2024-01-07T10:00:00-99:99', '2024-01-07T10:00:00+24:00', '2024-02-30', '2024-13-01', '2024-01-07T24:00Z',
  '9999999999999999', '99999999999999999999', '2024-1-7', 'today', '2024-01-07T10:00:00', '%20', '1e3'];

const textSegment = fc.oneof(
  fc.constantFrom('Shared', 'artist%201', 'ARTIST%201', 'Stra%C3%9Fe', '%F0%9F%8E%B5'),
  encoded(fc.string({ unit: 'binary', maxLength: 40 })),
  fc.constantFrom(...MALFORMED),
);

/** A path value of the right kind: an id, a date, an artist. */
function plausibleSegment(arg: GraphQLArgument, valid: boolean): fc.Arbitrary<string> {
  const named = getNamedType(arg.type).name;
  if (named === 'Int') return valid ? fc.integer({ min: PROTECTED + 1, max: PROTECTED + 15 }).map(String) : fc.integer({ min: 1, max: PROTECTED }).map(String);
  if (/date|from|to/i.test(arg.name)) return fc.constantFrom('2024-01-01', '2024-01-07T10:00:00Z', '1704621600000', '-1').map(encodeURIComponent);
  return fc.constantFrom('Shared', 'artist%201', 'Artist%202', 'nobody');
}

function segment(arg: GraphQLArgument, valid: boolean): fc.Arbitrary<string> {
  const named = getNamedType(arg.type).name;
  if (named === 'Int') return idSegment(valid);
  if (/date|from|to/i.test(arg.name)) {
    return fc.oneof(fc.constantFrom(...DATES).map(encodeURIComponent), fc.constantFrom(...DATES), textSegment);
  }
  return textSegment;
}

// ---- query strings and bodies -------------------------------------------------------------

const queryString = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('limit', 'offset'), fc.constantFrom(
    '1', '10', '1000', '1001', '0', '-1', '', '1.5', '1e2', 'abc', '%ZZ', '99999999999', '%201', 'null',
  )).map(([k, v]) => `?${k}=${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('?limit=1&limit=2', '?limit[]=1', '?limit[a]=1', '?offset=1&limit=1',
    '?foo=bar', '?%ZZ=1', '?=', '?&&&', `?limit=${'9'.repeat(3000)}`, '?limit=%00') },
);

/** Deeply nested arrays or objects, as JSON text (too deep for naive recursion). */
const deep = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.boolean()).map(([depth, arrays]) =>
  arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 31), '', ' ', '\u0000', [], {}, [null], ['x', 1], { a: 1 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 60 }),
  fc.integer({ min: 250, max: 120_000 }).map((n) => 'x'.repeat(n)),
  fc.jsonValue({ maxDepth: 4 }),
);

function plausible(type: GraphQLInputType, name: string): fc.Arbitrary<unknown> {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return fc.array(plausible(inner.ofType, name), { maxLength: 5 });
  const named = getNamedType(inner);
  if (isEnumType(named)) {
    const values = named.getValues().map((v) => v.name);
    return fc.oneof(fc.constantFrom(...values), fc.constantFrom(...values.map((v) => v.toLowerCase())));
  }
  switch (named.name) {
    case 'Int':
      return fc.integer({ min: -2, max: 40 });
    case 'Timestamp':
      return fc.oneof(
        { weight: 2, arbitrary: fc.integer({ min: Date.UTC(1899, 0, 1), max: Date.UTC(2201, 0, 1) }) },
        { weight: 1, arbitrary: fc.constantFrom(...DATES.filter((d) => d.includes('T'))) },
      );
    default:
      return name === 'password'
        ? fc.string({ minLength: 8, maxLength: 16 })
        : fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^[a-z0-9._@-]{3,12}$/) }, fc.string({ maxLength: 20 }));
  }
}

interface Body {
  text?: string;
  contentType?: string;
  contentEncoding?: string;
  /** Send `text` compressed as contentEncoding says (otherwise it goes as is, whatever the header). */
  compress?: boolean;
}

/** A JSON object of the arguments: all plausible (to reach the success path), or a mix with hostile values. */
function jsonBody(args: readonly GraphQLArgument[], onlyPlausible = false): fc.Arbitrary<string> {
  const plausibleFields: Record<string, fc.Arbitrary<unknown>> = {};
  const mixedFields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const arg of args) {
    plausibleFields[arg.name] = plausible(arg.type, arg.name);
    mixedFields[arg.name] = fc.oneof({ weight: 2, arbitrary: plausible(arg.type, arg.name) }, hostileValue);
  }
  if (onlyPlausible) return fc.record(plausibleFields).map((v) => JSON.stringify(v));
  const extras = fc.dictionary(fc.constantFrom('id', '__proto__', 'constructor', 'extra', 'services', 'songs'), hostileValue, {
    maxKeys: 2,
  });
  return fc
    .tuple(fc.oneof(fc.record(plausibleFields), fc.record(mixedFields, { requiredKeys: [] })), extras)
    .map(([known, extra]) => JSON.stringify({ ...extra, ...known }));
}

function body(args: readonly GraphQLArgument[]): fc.Arbitrary<Body> {
  const text = fc.oneof(
    { weight: 6, arbitrary: jsonBody(args) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '{"name":', 'null', '[]', '[{}]', '1', '"x"', 'true', '\u0000',
      '{"name":"a",}', "{'name':'a'}", 'name=a&artists=b', '\uFEFF{}', '{"__proto__":{"admin":true}}') },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  );
  const contentType = fc.constantFrom(undefined, 'application/json', 'application/json', 'application/json', 'text/plain',
    'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16',
    'application/json; charset=latin1', 'application/json; charset=foo', 'application/xml', '*/*', 'garbage');
  const encoding = fc.oneof(
    { weight: 6, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br').map((e) => ({ contentEncoding: e, compress: true })) },
    { weight: 2, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'compress', 'identity', 'GZIP', 'gzip, br', 'x')
      .map((e) => ({ contentEncoding: e, compress: false })) },
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<Body>({}) },
    { weight: 8, arbitrary: fc.tuple(text, contentType, encoding).map(([t, contentType, enc]) => ({ text: t, contentType, ...enc })) },
  );
}

function compress(text: string, encoding: string): Buffer {
  const data = Buffer.from(text);
  if (encoding === 'gzip') return zlib.gzipSync(data);
  if (encoding === 'deflate') return zlib.deflateSync(data);
  return zlib.brotliCompressSync(data);
}

// ---- requests -----------------------------------------------------------------------------

interface FuzzRequest {
  method: string;
  path: string;
  authorization?: string;
  body: Body;
}

function requests(route: RestRoute): fc.Arbitrary<FuzzRequest> {
  const field = fieldOf(route);
  const names = pathParams(route.path);
  const inPath = field.args.filter((a) => names.includes(a.name));
  const bodyArgs = field.args.filter((a) => !names.includes(a.name) && a.name !== 'limit' && a.name !== 'offset');
  const otherMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'].filter((m) => m !== route.method);
  // Most requests are hostile somewhere; one in three is well formed, so that success paths (and
  // the exact record shapes they answer) are reached too.
  const wellFormed = (valid: boolean) =>
    fc.record({
      method: fc.constant(route.method),
      segments: fc.tuple(...inPath.map((a) => plausibleSegment(a, valid))),
      query: fc.constantFrom('', '?limit=5', '?offset=1'),
      body: fc.record({ text: jsonBody(bodyArgs, true), contentType: fc.constant('application/json') }),
    });
  const hostile = (valid: boolean) =>
    fc.record({
      method: fc.oneof({ weight: 9, arbitrary: fc.constant(route.method) }, fc.constantFrom(...otherMethods)),
      segments: fc.tuple(...inPath.map((a) => segment(a, valid))),
      query: queryString,
      body: body(bodyArgs),
    });
  const build = (valid: boolean) => fc.oneof({ weight: 1, arbitrary: wellFormed(valid) }, { weight: 2, arbitrary: hostile(valid) });
  // Built once: arbitraries are costly to make, and a chain would make them on every request.
  const forCredential = { true: build(true), false: build(false) };
  return credential.chain((cred) =>
    forCredential[`${cred.valid}`].map(({ method, segments, query, body: b }) => {
      let path = route.path;
      inPath.forEach((arg, i) => {
        path = path.replace(`:${arg.name}`, segments[i]);
      });
      return { method, path: `${BASE}${path}${query}`, authorization: cred.header, body: b };
    }),
  );
}

async function send(req: FuzzRequest) {
  const headers: Record<string, string> = {};
  if (req.authorization !== undefined) headers.authorization = req.authorization;
  let payload: BodyInit | undefined;
  const canHaveBody = req.method !== 'GET' && req.method !== 'HEAD';
  if (canHaveBody && req.body.text !== undefined) {
    payload = req.body.compress ? new Uint8Array(compress(req.body.text, req.body.contentEncoding!)) : req.body.text;
    if (req.body.contentType) headers['content-type'] = req.body.contentType;
    if (req.body.contentEncoding) headers['content-encoding'] = req.body.contentEncoding;
  }
  const res = await fetch(`${s.url}${req.path}`, { method: req.method, headers, body: payload });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

// ---- what every answer must be ------------------------------------------------------------

const ENUMS = { serviceType: ['SUN_AM', 'SUN_PM', 'WED'], role: ['ADMIN', 'USER'] };
const isId = (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0;
const isString = (v: unknown) => typeof v === 'string';
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isDateOrNull = (v: unknown) => v === null || Number.isSafeInteger(v);

/** The exact wire shape of each record type (docs/API.md), by GraphQL type name. */
const SHAPES: Record<string, Record<string, (v: unknown) => boolean>> = {
  Song: { id: isId, name: isString, artists: (v) => Array.isArray(v) && v.every(isString) },
  Service: { id: isId, date: (v) => Number.isSafeInteger(v), serviceType: (v) => ENUMS.serviceType.includes(v as string) },
  User: { id: isId, username: isString, role: (v) => ENUMS.role.includes(v as string) },
  AuthPayload: {
    token: isString,
    tokenType: (v) => v === 'Bearer',
    expiresIn: (v) => Number.isSafeInteger(v),
    user: (v) => hasShape(v, 'User'),
  },  // Analytics: counts are whole numbers from 0, dates epoch ms or null.
  SongUsage: {
    song: (v) => hasShape(v, 'Song'),
    // The song's licensing details, beside it (the song record stays three fields).
    ccliNumber: (v) => v === null || (typeof v === 'string' && /^\d{1,10}$/.test(v)),
    copyright: (v) => v === null || (isString(v) && (v as string).length <= 500),
    timesSung: isCount,
    firstSung: isDateOrNull,
    lastSung: isDateOrNull,
    byServiceType: (v) => Array.isArray(v) && v.length > 0 && v.every((e) => hasShape(e, 'ServiceTypeUsage')),
    asOpener: isCount,
    asCloser: isCount,
  },
  // One song's usage beside its rotation (GET /songs/{songId}/usage).
  get SongUsageOfSong() {
    return { ...SHAPES.SongUsage, rotation: (v: unknown) => hasShape(v, 'SongRotation') };
  },
  SongRotation: {
    state: (v) => ['NEVER_SUNG', 'RETIRED', 'NEW', 'LEARNING', 'STAPLE', 'RESTING'].includes(v as string),
    usualIntervalWeeks: (v) => v === null || (typeof v === 'number' && v >= 0),
    weeksSinceLastSung: (v) => v === null || typeof v === 'number',
    due: (v) => typeof v === 'boolean',
    timesInHorizon: isCount,
    asOf: (v) => Number.isSafeInteger(v),
    horizonWeeks: (v) => Number.isSafeInteger(v) && (v as number) >= 1,
  },
  ServiceTypeUsage: { serviceType: (v) => ENUMS.serviceType.includes(v as string), timesSung: isCount, lastSung: isDateOrNull },
  SongPairing: { song: (v) => hasShape(v, 'Song'), together: isCount, jaccard: (v) => typeof v === 'number' && v >= 0 && v <= 1 },
  UsageBucket: { start: (v) => Number.isSafeInteger(v), services: isCount, performances: isCount, distinctSongs: isCount },
  ArtistUsage: { artist: isString, timesSung: isCount, songs: isCount },
  SungOften: {
    services: isCount,
    firstService: isDateOrNull,
    lastService: isDateOrNull,
    songs: (v) => Array.isArray(v) && v.every((e) => hasShape(e, 'SongShare')),
  },
  SongShare: {
    song: (v) => hasShape(v, 'Song'),
    timesSung: (v) => isCount(v) && (v as number) > 0,
    share: (v) => typeof v === 'number' && v > 0 && v <= 1,
    lastSung: (v) => Number.isSafeInteger(v),
  },
  // What to sing: a score from 0 to 1 made of its four named parts, and reasons in words.
  SongSuggestion: {
    song: (v) => hasShape(v, 'Song'),
    score: (v) => typeof v === 'number' && v > 0 && v <= 1,
    parts: (v) =>
      Array.isArray(v) && v.map((p) => (p as { name: unknown }).name).join() === 'fit,due,serviceType,new' && v.every((p) => hasShape(p, 'ScorePart')),
    reasons: (v) => Array.isArray(v) && v.every(isString),
  },
  ScorePart: { name: isString, value: (v) => typeof v === 'number' && v >= 0 && v <= 1 },
  // Webhook endpoints: the secret only in the answers that made it.
  Webhook: {
    id: isId,
    url: isString,
    events: (v) => Array.isArray(v) && v.length > 0 && v.every((k) => (EVENT_KINDS as readonly unknown[]).includes(k)),
    description: (v) => v === null || isString(v),
    enabled: (v) => typeof v === 'boolean',
    createdAt: (v) => Number.isSafeInteger(v),
    failingSince: isDateOrNull,
    disabledReason: (v) => v === null || isString(v),
    secret: (v) => v === null || (isString(v) && /^whsec_[A-Za-z0-9+/]{32}$/.test(v as string)),
  },
  WebhookDelivery: {
    eventId: (v) => isString(v) && /^evt_[0-9a-f]+$/.test(v as string),
    eventType: (v) => (EVENT_KINDS as readonly unknown[]).includes(v),
    status: (v) => ['PENDING', 'DELIVERED', 'FAILED'].includes(v as string),
    attempts: isCount,
    nextAttemptAt: isDateOrNull,
    lastAttemptAt: isDateOrNull,
    lastResponseCode: (v) => v === null || (Number.isSafeInteger(v) && (v as number) >= 100 && (v as number) <= 599),
    lastError: (v) => v === null || isString(v),
  },
  Redelivery: { queued: isCount },
};

function hasShape(value: unknown, type: string): boolean {
  const shape = SHAPES[type];
  if (!shape || typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value).sort();
  if (keys.join() !== Object.keys(shape).sort().join()) return false;
  return keys.every((k) => shape[k]((value as Record<string, unknown>)[k]));
}

function matchesReturnType(value: unknown, type: GraphQLOutputType): boolean {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return Array.isArray(value) && value.every((v) => matchesReturnType(v, inner.ofType));
  return hasShape(value, getNamedType(inner).name);
}

function isContractError(body: unknown, status: number): boolean {
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error') return false;
  const error = (body as { error: Record<string, unknown> }).error;
  if (typeof error !== 'object' || error === null) return false;
  if (!Object.keys(error).every((k) => ['code', 'message', 'details'].includes(k))) return false;
  const { code, message, details } = error;
  if (typeof code !== 'string' || !(code in ERROR_STATUS)) return false;
  if (ERROR_STATUS[code as keyof typeof ERROR_STATUS] !== status) return false;
  if (typeof message !== 'string' || message === '') return false;
  if (details === undefined) return true;
  return (
    Array.isArray(details) &&
    details.length > 0 &&
    details.every((d) => hasExactly(d, ['field', 'message']) && isString(d.field) && isString(d.message))
  );
}

const hasExactly = (v: unknown, keys: string[]): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && Object.keys(v).sort().join() === [...keys].sort().join();

/** Each route's path as a pattern, to tell which route served a request sent with another method. */
const PATTERNS = ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${BASE}${route.path.replace(/:\w+/g, '[^/]+')}(\\?|$)`),
}));
const servedBy = (method: string, path: string) =>
  PATTERNS.find((p) => p.route.method === method && p.pattern.test(path))?.route;

/** Why an answer breaks the contract, or null. */
function violation(req: FuzzRequest, res: Awaited<ReturnType<typeof send>>): string | null {
  if (res.status >= 500) return `answered ${res.status}`;
  if (res.headers.get('access-control-allow-methods') !== 'GET, POST, PUT, DELETE, OPTIONS') return 'no Access-Control-Allow-Methods';
  if (res.headers.get('x-content-type-options') !== 'nosniff') return 'no X-Content-Type-Options';
  if (req.method === 'HEAD' || res.status === 204) return res.text === '' ? null : 'a body on a 204 or HEAD';
  if (!/^application\/json/i.test(res.headers.get('content-type') ?? '')) return 'not JSON';
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.text);
  } catch {
    return 'a body that is not JSON';
  }
  if (res.status >= 400) {
    if (!isContractError(parsed, res.status)) return 'an error not in the contract shape';
    if (res.status === 401 && res.headers.get('www-authenticate') !== 'Bearer') return '401 without WWW-Authenticate';
    if (res.status === 405 && !res.headers.get('allow')) return '405 without Allow';
    if (res.status === 429 && !res.headers.get('retry-after')) return '429 without Retry-After';
    return null;
  }
  const route = servedBy(req.method, req.path);
  if (!route) return `${req.method} succeeded where no route has that method`;
  if (res.status !== (route.status ?? 200)) return `success status ${res.status}, not ${route.status ?? 200}`;
  if (!matchesReturnType(parsed, fieldOf(route).type)) return 'a success body not exactly the record shape';
  return null;
}

describe('REST fuzz: every route of the table', () => {
  test.each(ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    await fc.assert(
      fc.asyncProperty(requests(route), async (req) => {
        const res = await send(req);
        const problem = violation(req, res);
        if (problem) throw new Error(`${problem}: ${res.status} ${res.text.slice(0, 300)}`);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: false },
    );
    expect(errorLogs).toEqual([]);
  }, TIMEOUT);

  test('records made before the run are unchanged after it', async () => {
    expect(await snapshot()).toEqual(before);
  });
});
