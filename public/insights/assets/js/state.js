// The page's state lives in the URL (shareable, reloadable); this module reads and writes it.
// Dates are calendar days (YYYY-MM-DD) in the service time zone, as the API reads them.

export const SERVICE_TYPES = ['SUN_AM', 'SUN_PM', 'WED'];
export const TYPE_LABELS = { SUN_AM: 'Sunday morning', SUN_PM: 'Sunday evening', WED: 'Wednesday' };
export const BUCKETS = ['WEEK', 'MONTH'];
export const DEFAULT_WEEKS = 12;
const MAX_WEEKS = 520;
/** Sung often: songs in more than SHARE percent of the last LAST services (the API's defaults). */
export const DEFAULT_SHARE = 50;
export const DEFAULT_LAST = 12;
export const MAX_LAST = 1000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Today's date in `timeZone`, as YYYY-MM-DD. */
export function todayIn(timeZone, now = new Date()) {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

export function isDay(s) {
  const m = DAY.exec(s ?? '');
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

const toDay = (d) => d.toISOString().slice(0, 10);
const fromDay = (s) => new Date(`${s}T00:00:00Z`);

/** `day` moved by whole months, clamped to the month's end (31 May - 3 months = 28/29 Feb). */
export function addMonths(day, months) {
  const d = fromDay(day);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return toDay(target);
}

export function addDays(day, days) {
  const d = fromDay(day);
  d.setUTCDate(d.getUTCDate() + days);
  return toDay(d);
}

export const daysBetween = (a, b) => Math.round((fromDay(b) - fromDay(a)) / 86_400_000);

/** The window a preset stands for on `today`: the last N months end today, inclusive. */
export function presetWindow(preset, today) {
  if (preset === '3m') return { from: addDays(addMonths(today, -3), 1), to: today };
  if (preset === '12m') return { from: addDays(addMonths(today, -12), 1), to: today };
  return { from: null, to: null };
}

/** Which preset a window is, or 'custom'. No dates at all is all time. */
export function presetOf({ from, to }, today) {
  if (!from && !to) return 'all';
  for (const p of ['3m', '12m']) {
    const w = presetWindow(p, today);
    if (w.from === from && w.to === to) return p;
  }
  return 'custom';
}

/** The window a link without dates opens on: the last 12 months up to `today`. */
export const defaultWindow = (today) => presetWindow('12m', today);

/**
 * Parse the query string. Whatever cannot be used is dropped and explained in `problems`, so a
 * mistyped link still shows something and says what it ignored. A link without dates opens on
 * the last 12 months up to `today` (a recent window is what people ask about first; all time
 * mixes in years-old habits); all time is `window=all`.
 */
export function readState(search, today) {
  const q = new URLSearchParams(search);
  const problems = [];
  const day = (name) => {
    const v = q.get(name);
    if (v === null || v === '') return null;
    if (isDay(v)) return v;
    problems.push(`"${v}" is not a date (YYYY-MM-DD) for ${name}; it was left out.`);
    return null;
  };
  let from = day('from');
  let to = day('to');
  if (from && to && from > to) {
    problems.push(`The window started (${from}) after it ended (${to}); the two dates were swapped.`);
    [from, to] = [to, from];
  }
  const win = q.get('window');
  if (win !== null && win !== 'all') problems.push(`"${win}" is not a window (only "all", for all time); it was left out.`);
  if (!from && !to && win !== 'all') ({ from, to } = defaultWindow(today));

  const serviceTypes = [];
  for (const v of q.getAll('serviceType').flatMap((s) => s.split(','))) {
    const t = v.trim().toUpperCase();
    if (SERVICE_TYPES.includes(t)) {
      if (!serviceTypes.includes(t)) serviceTypes.push(t);
    } else if (t) problems.push(`"${v}" is not a service type (${SERVICE_TYPES.join(', ')}); it was left out.`);
  }
  serviceTypes.sort((a, b) => SERVICE_TYPES.indexOf(a) - SERVICE_TYPES.indexOf(b));

  let bucket = q.get('bucket');
  if (bucket !== null && !BUCKETS.includes(bucket.toUpperCase())) {
    problems.push(`"${bucket}" is not a period (WEEK or MONTH); chosen by the window's length instead.`);
    bucket = null;
  }
  bucket = bucket?.toUpperCase() ?? null;

  let weeks = DEFAULT_WEEKS;
  const w = q.get('weeks');
  if (w !== null) {
    if (/^\d+$/.test(w) && +w >= 1 && +w <= MAX_WEEKS) weeks = +w;
    else problems.push(`"${w}" weeks is not a whole number from 1 to ${MAX_WEEKS}; ${DEFAULT_WEEKS} is used.`);
  }

  const whole = (name, min, max, fallback, what) => {
    const v = q.get(name);
    if (v === null) return fallback;
    if (/^\d+$/.test(v) && +v >= min && +v <= max) return +v;
    problems.push(`"${v}" is not ${what}; ${fallback} is used.`);
    return fallback;
  };
  const share = whole('share', 0, 99, DEFAULT_SHARE, 'a share (a whole percentage from 0 to 99)');
  const last = whole('last', 1, MAX_LAST, DEFAULT_LAST, `a number of services (1 to ${MAX_LAST})`);

  let song = null;
  const s = q.get('song');
  if (s !== null) {
    if (/^[1-9]\d{0,9}$/.test(s)) song = +s;
    else problems.push(`"${s}" is not a song id; no song story is shown.`);
  }
  return { from, to, serviceTypes, bucket, weeks, share, last, song, problems };
}

/**
 * The query string for a state; defaults are left out so links stay short. The default window
 * (the last 12 months up to `today`) is no dates at all, so such a link keeps meaning "the last
 * 12 months" whenever it is opened.
 */
export function writeState({ from, to, serviceTypes, bucket, weeks, share = DEFAULT_SHARE, last = DEFAULT_LAST, song }, today) {
  const q = new URLSearchParams();
  const fallback = defaultWindow(today);
  if (!from && !to) q.set('window', 'all');
  else if (from !== fallback.from || to !== fallback.to) {
    if (from) q.set('from', from);
    if (to) q.set('to', to);
  }
  // All types selected is the same as no filter.
  if (serviceTypes.length && serviceTypes.length < SERVICE_TYPES.length) {
    for (const t of serviceTypes) q.append('serviceType', t);
  }
  if (bucket) q.set('bucket', bucket);
  if (weeks !== DEFAULT_WEEKS) q.set('weeks', String(weeks));
  if (share !== DEFAULT_SHARE) q.set('share', String(share));
  if (last !== DEFAULT_LAST) q.set('last', String(last));
  if (song) q.set('song', String(song));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Weeks for short windows, months for long ones (and for all time), unless chosen. */
export function effectiveBucket(state) {
  if (state.bucket) return state.bucket;
  if (!state.from || !state.to) return 'MONTH';
  return daysBetween(state.from, state.to) <= 190 ? 'WEEK' : 'MONTH';
}

/** The API's filter arguments for the state's window and service types. */
export function windowArgs(state) {
  const args = {};
  if (state.from) args.from = state.from;
  if (state.to) args.to = state.to;
  if (state.serviceTypes.length && state.serviceTypes.length < SERVICE_TYPES.length) {
    args.serviceTypes = state.serviceTypes;
  }
  return args;
}
