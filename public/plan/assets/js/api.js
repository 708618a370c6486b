// The page's only data path: the public GraphQL API at /graphql, with the signed-in user's token.

const SESSION_KEY = 'plan.session';

/** The session lives in this tab only (sessionStorage): never in a URL or localStorage. */
export const session = {
  get() {
    try {
      const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
      return s && typeof s.token === 'string' ? s : null;
    } catch {
      return null;
    }
  },
  set(value) {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(value));
  },
  clear() {
    sessionStorage.removeItem(SESSION_KEY);
  },
};

/** An error the page can put in words: the API's code, message and field details. */
export class ApiError extends Error {
  constructor(message, code = 'ERROR', details = []) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

const WORDS = {
  UNAUTHENTICATED: 'Your session has ended. Sign in again.',
  FORBIDDEN: 'Your account may not do this.',
  RATE_LIMITED: 'Too many requests for now: wait a moment, then try again.',
  UNAVAILABLE: 'The database is not answering just now: try again in a moment.',
  INTERNAL: 'Something went wrong on the server. Try again; if it keeps happening, tell whoever runs it.',
};

/** What to tell the user about an error, in words. */
export function inWords(err) {
  if (!(err instanceof ApiError)) return String(err?.message ?? err);
  return err.details?.length ? `${err.message}: ${err.details.map((d) => `${d.field} ${d.message}`).join('; ')}` : err.message;
}

/** POST a document with variables; the first GraphQL error becomes an ApiError with its code. */
export async function gql(query, variables = {}, signal) {
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const token = session.get()?.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }), signal });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError('The server could not be reached. Check your connection, then try again.', 'NETWORK');
  }
  let body;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(`The server answered ${res.status} ${res.statusText} without data.`, 'HTTP');
  }
  const first = body.errors?.[0];
  if (first) {
    const code = first.extensions?.code ?? 'ERROR';
    // With a token, UNAUTHENTICATED means it expired (or was revoked); without, the message says what failed (a login).
    const message = code === 'UNAUTHENTICATED' ? (token ? WORDS.UNAUTHENTICATED : first.message) : (WORDS[code] ?? first.message);
    throw new ApiError(message, code, first.extensions?.details ?? []);
  }
  if (!res.ok || !body.data) throw new ApiError(`The server answered ${res.status} ${res.statusText}.`, 'HTTP');
  return body.data;
}
