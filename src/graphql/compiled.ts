import v8 from 'node:v8';
import { execute, GraphQLError, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
// A dependency of @apollo/server, so always installed with it.
import { LRUCache } from 'lru-cache';

/**
 * `graphql.execute` with each operation compiled once by graphql-jit into a plain function, which
 * spares graphql-js's per-field interpretation (argument lookup, type dispatch) on every field of
 * every record: the bulk of the cost of a 1,000-record list. Same schema, same resolvers (shield
 * included).
 *
 * graphql-jit bakes the schema, the document and the chosen operation into the function, so all
 * three make the key: a document with two operations compiles once per operation name asked for.
 * Every distinct query text is a new document, and its compiled code is 100-300 times the size of
 * the text, so the cache is bounded by entries and by (estimated) bytes: anonymous clients sending
 * endless distinct queries cost recompilation, never memory. SOFA's per-route documents and the
 * documents Apollo caches per query text are the same objects on every request, so they hit.
 */
export interface CompiledCacheLimits {
  /** Most compiled operations kept. */
  maxEntries: number;
  /** Most estimated heap bytes kept (see `compile`). */
  maxBytes: number;
}

export const DEFAULT_COMPILED_CACHE: CompiledCacheLimits = { maxEntries: 500, maxBytes: 32 * 1024 * 1024 };

/**
 * What one compiled operation costs in heap. The generated function's text is the honest measure:
 * fragments and aliases make a short query compile to much code, and V8 keeps the text beside the
 * function. Measured on Node 20 over small to 15-alias queries with fragments: 2.7-3.2 heap bytes
 * per character of generated code, plus the compiled query object itself.
 */
const BYTES_PER_CODE_CHAR = 3;
const BYTES_PER_ENTRY = 2048;
// graphql-jit hands out the generated text only under this name, and only with `debug` on.
const GENERATED_CODE = '__DO_NOT_USE_THIS_OR_YOU_WILL_BE_FIRED_compilation';

/**
 * graphql-jit turns each operation into code with `new Function`, and V8 keeps every such source
 * in its eval compilation cache, clearing it only near heap exhaustion: measured on Node 20, about
 * 35 KB per distinct query stayed on the heap after any number of full collections, whatever this
 * module's cache let go. That cache can never hit here (each operation is compiled once, then kept
 * above), so it is off while graphql-jit compiles, and only then: other code's evals (on every
 * request, 15-20% of a single REST read when the cache was off for the whole process) still hit.
 * V8 reads the flag on each lookup and insertion, and compiling is synchronous.
 */
function withoutV8CompilationCache<T>(compile: () => T): T {
  v8.setFlagsFromString('--no-compilation-cache');
  try {
    return compile();
  } finally {
    v8.setFlagsFromString('--compilation-cache');
  }
}

function compile(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Entry {
  const result = withoutV8CompilationCache(() => compileQuery(schema, document, operationName, { debug: true } as object));
  if (!isCompiledQuery(result)) return { query: null, bytes: BYTES_PER_ENTRY };
  const record = result as unknown as Record<string, unknown>;
  const code = record[GENERATED_CODE];
  delete record[GENERATED_CODE];
  return { query: result, bytes: BYTES_PER_ENTRY + BYTES_PER_CODE_CHAR * (typeof code === 'string' ? code.length : 0) };
}

/**
 * graphql-js reports every failure as a GraphQLError with an `extensions` object and, for a
 * resolver's error, the cause as `originalError`. graphql-jit's errors pass `instanceof` but carry
 * no `extensions` (Apollo's formatting reads `extensions.code` and fails), and a resolver's
 * returned Error (how graphql-shield passes errors on) comes back as that Error itself. Rebuild
 * such errors so both facades' error mapping sees what graphql-js would give it.
 */
type LooseError = Error & {
  path?: (string | number)[];
  locations?: unknown;
  extensions?: Record<string, unknown>;
  originalError?: Error;
};

function asGraphQLError(error: LooseError): GraphQLError {
  if (error instanceof GraphQLError && error.extensions) return error;
  const cause = error.originalError ?? (error instanceof GraphQLError ? undefined : error);
  const wrapped = new GraphQLError(error.message, { path: error.path, originalError: cause, extensions: error.extensions });
  if (error.locations) Object.assign(wrapped, { locations: error.locations });
  return wrapped;
}

function withGraphQLErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map((e) => asGraphQLError(e as LooseError)) };
}

/** `query` null: graphql-jit could not compile it; it runs interpreted. */
interface Entry {
  query: CompiledQuery | null;
  bytes: number;
}

/**
 * Documents and schemas are compared by identity: a small number names each one so that a cache
 * key is a short string. The numbers live as long as their objects do.
 */
function identities() {
  const ids = new WeakMap<object, number>();
  let next = 0;
  return (o: object): number => {
    let id = ids.get(o);
    if (id === undefined) ids.set(o, (id = next++));
    return id;
  };
}

export function createCompiledExecute(limits: CompiledCacheLimits = DEFAULT_COMPILED_CACHE) {
  const idOf = identities();
  // Each entry's size is given when it is set: it is known only on a miss.
  const cache = new LRUCache<string, Entry>({ max: limits.maxEntries, maxSize: limits.maxBytes });
  let compilations = 0;

  function compiledFor(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Entry {
    const identity = `${idOf(schema)}/${idOf(document)}/${operationName === undefined ? '' : `=${operationName}`}`;
    const hit = cache.get(identity);
    if (hit) return hit;
    compilations++;
    const entry = compile(schema, document, operationName);
    // An entry over the whole budget is not kept (lru-cache refuses it): it runs, then is freed.
    cache.set(identity, entry, { size: entry.bytes });
    return entry;
  }

  async function compiledExecute(args: ExecutionArgs): Promise<ExecutionResult> {
    // graphql-jit takes an empty name for none and would run a lone operation; to graphql-js (and
    // Apollo) it is a name that matches nothing, which graphql-js reports.
    if (args.operationName === '') return execute(args);
    // A document graphql-jit cannot compile (or an operation name it does not hold) runs
    // interpreted, and graphql-js reports the mistake as Apollo expects.
    const { query } = compiledFor(args.schema, args.document, args.operationName ?? undefined);
    if (query === null) return execute(args);
    return withGraphQLErrors(await query.query(args.rootValue, args.contextValue, args.variableValues ?? {}));
  }

  return Object.assign(compiledExecute, {
    /** What the cache holds now and how often it compiled: for tests. */
    cacheStats: () => ({ entries: cache.size, bytes: cache.calculatedSize, compilations }),
  });
}
