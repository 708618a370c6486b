import type { ManagedTransaction } from 'neo4j-driver';
import type { WriteEffects } from './maintained';
import { periodAt, periodDeltas, periodsOfDates, type Period, type PeriodDelta } from './periods';
import { run } from './run';
import type { StatementName } from './statements';
import { fromInt } from './values';

/**
 * Keeping the timeline periods (./periods.ts, ./period-statements.ts) in step: the deltas of a
 * write, the recomputation of chosen periods (snapshot imports), and the rebuild of them all in
 * a zone (a database written before them, or opened with another SERVICE_TIME_ZONE).
 */

type Tx = Pick<ManagedTransaction, 'run'>;
export type Writer = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;


async function expectCount(tx: Tx, name: StatementName, column: string, expected: number, params: Record<string, unknown>) {
  const [row] = await run(tx, name, params);
  const got = row ? fromInt(row.get(column), `${name}.${column}`) : 0;
  if (got !== expected) throw new Error(`Cypher statement ${name} wrote ${got} where ${expected} were meant; rolled back`);
}

/** Periods per statement of a recomputation, and service dates per page of the rebuild's walk. */
export const PERIOD_BATCH = 200;
const DATES_PAGE = 20_000;

const periodRow = (p: Period) => ({ key: p.key, kind: p.kind, start: p.start, end: p.end });

/**
 * The movePeriods parameters of a write's deltas, to be sent last in its transaction (see the
 * lock order in ./write-plan.ts): rows sorted by period key, one statement (a write touching more
 * than PERIOD_BATCH periods, such as a large import, sends them in key-ordered slices; a period's
 * row does not depend on the others'). Each with the count of rows it must move.
 */
export function periodSteps(effects: WriteEffects, zone: string): { params: Record<string, unknown>; rows: number }[] {
  const { rows, serviceIds } = periodDeltas(effects, zone);
  const out: { params: Record<string, unknown>; rows: number }[] = [];
  for (let i = 0; i < rows.length; i += PERIOD_BATCH) {
    const slice = rows.slice(i, i + PERIOD_BATCH);
    out.push({ params: movePeriodsParams(slice, serviceIds, zone), rows: slice.length });
  }
  return out;
}

const movePeriodsParams = (rows: PeriodDelta[], serviceIds: number[], zone: string) => ({
  zone,
  serviceIds: serviceIds,
  rows: rows.map((r) => ({
    ...periodRow(r),
    sunAmServices: r.services[0],
    sunPmServices: r.services[1],
    wedServices: r.services[2],
    sunAmLinks: r.links[0],
    sunPmLinks: r.links[1],
    wedLinks: r.links[2],
    songIds: r.songIds,
    beforeBits: r.beforeBits,
    afterBits: r.afterBits,
  })),
});

/** Recompute these periods from scratch in `tx` (creating those missing), in key order, batched. */
export async function recomputePeriods(tx: Tx, periods: readonly Period[], zone: string): Promise<void> {
  for (let i = 0; i < periods.length; i += PERIOD_BATCH) {
    const part = periods.slice(i, i + PERIOD_BATCH);
    await expectCount(tx, 'recomputePeriods', 'recomputed', part.length, { zone, rows: part.map(periodRow) });
  }
}

/** The zone the periods are recorded in: undefined when there is no record, null while being built. */
async function recordedZone(write: Writer): Promise<string | null | undefined> {
  const [row] = await write((tx) => run(tx, 'timelineZone', {}));
  return row.get('recorded') ? ((row.get('zone') as string | null) ?? null) : undefined;
}

/**
 * On opening (with migrations on): the periods must be kept in `zone`. A database migrated from
 * before them (a record without a zone: ./migrations.ts), last written in another zone, or with
 * no record at all (emptied since: cheap) is rebuilt. Whether it rebuilt.
 */
export async function openTimeline(write: Writer, zone: string): Promise<boolean> {
  if ((await recordedZone(write)) === zone) return false;
  await rebuildTimeline(write, zone);
  return true;
}

/**
 * Rebuild every period in `zone`, each transaction bounded (a page of service dates, a batch of
 * periods): first the zone record is cleared, so the timeline reads links meanwhile; then every
 * period of every service date is made (MERGE, zeros when new); then every Period node is
 * recomputed from scratch, or deleted when its instants are no period of `zone` (made in another
 * zone: never read nor kept up here); last the zone is recorded.
 *
 * Writers running beside it keep moving the periods of their own zone by deltas, under each
 * period's lock, which the recomputation takes before it reads: a write either committed before
 * (the recomputation counts it) or moves the recomputed counts after. A period a writer made
 * while this ran (from zeros, before its services were counted) exists by the time the pass over
 * the nodes reads it, or holds only that writer's services. Every instance must use one zone.
 */
export async function rebuildTimeline(write: Writer, zone: string): Promise<void> {
  await write((tx) => expectCount(tx, 'setTimelineZone', 'recorded', 1, { zone: null }));
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const dates = (await write((tx) => run(tx, 'serviceDatesAfter', { after: after, limit: DATES_PAGE }))).map((r) =>
      fromInt(r.get('date'), 'service date'),
    );
    const periods = periodsOfDates(dates, zone);
    for (let i = 0; i < periods.length; i += PERIOD_BATCH) {
      const part = periods.slice(i, i + PERIOD_BATCH);
      await write((tx) => expectCount(tx, 'ensurePeriods', 'ensured', part.length, { rows: part.map(periodRow) }));
    }
    if (dates.length < DATES_PAGE) break;
    after = dates[dates.length - 1];
  }
  for (let after = ''; ; ) {
    const page = (await write((tx) => run(tx, 'periodsAfter', { after, limit: PERIOD_BATCH }))).map((r) => ({
      key: r.get('key') as string,
      start: fromInt(r.get('start'), 'period start'),
      end: fromInt(r.get('end'), 'period end'),
    }));
    const kept = page.map((p) => periodAt(p.start, p.end, zone)).filter((p): p is Period => p !== null);
    const stale = page.filter((p) => !kept.some((k) => k.key === p.key)).map((p) => p.key);
    await write(async (tx) => {
      if (stale.length > 0) await run(tx, 'deletePeriods', { keys: stale });
      await recomputePeriods(tx, kept, zone);
    });
    if (page.length < PERIOD_BATCH) break;
    after = page[page.length - 1].key;
  }
  await write((tx) => expectCount(tx, 'setTimelineZone', 'recorded', 1, { zone }));
}
