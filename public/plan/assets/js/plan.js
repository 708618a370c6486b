// The planning page: sign in, pick or create a service, build its setlist beside suggestions, save.
// Everything goes through the public GraphQL API (./api.js); the work in progress is kept in this
// tab (sessionStorage) until it is saved, so an expired session or a reload loses nothing.
import { ApiError, gql, inWords, session } from './api.js';
import { add, move, removeAt, sameIds } from './setlist.js';

const ZONE = document.querySelector('meta[name="service-time-zone"]').content;
const TYPE_WORDS = { SUN_AM: 'Sunday morning', SUN_PM: 'Sunday evening', WED: 'Wednesday' };
const DRAFT_KEY = 'plan.draft';
const $ = (id) => document.getElementById(id);

const dateText = new Intl.DateTimeFormat(navigator.language, { timeZone: ZONE, weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
const dayText = new Intl.DateTimeFormat(navigator.language, { timeZone: ZONE, day: 'numeric', month: 'short', year: 'numeric' });
/** YYYY-MM-DD of an instant in the service time zone. */
const isoDay = (ms) => new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms);
const addDays = (day, n) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
};
const serviceText = (v) => `${dateText.format(v.date)} · ${TYPE_WORDS[v.serviceType]}`;

const state = {
  service: null,
  chosen: [],
  savedIds: [],
  /** Per song id: its last sung date before the service's day (null: never), for the current service. */
  lastSung: new Map(),
  /** Per song id: in how many of the last 12 services before the service's day. */
  recent: { services: 0, times: new Map() },
  saveAfterSignIn: false,
};

function notify(message) {
  const el = $('notice');
  el.textContent = message ?? '';
  el.hidden = !message;
}

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// ---- Session ----

function showSignIn(why) {
  $('sign-in').hidden = false;
  $('sign-in-why').textContent = why ?? '';
  $('sign-in-why').hidden = !why;
  $('who').hidden = true;
  $('sign-in-form').elements.username.focus();
}

async function signIn(event) {
  event.preventDefault();
  const form = event.target;
  notify(null);
  try {
    const { login } = await gql(
      'mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token expiresIn user { username } } }',
      { u: form.elements.username.value, p: form.elements.password.value },
    );
    session.set({ token: login.token, username: login.user.username, expiresAt: Date.now() + login.expiresIn * 1000 });
    form.reset();
    $('sign-in').hidden = true;
    await showPlanner();
    if (state.saveAfterSignIn) await save();
  } catch (err) {
    notify(inWords(err));
  }
}

function signOut() {
  session.clear();
  sessionStorage.removeItem(DRAFT_KEY);
  $('planner').hidden = true;
  state.service = null;
  showSignIn();
}

// ---- Services ----

async function loadUpcoming() {
  const today = isoDay(Date.now());
  const { servicesAfter } = await gql('query($d: String!) { servicesAfter(date: $d, limit: 30) { id date serviceType } }', { d: addDays(today, -1) });
  const select = $('service-select');
  select.replaceChildren(el('option', { value: '', textContent: 'Choose a service…' }), ...servicesAfter.map((v) => el('option', { value: String(v.id), textContent: serviceText(v) })));
  if (state.service) select.value = String(state.service.id);
}

async function showPlanner() {
  const s = session.get();
  if (!s) return showSignIn();
  $('who-name').textContent = `Signed in as ${s.username}`;
  $('who').hidden = false;
  $('planner').hidden = false;
  const form = $('create-form');
  if (!form.elements.date.value) {
    const today = isoDay(Date.now());
    const weekday = new Date(`${today}T12:00:00Z`).getUTCDay();
    form.elements.date.value = addDays(today, (7 - weekday) % 7 || 7);
  }
  try {
    await loadUpcoming();
    const wanted = Number(new URLSearchParams(location.search).get('service'));
    if (!state.service && Number.isInteger(wanted) && wanted > 0) await openService(wanted);
  } catch (err) {
    notify(inWords(err));
  }
}

