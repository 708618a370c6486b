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
 * The charting library loads `async`, beside the page's first queries rather than before them;
 * whatever draws an answer needs it, so an answer is handed on once it is there.
 */
let echartsLoaded;
function chartsReady() {
  // Outside a page (the module read by tests in Node) there is nothing to wait for.
  if (typeof window === 'undefined' || window.echarts) return Promise.resolve();
  echartsLoaded ??= new Promise((resolve, reject) => {
    const script = document.querySelector('script[data-echarts]');
    script.addEventListener('load', () => resolve());
    script.addEventListener('error', () => reject(new ApiError('The charts could not be loaded. Reload the page to try again.')));
  });
  return echartsLoaded;
}

/** POST a query; GraphQL errors and non-JSON answers become one plain message. */
export async function gql(query, signal) {
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
  await chartsReady();
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
  );
  return d.songsSungWith;
}

/** Songs sung in more than `moreThanPercent`% of the last `lastServices` services up to the window's end. */
export async function sungOften(window, lastServices, moreThanPercent, signal) {
  const d = await gql(
    `{ songsSungOften${args({ to: window.to, serviceTypes: window.serviceTypes, lastServices, moreThanPercent })} {
        services firstService lastService songs { ${SONG} timesSung share lastSung } } }`,
    signal,
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
