/**
 * Authorization matrix: every non-public REST route and every guarded GraphQL root field, under
 * every kind of credential. The expected access of each field is written here from docs/API.md,
 * independently of src/graphql/permissions.ts; a route or field with no entry fails the suite.
 */
import { getNullableType, isListType, isNonNullType, type GraphQLField } from 'graphql';
import jwt from 'jsonwebtoken';
import { hashPassword } from '../../src/auth/passwords';
import { buildSchema } from '../../src/graphql/schema';
import { ROUTES, type RestRoute } from '../../src/rest/routes';
import { JWT_SECRET, startTestServer, type TestServer } from '../helpers/server';
import { expectSlotFree } from '../../src/store/types';

type Access = 'public' | 'auth' | 'admin' | 'adminOrSelf';

const ACCESS: Record<string, Access> = {
  'Query.songs': 'public',
  'Query.song': 'public',
  'Query.songsForService': 'public',
  'Query.songsByArtist': 'public',
  'Query.songsConnection': 'public',
  'Query.services': 'public',
  'Query.service': 'public',
  'Query.servicesWithSong': 'public',
  'Query.servicesAfter': 'public',
  'Query.servicesBefore': 'public',
  'Query.servicesBetween': 'public',
  'Query.servicesConnection': 'public',
  // Analytics: public reads, like songs and services.
  'Query.songUsage': 'public',
  'Query.songUsageById': 'public',
  'Query.songsNotSungSince': 'public',
  'Query.newSongs': 'public',
  'Query.songsSungWith': 'public',
  'Query.usageTimeline': 'public',
  'Query.artistUsage': 'public',
  'Query.songsSungOften': 'public',
  // Suggestions read what the analytics read: public too.
  'Query.suggestSongs': 'public',
  'Query.me': 'auth',
  'Query.users': 'admin',
  'Query.user': 'adminOrSelf',
  'Mutation.login': 'public',
  'Mutation.createSong': 'admin',
  'Mutation.updateSong': 'auth',
  'Mutation.deleteSong': 'auth',
  'Mutation.mergeSongs': 'admin',
  'Mutation.createService': 'auth',
  'Mutation.updateService': 'auth',
  'Mutation.deleteService': 'auth',
  'Mutation.addSongToService': 'auth',
  'Mutation.removeSongFromService': 'auth',
  'Mutation.setServiceSongs': 'auth',
  'Mutation.createUser': 'admin',
  'Mutation.updateUser': 'adminOrSelf',
  'Mutation.deleteUser': 'admin',
  // Webhooks: ADMIN only, reads and writes alike (endpoints carry where the records go).
  'Query.webhooks': 'admin',
  'Query.webhook': 'admin',
  'Query.webhookDeliveries': 'admin',
  'Mutation.createWebhook': 'admin',
  'Mutation.updateWebhook': 'admin',
  'Mutation.deleteWebhook': 'admin',
  'Mutation.rotateWebhookSecret': 'admin',
  'Mutation.redeliverWebhook': 'admin',
};

const schema = buildSchema();
const rootFields = (['Query', 'Mutation'] as const).flatMap((t) => {
  const type = t === 'Query' ? schema.getQueryType()! : schema.getMutationType()!;
  return Object.values(type.getFields()).map((f) => ({ name: `${t}.${f.name}`, field: f }));
});

test('every root field and every REST route has a stated access rule', () => {
  const missing = [...rootFields.map((f) => f.name), ...ROUTES.map((r) => r.field)].filter((n) => !(n in ACCESS));
  expect(missing).toEqual([]);
});

let s: TestServer;
let userId: number;
let userToken: string;
let adminId: number;
let victimHash: string;
let victims = 0;

/** A bystander account, made in the store directly: it only has to exist. */
async function victim(): Promise<number> {
  const user = await s.store.createUser({ username: `victim-${++victims}`, passwordHash: victimHash, role: 'USER' });
  return user!.id;
}

beforeAll(async () => {
  victimHash = await hashPassword('victim-password');
  // Webhook endpoints point at 127.0.0.1, where nothing is sent.
  s = await startTestServer({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOKS_DELIVERY: 'off' });
  ({ id: userId, token: userToken } = await s.createUser('matrix-user'));
  adminId = (await s.api('GET', '/users/me', { token: await s.adminToken() })).body.id;
});
afterAll(() => s.close());