async function openService(id) {
  notify(null);
  const { service } = await gql('query($id: Int!) { service(id: $id) { id date serviceType songs { id name artists } } }', { id });
  if (!service) {
    notify(`Service ${id} does not exist (any more).`);
    return;
  }
  state.service = service;
  state.savedIds = service.songs.map((s) => s.id);
  watch(service.id);
  const draft = readDraft();
  state.chosen = draft?.serviceId === service.id ? draft.songs : service.songs;
  state.lastSung = new Map();
  history.replaceState(null, '', `/plan?service=${service.id}`);
  $('service-select').value = String(service.id);
  $('service-text').textContent = `Planning ${serviceText(service)}`;
  $('work').hidden = false;
  render();
  await loadRecent();
  await refreshFacts();
}

async function createService(event) {
  event.preventDefault();
  const form = event.target;
  notify(null);
  try {
    const { createService: v } = await gql('mutation($d: Timestamp!, $t: ServiceType!) { createService(date: $d, serviceType: $t) { id } }', {
      d: form.elements.date.value,
      t: form.elements.serviceType.value,
    });
    await loadUpcoming();
    await openService(v.id);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') return expired();
    const holder = err instanceof ApiError && err.code === 'CONFLICT' ? /Service (\d+)/.exec(err.message)?.[1] : undefined;
    if (holder) {
      notify(`There is already a ${TYPE_WORDS[form.elements.serviceType.value]} service that day: it is opened below.`);
      await openService(Number(holder));
      return;
    }
    notify(inWords(err));
  }
}

// ---- The setlist as others change it ----

let live;
let stopWatching;

/**
 * The open service's setlist as it is saved anywhere else (another tab, another planner, the
 * API), over the setlistChanged subscription (graphql-ws's client, WebSocket on /graphql). With no
 * unsaved changes here the page shows it at once; with some, it says so and keeps them.
 */
function watch(serviceId) {
  stopWatching?.();
  if (!globalThis.graphqlWs) return;
  live ??= globalThis.graphqlWs.createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: () => {
      const s = session.get();
      return s ? { authorization: `Bearer ${s.token}` } : {};
    },
  });
  stopWatching = live.subscribe(
    { query: 'subscription($id: Int!) { setlistChanged(serviceId: $id) { id setlist { song { id name artists } } } }', variables: { id: serviceId } },
    {
      next: ({ data }) => {
        if (!data || state.service?.id !== serviceId) return;
        const songs = data.setlistChanged.setlist.map((p) => p.song);
        const ids = songs.map((s) => s.id);
        if (sameIds(ids, state.savedIds)) return;
        const dirty = !sameIds(state.chosen.map((s) => s.id), state.savedIds);
        state.savedIds = ids;
        if (dirty) {
          notify('This setlist was just saved elsewhere. Your changes are kept here: saving them replaces it.');
          render();
          return;
        }
        state.chosen = songs;
        notify('This setlist was just changed elsewhere: it is shown as saved now.');
        render();
        refreshFacts();
      },
      error: () => undefined,
      complete: () => undefined,
    },
  );
}

// ---- What is known of each chosen song ----

/** The service's day and the day before it: the history before the service is what counts. */
const dayBefore = () => addDays(isoDay(state.service.date), -1);

async function loadRecent() {
  const { songsSungOften } = await gql(
    'query($to: String!) { songsSungOften(lastServices: 12, moreThanPercent: 0, to: $to) { services songs { song { id } timesSung } } }',
    { to: dayBefore() },
  );
  state.recent = { services: songsSungOften.services, times: new Map(songsSungOften.songs.map((s) => [s.song.id, s.timesSung])) };
}

/** Each chosen song's last sung date, asked once per song (one analytics field a request keeps each cheap). */
async function refreshFacts() {
  const service = state.service;
  const missing = state.chosen.filter((s) => !state.lastSung.has(s.id));
  if (!missing.length) return;
  await Promise.all(
    missing.map(async (song) => {
      try {
        const { song: s } = await gql('query($id: Int!, $to: String!) { song(id: $id) { usage(to: $to) { lastSung } } }', { id: song.id, to: dayBefore() });
        if (state.service === service) state.lastSung.set(song.id, s?.usage.lastSung ?? null);
      } catch {
        // Shown as unknown; the setlist itself is unaffected.
      }
    }),
  );
  if (state.service === service) render();
}

function factsOf(song) {
  if (!state.lastSung.has(song.id)) return '…';
  const last = state.lastSung.get(song.id);
  const times = state.recent.times.get(song.id) ?? 0;
  const lastText = last === null ? 'never sung before' : `last sung ${dayText.format(last)}`;
  return `${lastText} · ${times} of the last ${state.recent.services} services`;
}

