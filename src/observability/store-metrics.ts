import type { Store } from '../store/types';
import type { Metrics } from './metrics';

/**
 * The store with every call timed, by method name and outcome. A proxy rather than code in the
 * adapters: both stores are measured the same way, and adapters stay free of metrics.
 */
export function measureStore(store: Store, metrics: Metrics): Store {
  // Keyed by the function itself, not its name: a store whose methods change (a test double
  // around a real store) is measured as it is now. Weak, so it holds nothing alive.
  const wrapped = new WeakMap<object, unknown>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      let fn = wrapped.get(value);
      if (!fn) {
        const operation = prop;
        fn = function (this: unknown, ...args: unknown[]) {
          const end = metrics.storeDuration.startTimer({ operation });
          try {
            const result = (value as (...a: unknown[]) => unknown).apply(target, args);
            if (result instanceof Promise) {
              return result.then(
                (v) => (end({ outcome: 'ok' }), v),
                (err) => {
                  end({ outcome: 'error' });
                  throw err;
                },
              );
            }
            end({ outcome: 'ok' });
            return result;
          } catch (err) {
            end({ outcome: 'error' });
            throw err;
          }
        };
        wrapped.set(value, fn);
      }
      return fn;
    },
  });
}
