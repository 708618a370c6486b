import { SqliteStore } from './sqlite/store';
import type { Store } from './types';

export interface StoreOptions {
  store: 'sqlite' | 'neo4j';
  sqlitePath: string;
  neo4j: { uri?: string; user?: string; password?: string; database?: string };
}

export async function createStore(opts: StoreOptions): Promise<Store> {
  if (opts.store === 'sqlite') return new SqliteStore(opts.sqlitePath);
  throw new Error('The Neo4j store is not available in this build');
}
