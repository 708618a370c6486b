import type { ManagedTransaction, Record as Neo4jRecord, Result } from 'neo4j-driver';
import { CYPHER, PARAMS, type StatementName } from './statements';
import { encodeParams } from './values';

/** What a statement runs in: a managed transaction (or a wrapper of one, in the tests). */
export type Tx = Pick<ManagedTransaction, 'run'>;
export type Params = Record<string, unknown>;

/**
 * Send one named statement with its parameters encoded against its declaration (./values.ts:
 * numbers declared INTEGER become Cypher INTEGERs, anything else undeclared is refused). Not
 * awaited: statements sent back to back go to the server in one round trip (./write-plan.ts).
 */
export function send(tx: Tx, name: StatementName, params: Params = {}): Result {
  return tx.run(CYPHER[name], encodeParams(name, PARAMS[name], params)) as Result;
}

/** Run one named statement; its rows. */
export async function run(tx: Tx, name: StatementName, params: Params = {}): Promise<Neo4jRecord[]> {
  return (await send(tx, name, params)).records;
}
