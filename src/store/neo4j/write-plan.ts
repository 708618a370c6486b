import type { Record as Neo4jRecord } from 'neo4j-driver';
import { run, type Params, type Tx } from './run';
import { CYPHER, PARAMS, type StatementName } from './statements';
import { encodeParams, fromInt } from './values';


/**
 * The lock order every Neo4j writer follows, as code: a WritePlan takes locks only in this order
 * and refuses (throws, before anything is sent) a step that would take one out of it. A
 * transaction waiting for a lock then holds only locks earlier in the order, so no cycle of waits
 * can form between writers that go through it.
 *
 * - `services`, ascending ids, in the first round trip (lockSetlists), which also reads them;
 * - `songs`, ascending ids, in one statement (lockSongs); the links, usage and pairs written after
 *   it touch only services and songs already held (a relationship write locks both its ends);
 * - `artists`, by key (moveArtists and moveSpellings sort them);
 * - `periods`, by key (movePeriods).
 *
 * Writes that create or delete a song, or change its artists, write BY relationships, which lock
 * the artists at that point (createSong, setSongArtists, deleteSong): a plan records that as its
 * `artists` phase. The exceptions that lock out of order (a song delete's pairs, whose other songs
 * the DETACH DELETE locks; a link made between a song delete's first read and its song lock) can
 * deadlock; Neo4j detects it and the managed transaction runs again (./store.ts).
 */
export const LOCK_ORDER = ['services', 'songs', 'artists', 'periods'] as const;
export type LockPhase = (typeof LOCK_ORDER)[number];

/**
 * Thrown inside a write transaction to roll it back while still answering `outcome`: a write that
 * did not do what it meant to must leave nothing behind, yet the caller may have a proper answer
 * (the song went away: 'no-song').
 */
export class RolledBack<T> extends Error {
  constructor(
    readonly outcome: T,
    reason: string,
  ) {
    super(reason);
  }
}

interface Step {
  name: StatementName;
  params: Params;
  /** Checks the statement's rows; throws to roll the transaction back. */
  check?: (rows: Neo4jRecord[]) => void;
}

const ascending = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

/** The count in `column` of a statement's one row. */
export const countOf = (rows: Neo4jRecord[], name: string, column: string) =>
  rows[0] ? fromInt(rows[0].get(column), `${name}.${column}`) : 0;

/** A check that the statement wrote `expected` (in `column`): otherwise roll back, answering `outcome` if given. */
export function wrote(name: string, column: string, expected: number, ...outcome: [] | [unknown]) {
  return (rows: Neo4jRecord[]) => {
    const got = countOf(rows, name, column);
    if (got === expected) return;
    const reason = `Cypher statement ${name} wrote ${got} where ${expected} were meant; rolled back`;
    if (outcome.length === 0) throw new Error(reason);
    // An error as the outcome is thrown as it is (a catalogue naming a missing song).
    throw outcome[0] instanceof Error ? outcome[0] : new RolledBack(outcome[0], reason);
  };
}

/** A service as the first round trip reads it, under its lock: its setlist in order. */
export interface LockedService {
  id: number;
  date: number;
  serviceType: string;
  songIds: number[];
  positions: number[];
}

/**
 * One write transaction's plan: the first round trip reads (and locks) the services it changes;
 * then the steps, added in lock order, go to the server in one round trip (`send`: the driver
 * writes them back to back and the server runs them in order), and the commit is the third.
 */
export class WritePlan {
  /**
   * An unordered plan (imports, which run with writers stopped) skips the checks: it locks what
   * its statements write, in their order.
   */
  constructor(private readonly options: { ordered: boolean } = { ordered: true }) {}

  private phase = -1;
  private readonly songs = new Set<number>();
  /** Songs the plan created: no other writer sees them before it commits. */
  private readonly own = new Set<number>();
  private readonly steps: Step[] = [];

  /** Enter `phase`: later than or the same as the phase the plan is in. */
  private enter(phase: LockPhase, what: string) {
    if (!this.options.ordered) return;
    const at = LOCK_ORDER.indexOf(phase);
    if (at < this.phase) {
      throw new Error(`lock order: ${what} takes ${phase} locks after ${LOCK_ORDER[this.phase]} ones (order: ${LOCK_ORDER.join(', ')})`);
    }
    this.phase = at;
  }

