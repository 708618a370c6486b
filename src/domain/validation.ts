import { z } from 'zod';
import { AppError, validationFailed, type FieldProblem } from '../errors';
import { ARTISTS_MAX } from './artists';
import { CCLI_DIGITS, COPYRIGHT_MAX_LENGTH } from './licensing';
import { SETLIST_MAX_SONGS } from './setlist';
import { MERGE_MAX_SONGS } from './song-merge';
import { EVENT_KINDS } from '../events/changes';

/**
 * The value rules of docs/API.md, shared by both facades. Types (string, integer, enum) are
 * already enforced by the GraphQL schema; these are the rules a type cannot express.
 */
/**
 * Not only whitespace: one character that is not (what String.prototype.trim removes). Written as
 * a pattern, not a refinement, so that the OpenAPI document states it (src/rest/openapi.ts); U+FEFF
 * is named because other regex dialects (Python's) do not count it as whitespace.
 */
const NOT_BLANK = /[^\s\ufeff]/;
/** GraphQL's Int: an id or position past it is refused by the type before any rule. */
export const INT_MAX = 2_147_483_647;
/**
 * No control characters but tab (C0 and DEL): a line break or a NUL in a title, an artist or a
 * copyright line is always a paste gone wrong, and would break every line-based file the records
 * go into (a NUL also ends a string for SQLite's length(), which its licensing CHECK reads).
 */
const NO_CONTROL = /^[^\u0000-\u0008\u000A-\u001F\u007F]*$/;
const name = z
  .string()
  .max(300, 'must be at most 300 characters')
  .regex(NOT_BLANK, 'must not be empty')
  .regex(NO_CONTROL, 'must not contain control characters (line breaks included); tab is allowed');
const artists = z
  .array(
    z
      .string()
      .max(200, 'entries must be at most 200 characters')
      .regex(NO_CONTROL, 'entries must not contain control characters (line breaks included); tab is allowed'),
  )
  .max(ARTISTS_MAX, `must have at most ${ARTISTS_MAX} entries`);
/** An empty string records none (./licensing.ts): `null` is never accepted for a field. */
const ccliNumber = z.string().regex(new RegExp(`^(?:${CCLI_DIGITS})?$`), 'must be 1 to 10 digits');
const copyright = z
  .string()
  .max(COPYRIGHT_MAX_LENGTH, `must be at most ${COPYRIGHT_MAX_LENGTH} characters`)
  .regex(NO_CONTROL, 'must not contain control characters (line breaks included); tab is allowed');
const username = z
  .string()
  .min(3, 'must be 3 to 64 characters')
  .max(64, 'must be 3 to 64 characters')
  .regex(/^[A-Za-z0-9._@-]*$/, 'may contain only letters, digits and . _ @ -');
const password = z.string().min(8, 'must be 8 to 256 characters').max(256, 'must be 8 to 256 characters');
const position = z.number().int().min(1, 'must be at least 1').max(INT_MAX);
const id = z.number().int().min(1, 'must be a positive id').max(INT_MAX);
const songIds = z
  .array(z.number().int().min(1, 'entries must be positive ids').max(INT_MAX))
  .max(SETLIST_MAX_SONGS, `must have at most ${SETLIST_MAX_SONGS} entries (the most songs a service holds)`)
  .refine((ids) => new Set(ids).size === ids.length, 'must not list the same song twice')
  .meta({ uniqueItems: true });

const nonNull = <T extends z.ZodTypeAny>(t: T) => t.optional();

/**
 * A webhook endpoint's URL, in printable ASCII (internationalised names in their xn-- form): a
 * host name, an IPv4 address or a bracketed IPv6 one, a port, then a path. Written with explicit
 * character classes so that every regex dialect reading the OpenAPI document agrees on it. Where
 * the host resolves to is checked apart (src/webhooks/targets.ts).
 */
