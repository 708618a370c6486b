import { Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
// A dependency of @apollo/server, so always installed with it.
import { LRUCache } from 'lru-cache';
import { compileOperation, type Run } from './jit';

/**
 * The operations /graphql runs, each compiled once by graphql-jit (./jit.ts) and kept in a cache
 * bounded by entries and by estimated bytes: every distinct query text is a new document, and its
 * compiled code is 100-300 times the size of the text, so anonymous clients sending endless
 * distinct queries cost recompilation, not this cache's memory.
 *
 * graphql-jit bakes the schema, the document and the chosen operation into the function, so all
 * three make the key: a document with two operations compiles once per operation name asked for.
 * Apollo hands over the same document object for the same query text while its document store
 * holds it, so hits are by identity.
 */
export interface CompiledCacheLimits {
  /** Most compiled operations kept. */
  maxEntries: number;
  /** Most estimated heap bytes kept (see `estimatedBytes`). */
  maxBytes: number;
}

export const DEFAULT_COMPILED_CACHE: CompiledCacheLimits = { maxEntries: 500, maxBytes: 32 * 1024 * 1024 };

/**
 * What one compiled operation holds on the heap, from its document alone. graphql-jit writes code
 * for every field of the operation with fragments expanded (a short query with fragments and
 * aliases compiles to much code), and that code is what stays: 4.1-5.2 KiB per field on Node 20,
 * over operations of 4 to 70 fields (bench/compiled-size.ts).
 */
const BYTES_PER_FIELD = 5_500;
const BYTES_PER_ENTRY = 2_048;

export function estimatedBytes(document: DocumentNode, operationName: string | undefined): number {
  return BYTES_PER_ENTRY + BYTES_PER_FIELD * operationFields(document, operationName);
}

/** The fields of the operation (the one named, or the first), fragments expanded: what graphql-jit writes code for. */
export function operationFields(document: DocumentNode, operationName: string | undefined): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // A fragment counted once is known: fragments spread many times count without walking again.
  const perFragment = new Map<string, number>();
  const count = (set: SelectionSetNode): number => {
    let fields = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) fields += 1 + (s.selectionSet ? count(s.selectionSet) : 0);
      else if (s.kind === Kind.INLINE_FRAGMENT) fields += count(s.selectionSet);
      else {
        let n = perFragment.get(s.name.value);
        if (n === undefined) {
          // Validation refuses cycles before anything is compiled; an unknown name counts nothing.
          perFragment.set(s.name.value, 0);
          const fragment = fragments.get(s.name.value);
          perFragment.set(s.name.value, (n = fragment ? count(fragment.selectionSet) : 0));
        }
        fields += n;
      }
    }
    return fields;
  };
  const operation = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (operationName === undefined || d.name?.value === operationName),
  );
  return operation?.kind === Kind.OPERATION_DEFINITION ? count(operation.selectionSet) : 0;
}

/** The compiled operation, or null when graphql-jit cannot compile it. */
interface Entry {
  run: Run | null;
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

export function createCompiledOperations(limits: CompiledCacheLimits = DEFAULT_COMPILED_CACHE) {
  const idOf = identities();
  // Each entry's size is given when it is set: it changes when the operation is compiled.
  const cache = new LRUCache<string, Entry>({ max: limits.maxEntries, maxSize: limits.maxBytes });
  let compilations = 0;

  /**
   * The compiled operation, or null when graphql-jit cannot compile it: it then runs interpreted,
   * and the interpreter reports what is wrong with it.
   */
  function compiled(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): Run | null {
    const key = `${idOf(schema)}/${idOf(document)}/${operationName === undefined ? '' : `=${operationName}`}`;
    const hit = cache.get(key);
    if (hit) return hit.run;
    compilations++;
    const run = compileOperation(schema, document, operationName);
    // An entry over the whole budget is not kept (lru-cache refuses it): it runs, then is freed.
    cache.set(key, { run }, { size: run ? estimatedBytes(document, operationName) : BYTES_PER_ENTRY });
    return run;
  }

  return {
    compiled,
    /** What the cache holds now and how often it compiled: for tests. */
    cacheStats: () => ({ entries: cache.size, bytes: cache.calculatedSize, compilations }),
  };
}

export type CompiledOperations = ReturnType<typeof createCompiledOperations>;
