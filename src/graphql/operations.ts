import type { z } from 'zod';
import { rules } from '../domain/validation';
import { CONFLICTS, type AppError } from '../errors';
import type { MutationResolvers, QueryResolvers, SubscriptionResolvers } from '../generated/graphql';

/**
 * Everything the service knows about each root field, in one place: who may call it, whether a
 * call is audited, what it weighs in the cost limit, where it lives on the REST wire, its one-line
 * summary and its value rule. The access map (./permissions.ts), the audit (src/observability),
 * the cost weights (./cost-table.ts), the REST routes (src/rest/routes.ts), the OpenAPI summaries
 * and the rules REST checks beside argument types are views of these two tables.
 *
 * The tables are typed over the generated resolver types, so a Query or Mutation field added to
 * the schema without an entry here does not compile, and nor does an entry for a field that does
 * not exist: nothing becomes public, unaudited or unrouted by omission.
 */

/** Who may call a root field (docs/API.md). */
export type Access = 'public' | 'auth' | 'admin' | 'adminOrSelf';

/** The kind of record a write touches, for the audit log. */
export type RecordKind = 'Song' | 'Service' | 'Setlist' | 'User' | 'Webhook';

/**
 * Where a root field lives on REST. Path parameter names are the field's argument names, which is
 * how the operation SOFA derives from the field names its variables.
 */
export interface RestBinding {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** 201 for creates (with a Location header), 204 for deletes (no body); 200 otherwise. */
  status?: 201 | 204;
  /** For single-record reads: a null answer is a 404 for this kind of record. */
  record?: 'Song' | 'Service' | 'User' | 'Webhook';
  /** Also answers CSV (Accept: text/csv or format=csv), written by this writer (src/rest/csv.ts). */
  csv?: 'songUsage';
  /**
   * The same operation also at this path, for a record's own view of it: its path parameters are
   * arguments the main path reads from the query string, and it takes none of the arguments in
   * `without` (what the record stands for).
   */
  alsoAt?: { path: string; without: string[] };
}

/** A root field REST does not serve: cursor connections are for GraphQL front ends. */
export const GRAPHQL_ONLY = 'graphql-only';

export interface Operation {
  access: Access;
  /** One line for explorers and generated clients (the OpenAPI summary). */
  summary: string;
  rest: RestBinding | typeof GRAPHQL_ONLY;
  /**
   * The field's value rules (docs/API.md), beyond what its argument types say. The resolver checks
   * them on both facades; REST also checks them when an argument's type is wrong, so that one
   * answer names every bad field.
   */
  rule?: z.ZodObject;
  /**
   * Database work the cost limit adds once per use of the field (./cost.ts): aggregates over the
   * whole history, a fifth of the default limit (50,000) each, so one document holds at most four.
   */
  weight?: number;
}

export interface MutationOperation extends Operation {
  /** The record kind each write touches, for the audit log; null: not a write. */
  audit: RecordKind | null;
  /** When the write can be refused with 409 CONFLICT: why, and the errors it then answers (the OpenAPI document shows both). */
  conflicts?: { when: string; examples: AppError[] };
}

export type OperationTable<R, O> = { readonly [K in keyof Required<R>]: O };

