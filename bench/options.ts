import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What every timed bench (npm run bench, bench:peers) takes on its command line. */
export interface TimedOptions {
  quick: boolean;
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  only?: string[];
  out: string;
  profile?: string[];
}

/** A bench's own defaults: rounds and warm-up of a full run, warm-up of a quick one, the results file. */
export interface TimedDefaults {
  rounds: number;
  warmup: number;
  quickWarmup: number;
  out: string;
}

type Extra = NonNullable<ParseArgsConfig['options']>;

/**
 * Read a timed bench's options with Node's own parser (node:util parseArgs): `--name value` or
 * `--name=value`; an unknown option, a stray argument or a missing value is an error. `extra`
 * declares a bench's own options; their values come back in `values`, unread.
 */
export function readTimedOptions(argv: string[], defaults: TimedDefaults, extra: Extra = {}) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      only: { type: 'string' },
      out: { type: 'string' },
      profile: { type: 'string' },
      ...extra,
    },
  });
  const quick = values.quick === true;
  const options: TimedOptions = {
    quick,
    duration: positive(values, 'duration', quick ? 3 : 5),
    rounds: positive(values, 'rounds', quick ? 1 : defaults.rounds),
    warmup: positive(values, 'warmup', quick ? defaults.quickWarmup : defaults.warmup),
    connections: positive(values, 'connections', 32),
    only: list(values, 'only'),
    out: path.resolve(typeof values.out === 'string' ? values.out : defaults.out),
    profile: list(values, 'profile'),
  };
  return { options, values: values as Values };
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** `--name`'s number, or `fallback` when it is not given; anything but a positive number is refused. */
export function positive(values: Values, name: string, fallback: number): number {
  const v = values[name];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number`);
  return n;
}

/** `--name a,b`: the comma-separated names, or undefined when it is not given. */
function list(values: Values, name: string): string[] | undefined {
  const v = values[name];
  return typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
}