// ---- The setlist ----

function readDraft() {
  try {
    return JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? 'null');
  } catch {
    return null;
  }
}

function change(next, focusIndex) {
  state.chosen = next;
  if (sameIds(next.map((s) => s.id), state.savedIds)) sessionStorage.removeItem(DRAFT_KEY);
  else sessionStorage.setItem(DRAFT_KEY, JSON.stringify({ serviceId: state.service.id, songs: next }));
  render(focusIndex);
  refreshFacts();
}

function render(focusIndex) {
  const list = $('setlist');
  // A re-render (facts arriving) keeps the focus on the song that had it.
  const focused = list.contains(document.activeElement) ? document.activeElement.closest('li')?.dataset.songId : undefined;
  const items = state.chosen.map((song, i) => {
    const label = song.name;
    const li = el(
      'li',
      { tabIndex: 0, draggable: true, className: 'song' },
      el('span', { className: 'song-name', textContent: song.name }, el('span', { className: 'song-meta', textContent: [song.artists.join(', '), factsOf(song)].filter(Boolean).join(' · ') })),
      el(
        'span',
        { className: 'actions' },
        el('button', { type: 'button', textContent: '↑', title: 'Move up', disabled: i === 0, ariaLabel: `Move ${label} up`, onclick: () => change(move(state.chosen, i, i - 1), i - 1) }),
        el('button', { type: 'button', textContent: '↓', title: 'Move down', disabled: i === state.chosen.length - 1, ariaLabel: `Move ${label} down`, onclick: () => change(move(state.chosen, i, i + 1), i + 1) }),
        el('button', { type: 'button', textContent: 'Remove', ariaLabel: `Remove ${label}`, onclick: () => change(removeAt(state.chosen, i), Math.min(i, state.chosen.length - 2)) }),
      ),
    );
    li.dataset.songId = String(song.id);
    li.setAttribute('aria-label', `${i + 1}. ${song.name}`);
    li.addEventListener('keydown', (e) => {
      if (e.target !== li) return;
      if (e.altKey && e.key === 'ArrowUp' && i > 0) change(move(state.chosen, i, i - 1), i - 1);
      else if (e.altKey && e.key === 'ArrowDown' && i < state.chosen.length - 1) change(move(state.chosen, i, i + 1), i + 1);
      else if (e.key === 'Delete' || e.key === 'Backspace') change(removeAt(state.chosen, i), Math.min(i, state.chosen.length - 2));
      else if (!e.altKey && e.key === 'ArrowUp') li.previousElementSibling?.focus();
      else if (!e.altKey && e.key === 'ArrowDown') li.nextElementSibling?.focus();
      else return;
      e.preventDefault();
    });
    li.addEventListener('dragstart', (e) => {
      e.dataTransfer.setData('text/plain', String(i));
      e.dataTransfer.effectAllowed = 'move';
      li.classList.add('dragging');
    });
    li.addEventListener('dragend', () => li.classList.remove('dragging'));
    li.addEventListener('dragover', (e) => {
      e.preventDefault();
      li.classList.add('over');
    });
    li.addEventListener('dragleave', () => li.classList.remove('over'));
    li.addEventListener('drop', (e) => {
      e.preventDefault();
      const from = Number(e.dataTransfer.getData('text/plain'));
      if (Number.isInteger(from) && from !== i) change(move(state.chosen, from, i), i);
    });
    return li;
  });
  list.replaceChildren(...items);
  $('empty').hidden = items.length > 0;
  if (focusIndex !== undefined) (items[focusIndex] ?? $('search')).focus();
  else if (focused !== undefined) items.find((li) => li.dataset.songId === focused)?.focus();
  const dirty = !sameIds(state.chosen.map((s) => s.id), state.savedIds);
  const status = $('save-state');
  status.textContent = dirty ? 'Unsaved changes' : 'Saved';
  status.className = dirty ? 'dirty' : 'saved';
  $('save').disabled = !dirty;
  renderResults();
  scheduleSuggestions();
}