export const QUERY_OPERATIONS: OperationTable<QueryResolvers, Operation> = {
  songs: {
    access: 'public',
    summary: 'List songs, ordered by id',
    rest: { method: 'GET', path: '/songs' },
    rule: rules.listSongs,
  },
  songsForService: {
    access: 'public',
    summary: 'List the songs of a service, in setlist order',
    rest: { method: 'GET', path: '/songs/forService/:serviceId' },
  },
  songsByArtist: {
    access: 'public',
    summary: 'List the songs of an artist (trimmed, case-insensitive match)',
    rest: { method: 'GET', path: '/songs/byArtist/:artist' },
  },
  songsNotSungSince: {
    access: 'public',
    summary: 'Rotation: songs not sung since a date, never-sung first',
    rest: { method: 'GET', path: '/songs/notSungSince/:date' },
    weight: 10_000,
  },
  songUsageById: {
    access: 'public',
    summary: "One song's usage in a window",
    rest: { method: 'GET', path: '/songs/:songId/usage' },
    weight: 2_000,
  },
  songsSungWith: {
    access: 'public',
    summary: 'Songs most often sung in the same services as a song',
    rest: { method: 'GET', path: '/songs/:songId/sungWith' },
    weight: 5_000,
  },
  song: {
    access: 'public',
    summary: 'Read one song',
    rest: { method: 'GET', path: '/songs/:id', record: 'Song' },
  },
  songsConnection: {
    access: 'public',
    summary: 'Page songs by cursor (GraphQL only)',
    rest: GRAPHQL_ONLY,
  },

  services: {
    access: 'public',
    summary: 'List services, ordered by date, then id',
    rest: { method: 'GET', path: '/services' },
  },
  servicesWithSong: {
    access: 'public',
    summary: 'List the services a song was performed in, ordered by date',
    rest: { method: 'GET', path: '/services/withSong/:songId' },
  },
  servicesAfter: {
    access: 'public',
    summary: 'List services strictly after a date, ordered by date',
    rest: { method: 'GET', path: '/services/byDate/after/:date' },
  },
  servicesBefore: {
    access: 'public',
    summary: 'List services strictly before a date, ordered by date',
    rest: { method: 'GET', path: '/services/byDate/before/:date' },
  },
  servicesBetween: {
    access: 'public',
    summary: 'List services between two dates (inclusive), ordered by date',
    rest: { method: 'GET', path: '/services/byDate/between/:from/:to' },
  },
  service: {
    access: 'public',
    summary: 'Read one service',
    rest: { method: 'GET', path: '/services/:id', record: 'Service' },
  },
  servicesConnection: {
    access: 'public',
    summary: 'Page services by cursor (GraphQL only)',
    rest: GRAPHQL_ONLY,
  },

  // Analytics (docs/API.md, Reports and analytics). The usage report also answers CSV.
  songUsage: {
    access: 'public',
    summary: 'Song usage report (times sung, first and last sung, openers and closers); JSON or CSV',
    rest: { method: 'GET', path: '/reports/songUsage', csv: 'songUsage' },
    weight: 10_000,
  },
  newSongs: {
    access: 'public',
    summary: 'Songs first sung in a window',
    rest: { method: 'GET', path: '/reports/newSongs' },
    weight: 10_000,
  },
  usageTimeline: {
    access: 'public',
    summary: 'Services, performances and distinct songs per week, month, quarter or year',
    rest: { method: 'GET', path: '/reports/timeline' },
    weight: 10_000,
  },
  artistUsage: {
    access: 'public',
    summary: 'Artists by performances of their songs',
    rest: { method: 'GET', path: '/reports/artists' },
    weight: 10_000,
  },
  songsSungOften: {
    access: 'public',
    summary: 'Songs sung in more than a share of the most recent services (overuse at a glance)',
    rest: { method: 'GET', path: '/reports/sungOften' },
    // The setlists of at most 1,000 recent services, found through the date index.
    weight: 5_000,
  },

  suggestSongs: {
    access: 'public',
    summary: 'Songs to sing at a service, best first, with their scores and the reasons in words',
    rest: { method: 'GET', path: '/suggestions', alsoAt: { path: '/services/:serviceId/suggestions', without: ['date', 'serviceType'] } },
    // Two runs of recent setlists, the week's setlists, the chosen songs' companions and the
    // candidates' rhythms: about a sung-often report's work.
    weight: 5_000,
  },

  me: {
    access: 'auth',
    summary: 'Read the user the token belongs to',
    rest: { method: 'GET', path: '/users/me' },
  },
  users: {
    access: 'admin',
    summary: 'List users (ADMIN)',
    rest: { method: 'GET', path: '/users' },
  },
  user: {
    access: 'adminOrSelf',
    summary: 'Read one user (ADMIN, or the user itself)',
    rest: { method: 'GET', path: '/users/:id', record: 'User' },
  },

  webhooks: {
    access: 'admin',
    summary: 'List webhook endpoints (ADMIN)',
    rest: { method: 'GET', path: '/webhooks' },
  },
  webhook: {
    access: 'admin',
    summary: 'Read one webhook endpoint (ADMIN)',
    rest: { method: 'GET', path: '/webhooks/:id', record: 'Webhook' },
  },
  webhookDeliveries: {
    access: 'admin',
    summary: "A webhook endpoint's delivery log, newest event first (ADMIN)",
    rest: { method: 'GET', path: '/webhooks/:id/deliveries' },
  },
};

