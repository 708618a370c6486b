// The page's only data path: the GraphQL analytics fields at /graphql.

const ENUM_ARGS = new Set(['serviceTypes', 'bucket', 'sort']);

/** An argument value as GraphQL source text. Enum arguments are bare names; the rest is JSON. */
function literal(name, value) {
  if (Array.isArray(value)) return `[${value.map((v) => literal(name, v)).join(', ')}]`;
  if (ENUM_ARGS.has(name)) {
    if (!/^[A-Z_]+$/.test(value)) throw new Error(`Not an enum value: ${value}`);
    return value;
  }
  return JSON.stringify(value);
}

/**
 * `(a: 1, b: "x")` for the arguments that are set. Literals rather than variables: a date window is
 * written the same whether the schema types it as String or as a scalar.
 */
function args(obj) {
  const parts = Object.entries(obj)
    .filter(([, v]) => v !== undefined && v !== null)
    .map(([k, v]) => `${k}: ${literal(k, v)}`);
  return parts.length ? `(${parts.join(', ')})` : '';
}

export class ApiError extends Error {}

/**
 * The charting library comes in two steps (scripts/generated-texts.ts): the first (bar charts,
 * with the core both share) loads `async`, beside the page's first queries rather than before
 * them; the second (line and heat-map series, data zoom, visual map, mark lines) is asked for once
 * the first is in, so it never slows the first charts. Whatever draws an answer needs its step, so
 * an answer is handed on once that step is there.
 */
const CHARTS_FAILED = 'The charts could not be loaded. Reload the page to try again.';
let firstStep;
let secondStep;
function chartsReady(step) {
  // Outside a page (the module read by tests in Node) there is nothing to wait for.
  if (typeof window === 'undefined') return Promise.resolve();
  const script = document.querySelector('script[data-echarts]');
  firstStep ??= window.echarts
    ? Promise.resolve()
    : new Promise((resolve, reject) => {
        script.addEventListener('load', () => resolve());
        script.addEventListener('error', () => reject(new ApiError(CHARTS_FAILED)));
      });
  if (step === 'first') return firstStep;
  secondStep ??= firstStep.then(() =>
    import(script.dataset.echartsMore).catch(() => {
      secondStep = undefined; // a later answer tries again
      throw new ApiError(CHARTS_FAILED);
    }),
  );
  return secondStep;
}

/**
 * POST a query; GraphQL errors and non-JSON answers become one plain message. `charts`: the step of
 * the charting library what draws the answer needs ('first': bar charts only).
 */
export async function gql(query, signal, charts = 'first') {
  let res;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query }),
      signal,
    });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new ApiError('The server could not be reached. Check that it is running, then try again.');
  }
  let body;
  try {
    body = await res.json();
  } catch {
    throw new ApiError(`The server answered ${res.status} ${res.statusText} without data.`);
  }
  if (body.errors?.length) throw new ApiError(body.errors.map((e) => e.message).join(' '));
  if (!res.ok || !body.data) throw new ApiError(`The server answered ${res.status} ${res.statusText}.`);
  await chartsReady(charts);
  return body.data;
}

const SONG = 'song { id name artists }';

export async function topSongs(window, limit, signal) {
  const d = await gql(
    `{ songUsage${args({ ...window, limit })} { ${SONG} timesSung lastSung byServiceType { serviceType timesSung } } }`,
    signal,
  );
  return d.songUsage;
}

export async function timeline(window, bucket, signal, songId) {
  const d = await gql(
    `{ usageTimeline${args({ ...window, bucket, songId })} { start services performances distinctSongs partial } }`,
    signal,
    'second', // a line over the bars, and data zoom
  );
  return d.usageTimeline;
}

export async function notSungSince(date, serviceTypes, signal) {
  const d = await gql(`{ songsNotSungSince${args({ date, serviceTypes })} { ${SONG} timesSung lastSung } }`, signal);
  return d.songsNotSungSince;
}

export async function newSongs(window, signal) {
  const d = await gql(`{ newSongs${args(window)} { ${SONG} timesSung firstSung lastSung } }`, signal);
  return d.newSongs;
}

export async function sungWith(songId, window, limit, signal) {
  const d = await gql(
    `{ songsSungWith${args({ songId, ...window, limit })} { song { id name } together jaccard } }`,
    signal,
    'second', // the pairs' heat map and its visual map
  );
  return d.songsSungWith;
}

/** Songs sung in more than `moreThanPercent`% of the last `lastServices` services up to the window's end. */
export async function sungOften(window, lastServices, moreThanPercent, signal) {
  const d = await gql(
    `{ songsSungOften${args({ to: window.to, serviceTypes: window.serviceTypes, lastServices, moreThanPercent })} {
        services firstService lastService songs { ${SONG} timesSung share lastSung } } }`,
    signal,
    'second', // the threshold's mark line
  );
  return d.songsSungOften;
}

/** Whether any service of these types (all when none) is recorded at all. */
export async function anyServices(serviceTypes) {
  return (await gql(`{ services${args({ serviceTypes, limit: 1 })} { id } }`)).services.length > 0;
}

/** Whether any song is recorded at all (to tell an empty store from an empty answer). */
export async function anySongs(signal) {
  return (await gql('{ songs(limit: 1) { id } }', signal)).songs.length > 0;
}

/** A song with its usage in the window, and `ever`: its first and last time of all (of the types). */
export async function songStory(songId, window, signal) {
  const d = await gql(
    `{ song(id: ${Number(songId)}) { id name artists usage${args(window)} {
        timesSung firstSung lastSung asOpener asCloser byServiceType { serviceType timesSung lastSung } }
      ever: usage${args({ serviceTypes: window.serviceTypes })} { firstSung lastSung } } }`,
    signal,
  );
  return d.song;
}
