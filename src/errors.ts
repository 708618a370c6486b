import { GraphQLError } from 'graphql';

/** Every error code the API speaks (docs/API.md), with its HTTP status. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * An error meant for the client. It is a GraphQLError so that resolvers can throw it and both
 * facades read the same `extensions.code`; REST maps the code to a status in src/rest/errors.ts;
 * src/http/errors.ts turns anything thrown into one.
 */
export class AppError extends GraphQLError {
  readonly code: ErrorCode;
  readonly details?: FieldProblem[];
  /** Seconds, for RATE_LIMITED and UNAVAILABLE (the `Retry-After` header). */
  readonly retryAfter?: number;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: FieldProblem[]; retryAfter?: number; path?: ReadonlyArray<string | number> } = {},
  ) {
    const extensions: Record<string, unknown> = { code };
    if (opts.details) extensions.details = opts.details;
    if (opts.retryAfter !== undefined) extensions.retryAfter = opts.retryAfter;
    super(message, { extensions, path: opts.path });
    this.code = code;
    this.details = opts.details;
    this.retryAfter = opts.retryAfter;
  }
}

export const notFound = (what: string, id: number | string) =>
  new AppError('NOT_FOUND', `${what} ${id} does not exist`);

export const validationFailed = (details: FieldProblem[]) =>
  new AppError('VALIDATION_FAILED', 'The request is not valid', { details });

/** The write conflicts with the records as they are (409): the resolvers throw these, the OpenAPI document shows them. */
export const CONFLICTS = {
  usernameTaken: (username: string) => new AppError('CONFLICT', `The username '${username}' is taken`),
  lastAdmin: () => new AppError('CONFLICT', 'The last ADMIN can be neither deleted nor demoted'),
  /** One service per date and type (docs/API.md): the answer names the service that has them. */
  serviceSlotTaken: (holder: number) =>
    new AppError('CONFLICT', `Service ${holder} has the same date and serviceType`, {
      details: [{ field: 'date', message: `service ${holder} is a service of this type at this date` }],
    }),
} as const;

/**
 * Seconds a client is told to wait (`Retry-After`) after a 503 UNAVAILABLE: the store kept
 * failing for its whole retry budget, so an immediate retry would most likely fail too.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Thrown by store adapters when the database cannot be reached, or did not answer within its
 * transaction time limit (`message` says which).
 */
export class StoreUnavailableError extends AppError {
  constructor(cause?: unknown, message = 'The database is unavailable; try again shortly') {
    super('UNAVAILABLE', message, { retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS });
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}