export const MUTATION_OPERATIONS: OperationTable<MutationResolvers, MutationOperation> = {
  createSong: {
    access: 'admin',
    summary: 'Create a song (ADMIN)',
    rest: { method: 'POST', path: '/songs', status: 201 },
    rule: rules.createSong,
    audit: 'Song',
  },
  updateSong: {
    access: 'auth',
    summary: 'Update a song (fields given replace, others keep)',
    rest: { method: 'PUT', path: '/songs/:id' },
    rule: rules.updateSong,
    audit: 'Song',
  },
  deleteSong: {
    access: 'auth',
    summary: 'Delete a song and its performance links',
    rest: { method: 'DELETE', path: '/songs/:id', status: 204 },
    audit: 'Song',
  },
  mergeSongs: {
    access: 'admin',
    summary: 'Merge duplicate songs into the song keepId (ADMIN)',
    rest: { method: 'POST', path: '/songs/:keepId/merge' },
    rule: rules.mergeSongs,
    audit: 'Song',
  },

  createService: {
    access: 'auth',
    summary: 'Create a service',
    rest: { method: 'POST', path: '/services', status: 201 },
    audit: 'Service',
    conflicts: { when: 'another service has the same date and serviceType', examples: [CONFLICTS.serviceSlotTaken(12)] },
  },
  updateService: {
    access: 'auth',
    summary: 'Update a service (fields given replace, others keep)',
    rest: { method: 'PUT', path: '/services/:id' },
    audit: 'Service',
    conflicts: { when: 'another service has the same date and serviceType', examples: [CONFLICTS.serviceSlotTaken(12)] },
  },
  deleteService: {
    access: 'auth',
    summary: 'Delete a service and its performance links',
    rest: { method: 'DELETE', path: '/services/:id', status: 204 },
    audit: 'Service',
  },
  setServiceSongs: {
    access: 'auth',
    summary: 'Replace the whole setlist of a service',
    rest: { method: 'PUT', path: '/services/:serviceId/songs' },
    rule: rules.setlist,
    audit: 'Setlist',
  },
  addSongToService: {
    access: 'auth',
    summary: 'Link a song to a service, optionally at a setlist position',
    rest: { method: 'PUT', path: '/services/:serviceId/songs/:songId' },
    rule: rules.link,
    audit: 'Setlist',
  },
  removeSongFromService: {
    access: 'auth',
    summary: 'Unlink a song from a service',
    rest: { method: 'DELETE', path: '/services/:serviceId/songs/:songId', status: 204 },
    audit: 'Setlist',
  },

  login: {
    access: 'public',
    summary: 'Exchange a username and password for a bearer token',
    rest: { method: 'POST', path: '/users/login' },
    audit: null,
  },
  createUser: {
    access: 'admin',
    summary: 'Create a user (ADMIN)',
    rest: { method: 'POST', path: '/users', status: 201 },
    rule: rules.createUser,
    audit: 'User',
    conflicts: { when: 'the username is taken (ignoring case)', examples: [CONFLICTS.usernameTaken('alice')] },
  },
  updateUser: {
    access: 'adminOrSelf',
    summary: 'Update a user (ADMIN, or the user itself)',
    rest: { method: 'PUT', path: '/users/:id' },
    rule: rules.updateUser,
    audit: 'User',
    conflicts: {
      when: 'the new username is taken (ignoring case), or the change would leave no ADMIN',
      examples: [CONFLICTS.usernameTaken('alice'), CONFLICTS.lastAdmin()],
    },
  },
  deleteUser: {
    access: 'admin',
    summary: 'Delete a user (ADMIN)',
    rest: { method: 'DELETE', path: '/users/:id', status: 204 },
    audit: 'User',
    conflicts: { when: 'the user is the last ADMIN', examples: [CONFLICTS.lastAdmin()] },
  },

  createWebhook: {
    access: 'admin',
    summary: 'Make a webhook endpoint; the answer shows its signing secret, once (ADMIN)',
    rest: { method: 'POST', path: '/webhooks', status: 201 },
    rule: rules.createWebhook,
    audit: 'Webhook',
  },
  updateWebhook: {
    access: 'admin',
    summary: 'Change a webhook endpoint (fields given replace, others keep); enabling clears its failure record (ADMIN)',
    rest: { method: 'PUT', path: '/webhooks/:id' },
    rule: rules.updateWebhook,
    audit: 'Webhook',
  },
  deleteWebhook: {
    access: 'admin',
    summary: 'Delete a webhook endpoint and its delivery log (ADMIN)',
    rest: { method: 'DELETE', path: '/webhooks/:id', status: 204 },
    audit: 'Webhook',
  },
  rotateWebhookSecret: {
    access: 'admin',
    summary: 'A new signing secret, shown in the answer; the old one signs too for 24 hours (ADMIN)',
    rest: { method: 'POST', path: '/webhooks/:id/rotateSecret' },
    audit: 'Webhook',
  },
  redeliverWebhook: {
    access: 'admin',
    summary: 'Deliver again one event (eventId), or every event of the endpoint\'s kinds after one (since) (ADMIN)',
    rest: { method: 'POST', path: '/webhooks/:id/redeliver' },
    rule: rules.redeliverWebhook,
    audit: 'Webhook',
  },
};

