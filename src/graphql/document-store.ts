import type { DocumentNode } from 'graphql';
// A dependency of @apollo/server, so always installed with it.
import { LRUCache } from 'lru-cache';

/**
 * Apollo's cache of parsed and validated documents, by query hash. Apollo's default holds 30 MiB
 * measured as the documents' JSON, which is about a third of what they take on the heap: some
 * 10,000 small queries, over 80 MB, enough with the compiled operations to exhaust a 160 MiB heap
 * (scripts/soak-graphql.ts). This one is bounded by entries and by an estimate of heap bytes,
 * measured on Node 20 at about 60 per character of query text.
 */
const BYTES_PER_SOURCE_CHAR = 64;
const BYTES_PER_ENTRY = 1024;

export interface DocumentStoreLimits {
  maxEntries: number;
  maxBytes: number;
}

export const DEFAULT_DOCUMENT_STORE: DocumentStoreLimits = { maxEntries: 2000, maxBytes: 24 * 1024 * 1024 };

export function documentStore(limits: DocumentStoreLimits = DEFAULT_DOCUMENT_STORE) {
  const cache = new LRUCache<string, DocumentNode>({
    max: limits.maxEntries,
    maxSize: limits.maxBytes,
    sizeCalculation: (doc) => BYTES_PER_ENTRY + BYTES_PER_SOURCE_CHAR * (doc.loc?.source.body.length ?? 0),
  });
  return {
    get: async (key: string) => cache.get(key),
    set: async (key: string, value: DocumentNode) => void cache.set(key, value),
    delete: async (key: string) => cache.delete(key),
  };
}
