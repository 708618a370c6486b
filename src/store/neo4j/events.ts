import { randomBytes } from 'node:crypto';
import type { Record as Neo4jRecord } from 'neo4j-driver';
import type { ChangeEvent, NewEvent } from '../../events/changes';
import { run, type Tx } from './run';
import { fromInt } from './values';
import { wrote, type WritePlan } from './write-plan';

/** This process's tag in its event ids, and its count of transactions that recorded events. */
const TAG = randomBytes(4).toString('hex');
let recorded = 0;

/** The id form ./event-statements.ts makes: `evt_`, 13 digits of ms, 10 of count, 4 of place, 8 hex of tag. */
export const NEO4J_EVENT_ID = /^evt_\d{27}[0-9a-f]{8}$/;

/** The statement's rows for a write's events, each keyed as ./event-statements.ts says. */
function eventRows(events: readonly NewEvent[]) {
  const count = String(recorded++ % 1e10).padStart(10, '0');
  return events.map((e, i) => ({ key: `${count}${String(i).padStart(4, '0')}${TAG}`, type: e.type, data: JSON.stringify(e.data) }));
}

/** Record a write's events in its transaction (./event-statements.ts): one round trip, none when there are none. */
export async function recordEvents(tx: Tx, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = eventRows(events);
  wrote('recordEvents', 'recorded', rows.length)(await run(tx, 'recordEvents', { rows }));
}

/** The same as the last step of a write's plan, sent with its other steps: no round trip of its own. */
export function recordInPlan(plan: WritePlan, events: readonly NewEvent[]): void {
  if (events.length === 0) return;
  const rows = eventRows(events);
  plan.recording('recordEvents', { rows }, wrote('recordEvents', 'recorded', rows.length));
}

export const toEvent = (r: Neo4jRecord): ChangeEvent =>
  ({
    id: r.get('id') as string,
    type: r.get('type') as string,
    timestamp: fromInt(r.get('at'), 'event time'),
    data: JSON.parse(r.get('data') as string),
  }) as ChangeEvent;