/**
 * Subscriptions (over WebSocket: ./subscriptions.ts) show what the public reads show, as it
 * changes: public too, decided by the same rule.
 */
export const SUBSCRIPTION_OPERATIONS: OperationTable<SubscriptionResolvers, { access: 'public'; summary: string }> = {
  setlistChanged: { access: 'public', summary: "A service each time its setlist changes" },
  serviceChanged: { access: 'public', summary: 'Every service created, changed or deleted' },
  songChanged: { access: 'public', summary: 'Every song created, changed, deleted or merged into' },
};

export type QueryField = keyof typeof QUERY_OPERATIONS;
export type MutationField = keyof typeof MUTATION_OPERATIONS;

/** A root field as `Query.songs` or `Mutation.createSong`. */
export type RootField = `Query.${QueryField}` | `Mutation.${MutationField}`;

export interface RootOperation extends Operation {
  field: RootField;
  /** The field's name alone: `songs`, `createSong`. */
  name: QueryField | MutationField;
  root: 'Query' | 'Mutation';
  /** Set on mutations only. */
  audit?: RecordKind | null;
}

/** Every root field's operation, queries first, each table in its written order. */
export const ROOT_OPERATIONS: readonly RootOperation[] = [
  ...Object.entries(QUERY_OPERATIONS).map(([name, op]) => ({ ...op, name: name as QueryField, root: 'Query' as const, field: `Query.${name}` as RootField })),
  ...Object.entries(MUTATION_OPERATIONS).map(([name, op]) => ({ ...op, name: name as MutationField, root: 'Mutation' as const, field: `Mutation.${name}` as RootField })),
];

const BY_FIELD = new Map<string, RootOperation>(ROOT_OPERATIONS.map((op) => [op.field, op]));

/** The operation of a root field. */
export function operationOf(field: RootField): RootOperation {
  return BY_FIELD.get(field)!;
}
