import { randomBytes } from 'node:crypto';
import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { ChangeEvent, NewEvent } from '../../events/changes';
import { run, type Tx } from './run';
import { fromInt } from './values';
import { wrote } from './write-plan';

/** This process's tag in its event ids, and its count of transactions that recorded events. */
const TAG = randomBytes(4).toString('hex');
let recorded = 0;

/** The id form ./event-statements.ts makes: `evt_`, 13 digits of ms, 10 of count, 4 of place, 8 hex of tag. */
export const NEO4J_EVENT_ID = /^evt_\d{27}[0-9a-f]{8}$/;

/** Record a write's events in its transaction (./event-statements.ts): one round trip, none when there are none. */
export async function recordEvents(tx: Tx, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const count = String(recorded++ % 1e10).padStart(10, '0');
  const rows = events.map((e, i) => ({ key: `${count}${String(i).padStart(4, '0')}${TAG}`, type: e.type, data: JSON.stringify(e.data) }));
  wrote('recordEvents', 'recorded', rows.length)(await run(tx, 'recordEvents', { rows }));
}

export const toEvent = (r: Neo4jRecord): ChangeEvent =>
  ({
    id: r.get('id') as string,
    type: r.get('type') as string,
    timestamp: fromInt(r.get('at'), 'event time'),
    data: JSON.parse(r.get('data') as string),
  }) as ChangeEvent;