const now = () => Math.floor(Date.now() / 1000);
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** Credentials that must all be refused on a non-public route, as 401. */
function badCredentials(): Record<string, string> {
  return {
    garbage: 'not-a-token',
    expired: jwt.sign({ role: 'ADMIN', tv: 0, iat: now() - 7200, exp: now() - 3600 }, JWT_SECRET, {
      algorithm: 'HS256',
      subject: String(adminId),
    }),
    'wrong signature': jwt.sign({ role: 'ADMIN', tv: 0 }, 'another-secret-that-is-also-32-characters', {
      algorithm: 'HS256',
      subject: String(adminId),
      expiresIn: 3600,
    }),
    'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: String(adminId), role: 'ADMIN', tv: 0, iat: now(), exp: now() + 3600 })}.`,
    'HS512 with the right secret': jwt.sign({ role: 'ADMIN', tv: 0 }, JWT_SECRET, {
      algorithm: 'HS512',
      subject: String(adminId),
      expiresIn: 3600,
    }),
    'unknown user': jwt.sign({ role: 'ADMIN', tv: 0 }, JWT_SECRET, { algorithm: 'HS256', subject: '999999', expiresIn: 3600 }),
  };
}

/** A day no call has used yet: one service per date and type, and every call makes services. */
let days = 0;
const nextDate = () => Date.UTC(2024, 0, 7, 10) + ++days * 86_400_000;

