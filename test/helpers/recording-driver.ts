/**
 * A Driver wrapper that records every statement a store sends, as (text, parameters), and passes
 * it on to the driver it wraps. The tck-style suite (test/neo4j/neo4j.tck.test.ts) uses it on a real
 * Neo4j to pin the exact Cypher and parameters of every store operation in reviewed snapshots.
 */
import { isInt, type Driver } from 'neo4j-driver';
import { CYPHER } from '../../src/store/neo4j/statements';

export interface SentStatement {
  statement: string;
  cypher: string;
  params: unknown;
  /** Which transaction of the operation sent it (1 = first), and its access mode. */
  transaction: string;
  /**
   * Which round trip of its transaction (1 = first): statements sent while an answer of the
   * transaction was still awaited went out with it (pipelined); one sent when none was awaited
   * starts the next.
   */
  roundTrip: number;
}

const NAMES = new Map<string, string>(Object.entries(CYPHER).map(([name, text]) => [text as string, name]));

/** Parameters as plain JSON for a snapshot: a driver Integer shows as `int(5)`, a float as `5.0`. */
export function plain(value: unknown): unknown {
  if (isInt(value)) return `int(${value.toString()})`;
  if (typeof value === 'number') return `float(${value})`;
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

type Work = (tx: { run(q: string, p?: Record<string, unknown>): Promise<unknown> }) => Promise<unknown>;

export function recordingDriver(inner: Driver): Driver & { take(): SentStatement[] } {
  let sent: SentStatement[] = [];
  let transactions = 0;
  const wrap = (mode: string, execute: (work: Work, config?: unknown) => Promise<unknown>) => (work: Work, config?: unknown) => {
    const label = `${++transactions} ${mode}`;
    return execute((tx) => {
      let [trips, awaited] = [0, 0];
      return work({
        run: (query, params = {}) => {
          if (awaited === 0) trips++;
          awaited++;
          sent.push({ statement: NAMES.get(query) ?? '(not a store statement)', cypher: query, params: plain(params), transaction: label, roundTrip: trips });
          const result = tx.run(query, params) as unknown as PromiseLike<unknown>;
          result.then(
            () => awaited--,
            () => awaited--,
          );
          return result as never;
        },
      });
    }, config);
  };
  const driver = {
    session: (config: unknown) => {
      // A real driver's session is a class instance: its methods need it as `this`.
      const session = inner.session(config as never);
      return {
        executeRead: wrap('READ', session.executeRead.bind(session) as never),
        executeWrite: wrap('WRITE', session.executeWrite.bind(session) as never),
        close: () => session.close(),
      };
    },
    close: () => inner.close(),
    take() {
      const out = sent;
      sent = [];
      transactions = 0;
      return out;
    },
  };
  return driver as unknown as Driver & { take(): SentStatement[] };
}
