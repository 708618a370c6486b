import fs from 'node:fs';
import path from 'node:path';
import type { Driver, ManagedTransaction, Result, Session, Transaction } from 'neo4j-driver';

/**
 * Statement coverage of the test runs against a real Neo4j (`npm run test:neo4j`): with this
 * variable naming a directory, every Cypher text the server ran without an error is appended, once
 * per process, to `<dir>/<pid>.log` as one JSON string per line. The run's last step compares the
 * union with every statement of the store (scripts/statement-coverage.ts). Unset (production, and
 * every other run), the driver is returned untouched and nothing is recorded.
 */
export const STATEMENT_LOG_ENV = 'NEO4J_STATEMENT_LOG';

type Query = string | { text: string };
const textOf = (query: Query) => (typeof query === 'string' ? query : query.text);

function recorder(dir: string): (query: Query) => void {
  const file = path.join(dir, `${process.pid}.log`);
  const seen = new Set<string>();
  return (query) => {
    const text = textOf(query);
    if (seen.has(text)) return;
    seen.add(text);
    // Synchronous, so a process that exits right after its last statement has still written it.
    fs.appendFileSync(file, `${JSON.stringify(text)}\n`);
  };
}

/** Record the statement once the server has answered it in full; a refused one is not recorded. */
function noted(result: Result, query: Query, note: (q: Query) => void): Result {
  result.then(
    () => note(query),
    () => undefined,
  );
  return result;
}

type Runner = Pick<ManagedTransaction, 'run'>;
function tracedRunner<T extends Runner>(tx: T, note: (q: Query) => void): T {
  return new Proxy(tx, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === 'run') return (query: Query, ...rest: unknown[]) => noted((value as Function).call(target, query, ...rest), query, note);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function tracedSession(session: Session, note: (q: Query) => void): Session {
  return new Proxy(session, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'executeRead' || prop === 'executeWrite') {
        return (work: (tx: ManagedTransaction) => unknown, config?: unknown) =>
          value.call(target, (tx: ManagedTransaction) => work(tracedRunner(tx, note)), config);
      }
      if (prop === 'run') return (query: Query, ...rest: unknown[]) => noted(value.call(target, query, ...rest), query, note);
      if (prop === 'beginTransaction') {
        return (...args: unknown[]) => tracedRunner(value.apply(target, args) as Transaction, note);
      }
      return value.bind(target);
    },
  });
}

/** The driver itself, or (with NEO4J_STATEMENT_LOG set) one that records what it runs. */
export function recordingStatements(driver: Driver, env: NodeJS.ProcessEnv = process.env): Driver {
  const dir = env[STATEMENT_LOG_ENV];
  if (!dir) return driver;
  const note = recorder(dir);
  return new Proxy(driver, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'session') return (...args: unknown[]) => tracedSession(value.apply(target, args), note);
      if (prop === 'executeQuery') {
        return async (query: Query, ...rest: unknown[]) => {
          const out = await value.call(target, query, ...rest);
          note(query);
          return out;
        };
      }
      return value.bind(target);
    },
  });
}
