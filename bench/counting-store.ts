import type { Store } from '../src/store/types';

export interface CountingStore {
  store: Store;
  /** Calls per Store method since the last reset. */
  counts(): Record<string, number>;
  reset(): void;
}

/**
 * The same store, counting every call made through it. Methods run with the real store as `this`,
 * so the adapter's own internal calls are not counted: only what the API layers (or the bare
 * comparator) ask of the store. One wrapper per method, made once, so the per-call overhead is a
 * Map lookup and an increment, paid equally by the facade and the comparator.
 */
export function countingStore(target: Store): CountingStore {
  const calls = new Map<string, number>();
  const wrappers = new Map<PropertyKey, unknown>();
  const store = new Proxy(target, {
    get(obj, prop) {
      const value: unknown = Reflect.get(obj, prop, obj);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      let wrapper = wrappers.get(prop);
      if (!wrapper) {
        const fn = value as (...args: unknown[]) => unknown;
        wrapper = (...args: unknown[]) => {
          calls.set(prop, (calls.get(prop) ?? 0) + 1);
          return fn.apply(obj, args);
        };
        wrappers.set(prop, wrapper);
      }
      return wrapper;
    },
  });
  return {
    store,
    counts: () => Object.fromEntries(calls),
    reset: () => calls.clear(),
  };
}
