/** The timed benches' command line (bench/options.ts): defaults, quick runs, and what is refused. */
import path from 'node:path';
import { positive, readTimedOptions } from '../../bench/options';

const DEFAULTS = { rounds: 4, warmup: 2, quickWarmup: 0.5, out: '/tmp/results.json' };

test('a full run takes the bench defaults; --quick its short ones', () => {
  expect(readTimedOptions([], DEFAULTS).options).toEqual({
    quick: false, duration: 5, rounds: 4, warmup: 2, connections: 32, only: undefined, out: '/tmp/results.json', profile: undefined,
  });
  expect(readTimedOptions(['--quick'], DEFAULTS).options).toMatchObject({ quick: true, duration: 3, rounds: 1, warmup: 0.5 });
});

test('values by --name value or --name=value; lists split on commas; out resolved', () => {
  const { options } = readTimedOptions(['--rounds', '7', '--only=single, nested', '--profile', 'list', '--out', 'x.json'], DEFAULTS);
  expect(options).toMatchObject({ rounds: 7, only: ['single', 'nested'], profile: ['list'], out: path.resolve('x.json') });
});

test("a bench's own options come back unread; numbers are checked", () => {
  const { values } = readTimedOptions(['--profile-bare', '--profile-interval', '100'], DEFAULTS, {
    'profile-bare': { type: 'boolean' },
    'profile-interval': { type: 'string' },
  });
  expect(values['profile-bare']).toBe(true);
  expect(positive(values, 'profile-interval', 250)).toBe(100);
  expect(positive(values, 'absent', 250)).toBe(250);
});

test.each([
  [['--rounds', '0'], /--rounds needs a positive number/],
  [['--duration', 'soon'], /--duration needs a positive number/],
  [['--fast'], /Unknown option '--fast'/],
  [['stray'], /Unexpected argument 'stray'/],
  [['--only'], /argument missing/],
])('refuses %j', (argv, message) => {
  expect(() => readTimedOptions(argv, DEFAULTS)).toThrow(message);
});