const webhookUrl = z
  .string()
  .max(2000, 'must be at most 2000 characters')
  .regex(
    /^https?:\/\/(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?(?:[/?#][!-~]*)?$/,
    'must be an http or https URL: a host name or address, an optional port, then a path, in printable ASCII with no user name',
  );
const eventKinds = z
  .array(z.enum(EVENT_KINDS, { error: `entries must be event kinds: ${EVENT_KINDS.join(', ')}` }))
  .min(1, 'must name at least one event kind')
  .max(EVENT_KINDS.length, `must have at most ${EVENT_KINDS.length} entries`)
  .refine((kinds) => new Set(kinds).size === kinds.length, 'must not list the same kind twice')
  .meta({ uniqueItems: true });
const webhookDescription = z
  .string()
  .max(500, 'must be at most 500 characters')
  .regex(NO_CONTROL, 'must not contain control characters (line breaks included); tab is allowed');
/** An event id (src/events/changes.ts EVENT_ID). */
export const eventId = z.string().regex(/^evt_[0-9a-f]{1,40}$/, 'must be an event id (evt_ and up to 40 hex digits)');
/** Song search text (SEARCH_MAX_LENGTH in ./search.ts). */
const search = z.string().max(200, 'must be at most 200 characters').regex(NOT_BLANK, 'must not be empty');

export const rules = {
  createSong: z.object({ name, artists: artists.optional(), ccliNumber: ccliNumber.optional(), copyright: copyright.optional() }),
  updateSong: z.object({
    name: nonNull(name),
    artists: nonNull(artists),
    ccliNumber: nonNull(ccliNumber),
    copyright: nonNull(copyright),
  }),
  link: z.object({ position: position.optional() }),
  mergeSongs: z
    .object({
      keepId: id,
      mergeIds: z
        .array(id)
        .min(1, 'must name at least one song')
        .max(MERGE_MAX_SONGS, `must have at most ${MERGE_MAX_SONGS} entries`)
        .refine((ids) => new Set(ids).size === ids.length, 'must not list the same song twice')
        .meta({ uniqueItems: true }),
    })
    .refine((a) => !a.mergeIds.includes(a.keepId), { path: ['mergeIds'], message: 'must not include keepId (the song merged into)' }),
  setlist: z.object({ songIds }),
  createUser: z.object({ username, password }),
  updateUser: z.object({ username: nonNull(username), password: nonNull(password) }),
  createWebhook: z.object({ url: webhookUrl, events: eventKinds, description: webhookDescription.optional() }),
  updateWebhook: z.object({ url: nonNull(webhookUrl), events: nonNull(eventKinds), description: nonNull(webhookDescription) }),
  redeliverWebhook: z
    .object({ eventId: nonNull(eventId), since: nonNull(eventId) })
    .refine((a) => (a.eventId === undefined) !== (a.since === undefined), {
      path: ['eventId'],
      message: 'give eventId (one event) or since (every event after it), not both',
    }),
  listSongs: z
    .object({ search: nonNull(search), sort: z.unknown().optional() })
    .refine((a) => a.search === undefined || a.sort == null, {
      path: ['sort'],
      message: 'cannot be combined with a search (results come by relevance)',
    }),
};

const problemsOf = (error: z.ZodError): FieldProblem[] =>
  error.issues.map((i) => ({ field: i.path.filter((p) => typeof p === 'string').join('.'), message: i.message }));

/** Every rule problem of `input` (empty when it passes); a `null` counts as one, as in `validate`. */
export function ruleProblems(schema: z.ZodObject, input: Record<string, unknown>): FieldProblem[] {
  const nulls = Object.keys(schema.shape).filter((k) => input[k] === null);
  if (nulls.length) return nulls.map((field) => ({ field, message: 'must not be null' }));
  const result = schema.safeParse(input);
  return result.success ? [] : problemsOf(result.error);
}

/**
 * Check `input` against `schema`; on failure throw VALIDATION_FAILED naming every bad field.
 * A `null` for an optional field is refused rather than read as "absent": it is never meaningful.
 */
export function validate<S extends z.ZodObject>(schema: S, input: Record<string, unknown>): z.infer<S> {
  const nulls = Object.keys(schema.shape).filter((k) => input[k] === null);
  if (nulls.length) throw validationFailed(nulls.map((field) => ({ field, message: 'must not be null' })));
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationFailed(problemsOf(result.error));
}

const MAX_INT = 2 ** 31 - 1;

/** Record ids are positive 32-bit integers (GraphQL Int). */
export function assertId(value: number, what = 'id'): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_INT) {
    throw new AppError('BAD_REQUEST', `${what} must be a positive integer`);
  }
  return value;
}

export interface Page {
  limit?: number;
  offset?: number;
}

/**
 * The largest page of every list (docs/API.md: `limit` and `first` are 1 to 1000), in one place:
 * the checks, the cost rule (src/graphql/cost-table.ts) and the OpenAPI document read it.
 */
export const MAX_PAGE = 1000;

/** Optional paging of any list (docs/API.md): limit 1–MAX_PAGE, offset ≥ 0. */
export function checkPage(page: { limit?: number | null; offset?: number | null }): Page {
  const { limit, offset } = page;
  if (limit != null && (limit < 1 || limit > MAX_PAGE)) throw new AppError('BAD_REQUEST', `limit must be between 1 and ${MAX_PAGE}`);
  if (offset != null && offset < 0) throw new AppError('BAD_REQUEST', 'offset must be 0 or more');
  return { limit: limit ?? undefined, offset: offset ?? undefined };
}