/** Fresh records for one call, so that deletes and updates never disturb another case. */
async function fixtures() {
  const song = await s.store.createSong({ name: 'Matrix Song', artists: ['A'] });
  const song2 = await s.store.createSong({ name: 'Matrix Song 2', artists: [] });
  const service = expectSlotFree(await s.store.createService({ date: nextDate(), serviceType: 'SUN_AM' }));
  await s.store.linkSong(service.id, song.id);
  const webhook = await s.store.createWebhook({ url: HOOK_URL, events: ['song.created'], description: null, secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3' }, Date.now());
  return { song, song2, service, webhook };
}
const HOOK_URL = 'http://127.0.0.1:9/matrix';

type Who = 'USER' | 'ADMIN';

/** A valid call of `route` for `who`; for adminOrSelf routes, `self` picks whose record. */
async function restCall(route: RestRoute, who: Who, self: boolean) {
  const { song, song2, service, webhook } = await fixtures();
  const targetUser = self ? (who === 'USER' ? userId : adminId) : route.path.startsWith('/users') ? await victim() : 0;
  const params: Record<string, number> = {
    id: route.path.startsWith('/songs') ? song.id : route.path.startsWith('/services') ? service.id : route.path.startsWith('/webhooks') ? webhook.id : targetUser,
    serviceId: service.id,
    songId: route.method === 'PUT' ? song2.id : song.id,
    keepId: song.id,
  };
  const bodies: Record<string, unknown> = {
    'Mutation.createSong': { name: 'New' },
    'Mutation.updateSong': { name: 'Renamed' },
    'Mutation.createService': { date: nextDate(), serviceType: 'SUN_PM' },
    'Mutation.mergeSongs': { mergeIds: [song2.id] },
    'Mutation.updateService': { serviceType: 'WED' },
    'Mutation.addSongToService': { position: 2 },
    'Mutation.setServiceSongs': { songIds: [song2.id, song.id] },
    'Mutation.createUser': { username: `made-${Math.random().toString(36).slice(2, 10)}`, password: 'long-enough-1' },
    'Mutation.updateUser': { username: `renamed-${Math.random().toString(36).slice(2, 10)}` },
    'Mutation.createWebhook': { url: HOOK_URL, events: ['song.created'] },
    'Mutation.updateWebhook': { description: 'changed' },
    'Mutation.redeliverWebhook': { since: 'evt_0' },
  };
  const path = route.path.replace(/:(\w+)/g, (_, n: string) => String(params[n]));
  return { method: route.method, path, body: bodies[route.field] };
}

const guardedRoutes = ROUTES.filter((r) => ACCESS[r.field] !== 'public');

describe.each(guardedRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('REST %s', (_name, route) => {
  test.each(Object.keys(badCredentials()))('refuses a token that is %s with 401', async (kind) => {
    const call = await restCall(route, 'ADMIN', true);
    const res = await s.api(call.method, call.path, { token: badCredentials()[kind], body: call.body });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('refuses no token with 401', async () => {
    const call = await restCall(route, 'ADMIN', true);
    const res = await s.api(call.method, call.path, { body: call.body });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  test('answers a USER as the contract says', async () => {
    const access = ACCESS[route.field];
    const call = await restCall(route, 'USER', access === 'adminOrSelf');
    const res = await s.api(call.method, call.path, { token: userToken, body: call.body });
    if (access === 'admin') {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    } else {
      expect([200, 201, 204]).toContain(res.status);
    }
    if (access === 'adminOrSelf') {
      const other = await restCall(route, 'USER', false);
      const denied = await s.api(other.method, other.path, { token: userToken, body: other.body });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('FORBIDDEN');
    }
  });

  test('serves an ADMIN', async () => {
    const call = await restCall(route, 'ADMIN', false);
    const res = await s.api(call.method, call.path, { token: await s.adminToken(), body: call.body });
    expect([200, 201, 204]).toContain(res.status);
  });
});

/** A minimal GraphQL document for a root field, with variables built from its argument types. */
async function graphqlCall(name: string, field: GraphQLField<unknown, unknown>, who: Who, self: boolean) {
  const { song, song2, service, webhook } = await fixtures();
  const other = !self && /user/i.test(name) ? await victim() : 0;
  const values: Record<string, unknown> = {
    url: HOOK_URL,
    events: ['song.created'],
    since: 'evt_0',
    id: /webhook/i.test(name) ? webhook.id
      : name.includes('User') || name === 'Query.user' ? (self ? (who === 'USER' ? userId : adminId) : other)
      : name.includes('Service') && !name.includes('Song') ? service.id
      : song.id,
    serviceId: service.id,
    songId: name === 'Mutation.addSongToService' ? song2.id : song.id,
    songIds: [song2.id],
    keepId: song.id,
    mergeIds: [song2.id],
    name: 'Via GraphQL',
    date: nextDate(),
    serviceType: 'SUN_AM',
    username: `gqlmade-${Math.random().toString(36).slice(2, 10)}`,
    password: 'long-enough-2',
  };
  if (name === 'Mutation.deleteService' || name === 'Mutation.updateService') values.id = service.id;
  const args = field.args.filter(
    (a) => isNonNullType(a.type) || (name === 'Mutation.updateUser' && a.name === 'username') || (name === 'Mutation.redeliverWebhook' && a.name === 'since'),
  );
  const decl = args.map((a) => `$${a.name}: ${a.type}`).join(', ');
  const use = args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const named = getNullableType(field.type);
  const leaf = isListType(named) ? getNullableType(named.ofType) : named;
  const selections: Record<string, string> = { Boolean: '', AuthPayload: '{ token }', Redelivery: '{ queued }', WebhookDelivery: '{ eventId }' };
  const selection = selections[String(leaf)] ?? '{ id }';
  const op = name.startsWith('Query') ? 'query' : 'mutation';
  const fieldName = name.split('.')[1];
  const query = `${op}${decl ? `(${decl})` : ''} { ${fieldName}${use ? `(${use})` : ''} ${selection} }`;
  return { query, variables: Object.fromEntries(args.map((a) => [a.name, values[a.name]])) };
}

const guardedFields = rootFields.filter((f) => ACCESS[f.name] !== 'public');

describe.each(guardedFields.map((f) => [f.name, f.field] as const))('GraphQL %s', (name, field) => {
  test('refuses anonymous and bad tokens with UNAUTHENTICATED', async () => {
    for (const token of [undefined, ...Object.values(badCredentials())]) {
      const { query, variables } = await graphqlCall(name, field, 'ADMIN', true);
      const res = await s.gql(query, variables, token);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
  });

  test('answers a USER as the contract says, and serves an ADMIN', async () => {
    const access = ACCESS[name];
    const asUser = await graphqlCall(name, field, 'USER', true);
    const userRes = await s.gql(asUser.query, asUser.variables, userToken);
    if (access === 'admin') expect(userRes.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    else expect(userRes.body.errors).toBeUndefined();
    if (access === 'adminOrSelf') {
      const other = await graphqlCall(name, field, 'USER', false);
      const denied = await s.gql(other.query, other.variables, userToken);
      expect(denied.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    }
    const asAdmin = await graphqlCall(name, field, 'ADMIN', false);
    const adminRes = await s.gql(asAdmin.query, asAdmin.variables, await s.adminToken());
    expect(adminRes.body.errors).toBeUndefined();
  });
});

test('a bad token on a public endpoint is ignored: the request is served as anonymous', async () => {
  for (const token of Object.values(badCredentials())) {
    const res = await s.api('GET', '/songs', { token });
    expect(res.status).toBe(200);
    const gql = await s.gql('{ songs { id } }', {}, token);
    expect(gql.body.errors).toBeUndefined();
  }
});

test('who is asking is decided before the request body is read', async () => {
  const mistyped = { name: 42, artists: 'not-a-list' };
  const anonymous = await s.api('POST', '/songs', { body: mistyped });
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.error.code).toBe('UNAUTHENTICATED');
  const asUser = await s.api('POST', '/songs', { token: userToken, body: mistyped });
  expect(asUser.status).toBe(403);
  expect(asUser.body.error.code).toBe('FORBIDDEN');
  const asAdmin = await s.api('POST', '/songs', { token: await s.adminToken(), body: mistyped });
  expect(asAdmin.status).toBe(400);
  expect(asAdmin.body.error.code).toBe('VALIDATION_FAILED');
  const badId = await s.api('PUT', '/users/abc', { token: userToken, body: { username: 'x' } });
  expect(badId.status).toBe(403);
});