async function save() {
  if (!state.service) return;
  notify(null);
  const ids = state.chosen.map((s) => s.id);
  $('save').disabled = true;
  try {
    const { setServiceSongs } = await gql('mutation($id: Int!, $ids: [Int!]!) { setServiceSongs(serviceId: $id, songIds: $ids) { id name artists } }', { id: state.service.id, ids });
    state.saveAfterSignIn = false;
    state.savedIds = setServiceSongs.map((s) => s.id);
    sessionStorage.removeItem(DRAFT_KEY);
    render();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') {
      state.saveAfterSignIn = true;
      return expired();
    }
    notify(inWords(err));
    render();
  }
}

function expired() {
  session.clear();
  showSignIn('Your session has ended. Sign in again to go on: your setlist is kept and will be saved.');
}

// ---- Search ----

let searchResults = [];
let searchTimer;
let searchAbort;

function renderResults() {
  const chosen = new Set(state.chosen.map((s) => s.id));
  $('results').replaceChildren(
    ...searchResults.map((song) =>
      el(
        'li',
        {},
        el('span', { className: 'song-name', textContent: song.name }, el('span', { className: 'song-meta', textContent: song.artists.join(', ') })),
        el('button', {
          type: 'button',
          textContent: chosen.has(song.id) ? 'Added' : 'Add',
          disabled: chosen.has(song.id),
          ariaLabel: `Add ${song.name}`,
          onclick: () => change(add(state.chosen, song)),
        }),
      ),
    ),
  );
}

function onSearch() {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    const q = $('search').value.trim();
    searchAbort?.abort();
    if (!q) {
      searchResults = [];
      return renderResults();
    }
    searchAbort = new AbortController();
    try {
      const { songs } = await gql('query($q: String!) { songs(search: $q, limit: 10) { id name artists } }', { q }, searchAbort.signal);
      searchResults = songs;
      renderResults();
    } catch (err) {
      if (err.name !== 'AbortError') notify(inWords(err));
    }
  }, 200);
}

// ---- Suggestions ----

let suggestTimer;
let suggestAbort;

function scheduleSuggestions() {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(loadSuggestions, 150);
}

async function loadSuggestions() {
  if (!state.service) return;
  suggestAbort?.abort();
  suggestAbort = new AbortController();
  const list = $('suggestions');
  list.setAttribute('aria-busy', 'true');
  try {
    const { suggestSongs } = await gql(
      'query($id: Int!, $chosen: [Int!]!) { suggestSongs(serviceId: $id, chosen: $chosen, limit: 8) { song { id name artists } score reasons } }',
      { id: state.service.id, chosen: state.chosen.map((s) => s.id) },
      suggestAbort.signal,
    );
    list.replaceChildren(
      ...suggestSongs.map((x) =>
        el(
          'li',
          {},
          el('span', { className: 'song-name', textContent: x.song.name }, el('span', { className: 'song-meta', textContent: x.song.artists.join(', ') })),
          el('span', {}, el('span', { className: 'score', textContent: x.score.toFixed(2), title: 'Score, from 0 to 1' }), ' ', el('button', { type: 'button', textContent: 'Add', ariaLabel: `Add ${x.song.name}`, onclick: () => change(add(state.chosen, x.song)) })),
          el('ul', { className: 'reasons' }, ...x.reasons.map((r) => el('li', { textContent: r }))),
        ),
      ),
    );
    if (!suggestSongs.length) list.replaceChildren(el('li', { className: 'empty', textContent: 'Nothing to suggest from the history before this service.' }));
    list.dataset.for = state.chosen.map((s) => s.id).join(',');
  } catch (err) {
    if (err.name !== 'AbortError') notify(inWords(err));
  } finally {
    list.setAttribute('aria-busy', 'false');
  }
}

// ---- Start ----

$('sign-in-form').addEventListener('submit', signIn);
$('sign-out').addEventListener('click', signOut);
$('create-form').addEventListener('submit', createService);
$('service-select').addEventListener('change', (e) => {
  if (e.target.value) openService(Number(e.target.value)).catch((err) => notify(inWords(err)));
});
$('search').addEventListener('input', onSearch);
$('search-form').addEventListener('submit', (e) => {
  e.preventDefault();
  // Enter in the search field adds the first result.
  const first = searchResults.find((s) => !state.chosen.some((c) => c.id === s.id));
  if (first) change(add(state.chosen, first));
});
$('save').addEventListener('click', save);

if (session.get()) showPlanner();
else showSignIn();