  /** Songs this plan holds (lockSongs, or created by it). */
  holds(id: number): boolean {
    return this.songs.has(id) || this.own.has(id);
  }

  /** The first round trip: lock the services (ascending) and read them. Absent ids are left out. */
  async lockSetlists(tx: Tx, ids: Iterable<number>): Promise<Map<number, LockedService>> {
    if (this.steps.length > 0) throw new Error('lock order: lockSetlists must come before the steps it plans');
    this.enter('services', 'lockSetlists');
    const serviceIds = ascending(ids);
    const out = new Map<number, LockedService>();
    if (serviceIds.length === 0) return out;
    for (const r of await run(tx, 'lockSetlists', { serviceIds })) {
      const id = fromInt(r.get('id'), 'service id');
      out.set(id, {
        id,
        date: fromInt(r.get('date'), 'service date'),
        serviceType: r.get('serviceType') as string,
        songIds: (r.get('songIds') as unknown[]).map((v) => fromInt(v, 'song id')),
        positions: (r.get('positions') as unknown[]).map((v) => fromInt(v, 'position')),
      });
    }
    return out;
  }

  /** Lock these songs, ascending, in one statement; fewer found rolls back answering `missing`. */
  lockSongs(ids: Iterable<number>, missing: unknown): this {
    const songIds = ascending(ids).filter((id) => !this.songs.has(id));
    if (songIds.length === 0) return this;
    this.enter('songs', 'lockSongs');
    const lowest = songIds[0];
    const held = [...this.songs];
    if (this.options.ordered && held.some((id) => id > lowest)) throw new Error(`lock order: song ${lowest} locked after song ${Math.max(...held)}`);
    for (const id of songIds) this.songs.add(id);
    return this.add('lockSongs', { songIds: songIds }, wrote('lockSongs', 'locked', songIds.length, missing));
  }

  /** Songs the plan creates (a catalogue import): new nodes, held by their creator. */
  created(ids: Iterable<number>): this {
    for (const id of ids) this.own.add(id);
    return this;
  }

  /** A step that writes only what the plan holds: the songs it names must be held. */
  onSongs(songIds: Iterable<number>, name: StatementName, params: Params, check?: Step['check']): this {
    for (const id of songIds) {
      if (this.options.ordered && !this.holds(id)) throw new Error(`lock order: ${name} writes song ${id}, which the plan has not locked`);
    }
    return this.add(name, params, check);
  }

  /** A step that takes locks of `phase`. */
  locking(phase: LockPhase, name: StatementName, params: Params, check?: Step['check']): this {
    this.enter(phase, name);
    return this.add(name, params, check);
  }

  /**
   * A step that only makes nodes no other writer can see yet (the outbox's events and deliveries:
   * ./event-statements.ts) and reads the endpoints without locking them: it takes no lock of the
   * order, so it may come last in any plan.
   */
  recording(name: StatementName, params: Params, check?: Step['check']): this {
    return this.add(name, params, check);
  }

  /** Any step, in an unordered plan. */
  step(name: StatementName, params: Params, check?: Step['check']): this {
    if (this.options.ordered) throw new Error(`lock order: ${name} needs an unordered plan`);
    return this.add(name, params, check);
  }

  private add(name: StatementName, params: Params, check?: Step['check']): this {
    // Encoded now: a step that does not fit its declaration fails before anything is sent.
    this.steps.push({ name, params: encodeParams(name, PARAMS[name], params), check });
    return this;
  }

  /**
   * Send every step at once and check each answer in order: the first failure (the server's, or
   * a check's) is thrown and the transaction rolls back. The rows of each step.
   */
  async send(tx: Tx): Promise<Neo4jRecord[][]> {
    const steps = this.steps.splice(0);
    const sent = steps.map((s) => tx.run(CYPHER[s.name], s.params));
    const settled = await Promise.allSettled(sent);
    return settled.map((result, i) => {
      if (result.status === 'rejected') throw result.reason;
      steps[i].check?.(result.value.records);
      return result.value.records;
    });
  }
}
