// The Insights page: URL state -> controls and views; every number comes from /graphql.

import * as api from './api.js';
import { coverage } from './buckets.js';
import { syncExportLink } from './export.js';
import { fmtCalendarDay, fmtDay, TIME_ZONE } from './format.js';
import { Panel, songButton } from './panel.js';
import { StoryHeader } from './story.js';
import {
  addDays,
  effectiveBucket,
  isDay,
  MAX_LAST,
  presetOf,
  presetWindow,
  readState,
  SERVICE_TYPES,
  TYPE_LABELS,
  todayIn,
  windowArgs,
  writeState,
} from './state.js';
import * as views from './views.js';

const TOP_LIMIT = 15;
const PAIR_SONGS = 10;
const WITH_LIMIT = 10;

const $ = (sel, root = document) => root.querySelector(sel);
const form = $('#controls');
const notice = $('#notice');
const storyEl = $('#story');
const today = () => todayIn(TIME_ZONE);

let state = readState(location.search, today());

const panel = (name, label, host = $(`[data-view="${name}"]`)) => new Panel(host, { name, label });
const panels = {
  top: panel('top', 'the top songs'),
  timeline: panel('timeline', 'the timeline'),
  often: panel('often', 'the songs sung often'),
  rotation: panel('rotation', 'the rotation'),
  newSongs: panel('new', 'the new songs'),
  pairs: panel('pairs', 'the songs sung together'),
  strip: panel('story-strip', "the song's history"),
  sungWith: panel('story-with', 'the songs sung with it'),
};
const storyHeader = new StoryHeader(storyEl);
const neverList = document.createElement('div');
neverList.className = 'never';
$('[data-view="rotation"] .panel-body').append(neverList);

// ---- navigation: the URL is the state ------------------------------------------------------

function navigate(patch) {
  const before = state;
  state = { ...state, ...patch, problems: [] };
  history.pushState(null, '', location.pathname + writeState(state, today()));
  render(changedScopes(before, state));
}

function changedScopes(a, b) {
  const windowChanged = a.from !== b.from || a.to !== b.to || a.serviceTypes.join() !== b.serviceTypes.join();
  if (windowChanged) return ['window', 'rotation', 'story'];
  const scopes = [];
  if (a.bucket !== b.bucket) scopes.push('timeline', 'story');
  if (a.weeks !== b.weeks) scopes.push('rotation');
  if (a.share !== b.share || a.last !== b.last) scopes.push('often');
  if (a.song !== b.song) scopes.push('story');
  return scopes;
}

export function openSong(id) {
  if (state.song === id) return focusStory();
  navigate({ song: id });
}

window.addEventListener('popstate', () => {
  state = readState(location.search, today());
  syncControls();
  render(['window', 'rotation', 'story']);
});

// ---- controls ------------------------------------------------------------------------------

function syncControls() {
  const preset = presetOf(state, today());
  form.preset.value = preset;
  form.from.value = state.from ?? '';
  form.to.value = state.to ?? '';
  const types = state.serviceTypes.length ? state.serviceTypes : SERVICE_TYPES;
  for (const box of form.querySelectorAll('input[name="serviceType"]')) box.checked = types.includes(box.value);
  form.bucket.value = effectiveBucket(state);
  form.weeks.value = String(state.weeks);
  form.share.value = String(state.share);
  form.last.value = String(state.last);
  $('#window-text').textContent = describeWindow(state);
  syncExportLink($('#export-csv'), state);
}

function windowSpan(s) {
  if (s.from && s.to) return `${fmtCalendarDay(s.from)} to ${fmtCalendarDay(s.to)}`;
  if (s.from) return `from ${fmtCalendarDay(s.from)} on`;
  if (s.to) return `up to ${fmtCalendarDay(s.to)}`;
  return 'all time';
}

const PRESET_NAMES = { '3m': 'Last 3 months', '12m': 'Last 12 months' };

function describeWindow(s) {
  const preset = PRESET_NAMES[presetOf(s, today())];
  const span = windowSpan(s);
  const shown = preset ? `${preset} (${span})` : span.charAt(0).toUpperCase() + span.slice(1);
  const types = s.serviceTypes.length && s.serviceTypes.length < SERVICE_TYPES.length ? s.serviceTypes.map((t) => TYPE_LABELS[t]).join(', ') : 'all service types';
  return `${shown}, ${types}. Dates in ${TIME_ZONE}.`;
}

// On a phone the controls start folded behind the line describing the window (CSS shows the
// Change button only there): unfolded they would fill the first screen before any chart.
const toggle = $('[data-action="toggle-controls"]');
function foldControls(folded) {
  form.classList.toggle('collapsed', folded);
  toggle.setAttribute('aria-expanded', String(!folded));
}
foldControls(window.matchMedia('(max-width: 600px)').matches);
toggle.addEventListener('click', () => foldControls(!form.classList.contains('collapsed')));

form.addEventListener('submit', (e) => e.preventDefault());
form.preset.addEventListener('change', () => {
  const p = form.preset.value;
  if (p === 'custom') {
    if (!state.from && !state.to) {
      // Start a custom window from the last 12 months, for the user to adjust.
      navigate(presetWindow('12m', today()));
      form.preset.value = 'custom';
    }
    form.from.focus();
    return;
  }
  navigate(presetWindow(p, today()));
});
// ---- typed dates: applied when complete ------------------------------------------------------
// A date input reports a complete value after every keystroke of a date being typed: the year
// "2025" arrives as 0002, 0020, 0202, then 2025, and editing a day goes through a day of its first
// digit. Applying each would reload every view with a window nobody asked for. So a date is
// applied only when both fields hold a complete date of a plausible year (or are empty), after a
// short pause in typing, or at once when the field is left, Enter is pressed or the calendar
// picker (no keystrokes) sets it.
const TYPING_PAUSE_MS = 700;
const YEARS = [1900, 2200];
let dateTimer = 0;
let lastDateKey = 0;

/** 'ok' (a usable date), 'empty' (cleared on purpose), or 'unfinished' (being typed, or an implausible year). */
function dateField(input) {
  if (input.validity.badInput) return 'unfinished';
  if (!input.value) return 'empty';
  const year = Number(input.value.slice(0, 4));
  return isDay(input.value) && year >= YEARS[0] && year <= YEARS[1] ? 'ok' : 'unfinished';
}

/** Apply the typed window if it is complete; `leaving`: the user is done, so say what is wrong. */
function applyDates(leaving) {
  clearTimeout(dateTimer);
  const unfinished = ['from', 'to'].filter((name) => dateField(form[name]) === 'unfinished');
  if (unfinished.length) {
    if (!leaving) return;
    showNotice(
      unfinished.map(
        (name) => `The ${name === 'from' ? 'From' : 'To'} date is not a complete date from ${YEARS[0]} to ${YEARS[1]}; the window was not changed.`,
      ),
    );
    for (const name of unfinished) form[name].value = state[name] ?? '';
    return;
  }
  const from = form.from.value || null;
  const to = form.to.value || null;
  if (from === state.from && to === state.to) return;
  if (from && to && from > to) {
    showNotice([`The window cannot end (${fmtCalendarDay(to)}) before it starts (${fmtCalendarDay(from)}).`]);
    return;
  }
  navigate({ from, to });
}

for (const name of ['from', 'to']) {
  const input = form[name];
  input.addEventListener('keydown', (e) => {
    lastDateKey = Date.now();
    if (e.key === 'Enter') applyDates(true);
  });
  const typed = () => {
    clearTimeout(dateTimer);
    if (Date.now() - lastDateKey > TYPING_PAUSE_MS) applyDates(false);
    else dateTimer = setTimeout(() => applyDates(false), TYPING_PAUSE_MS);
  };
  input.addEventListener('input', typed);
  input.addEventListener('change', typed);
  input.addEventListener('blur', () => applyDates(true));
}
form.addEventListener('change', (e) => {
  if (e.target.name !== 'serviceType') return;
  const chosen = [...form.querySelectorAll('input[name="serviceType"]:checked')].map((b) => b.value);
  if (!chosen.length) {
    e.target.checked = true;
    showNotice(['Choose at least one service type.']);
    return;
  }
  navigate({ serviceTypes: chosen.length === SERVICE_TYPES.length ? [] : chosen });
});
form.bucket.addEventListener('change', () => navigate({ bucket: form.bucket.value }));
/** A whole number input of the "sung often" view: applied when in range, else put back with a notice. */
function wholeInput(name, min, max, what) {
  form[name].addEventListener('change', () => {
    const n = Number(form[name].value);
    if (!Number.isInteger(n) || n < min || n > max) {
      showNotice([`${what} must be a whole number from ${min} to ${max}.`]);
      form[name].value = String(state[name]);
      return;
    }
    navigate({ [name]: n });
  });
}
wholeInput('share', 0, 99, 'The share');
wholeInput('last', 1, MAX_LAST, 'The number of services');

form.weeks.addEventListener('change', () => {
  const n = Number(form.weeks.value);
  if (!Number.isInteger(n) || n < 1 || n > 520) {
    showNotice(['Weeks must be a whole number from 1 to 520.']);
    form.weeks.value = String(state.weeks);
  form.share.value = String(state.share);
  form.last.value = String(state.last);
    return;
  }
  navigate({ weeks: n });
});

document.addEventListener('click', (e) => {
  const link = e.target.closest('[data-song-id]');
  if (link) openSong(Number(link.dataset.songId));
  if (e.target.closest('[data-action="close-story"]')) navigate({ song: null });
});

function showNotice(lines) {
  notice.hidden = !lines.length;
  notice.replaceChildren(...lines.map((l) => Object.assign(document.createElement('p'), { textContent: l })));
}

// ---- loading -------------------------------------------------------------------------------

const controllers = new Map();
let pending = 0;
/** Loads in flight, on <body data-pending>: lets tests (and curious users) see when the page is settled. */
const countPending = (delta) => {
  pending += delta;
  document.body.dataset.pending = String(pending);
};

/** Run one view's load; a newer load of the same view aborts the older, so answers never cross. */
async function load(key, target, work) {
  controllers.get(key)?.abort();
  const ctl = new AbortController();
  controllers.set(key, ctl);
  countPending(1);
  target.loading();
  try {
    await work(ctl.signal);
  } catch (err) {
    if (!ctl.signal.aborted) target.error(err.message, () => load(key, target, work));
  } finally {
    countPending(-1);
  }
}

/**
 * Whether any service of the chosen types is recorded at all: an empty window then says "widen
 * the window", and an empty store "record some services". One question per window shown (reset
 * by render), shared by the views that come up empty.
 */
let recordedCheck = null;
const anyRecorded = () => (recordedCheck ??= api.anyServices(windowArgs(state).serviceTypes).catch(() => true));

/** Whether nothing at all is recorded (of the chosen types); a newer load than `signal`'s wins. */
async function nothingRecorded(signal) {
  if (!state.from && !state.to) return true;
  const any = await anyRecorded();
  signal.throwIfAborted();
  return !any;
}

/** What an empty window says, with the way out. */
async function emptyWindow(what, signal) {
  const typed = state.serviceTypes.length ? ' of the chosen service types' : '';
  if (await nothingRecorded(signal)) {
    return [
      `No ${what} yet: no services${typed} have been recorded. Record services and their setlists through the API (POST /api/v1/services, then add songs to each), or load the demo data with "npm run seed".`,
      state.serviceTypes.length ? [{ label: 'Show all service types', run: () => navigate({ serviceTypes: [] }) }] : [],
    ];
  }
  return [
    `No ${what}: no services${typed} took place in the window (${windowSpan(state)}). Choose a wider window.`,
    [{ label: 'Show all time', run: () => navigate({ from: null, to: null }) }],
  ];
}

function loadTopAndPairs() {
  const w = windowArgs(state);
  const types = state.serviceTypes.length ? state.serviceTypes : SERVICE_TYPES;
  let top = null;
  const topDone = load('top', panels.top, async (signal) => {
    top = (await api.topSongs(w, TOP_LIMIT, signal)).filter((r) => r.timesSung > 0);
    if (!top.length) return panels.top.empty(...(await emptyWindow('songs sung', signal)));
    panels.top.show(views.topSongsView(top, types, openSong));
  });
  load('pairs', panels.pairs, async (signal) => {
    await topDone;
    if (!top) throw new api.ApiError('the top songs did not load.');
    const songs = top.slice(0, PAIR_SONGS);
    if (songs.length < 2) return panels.pairs.empty(...(await emptyWindow('pairs of songs', signal)));
    const lists = await Promise.all(songs.map((r) => api.sungWith(r.song.id, w, 1000, signal)));
    const view = views.pairsView(songs, lists, openSong);
    if (!view) return panels.pairs.empty('None of the top songs were sung in the same service in this window. Widen the window to see which songs travel together.');
    panels.pairs.show(view);
  });
}

/** How much of each bucket the window covers (the first and last may be partial). */
const bucketCover = (buckets, bucket) => coverage(buckets, bucket, state, today(), TIME_ZONE);

function loadTimeline() {
  const bucket = effectiveBucket(state);
  load('timeline', panels.timeline, async (signal) => {
    const buckets = await api.timeline(windowArgs(state), bucket, signal);
    if (!buckets.some((b) => b.services > 0)) return panels.timeline.empty(...(await emptyWindow('services', signal)));
    panels.timeline.show(views.timelineView(buckets, bucket, bucketCover(buckets, bucket)));
  });
}

function loadNewSongs() {
  load('new', panels.newSongs, async (signal) => {
    const rows = await api.newSongs(windowArgs(state), signal);
    if (!rows.length && (await nothingRecorded(signal))) return panels.newSongs.empty(...(await emptyWindow('new songs', signal)));
    if (!rows.length) {
      return panels.newSongs.empty('No song was sung for the first time in this window. Widen the window to see when songs came in.', [
        { label: 'Show all time', run: () => navigate({ from: null, to: null }) },
      ]);
    }
    panels.newSongs.show(views.newSongsView(rows, openSong));
  });
}

function loadOften() {
  const { share, last } = state;
  load('often', panels.often, async (signal) => {
    const report = await api.sungOften(windowArgs(state), last, share, signal);
    if (!report.services) return panels.often.empty(...(await emptyWindow('recent services', signal)));
    if (!report.songs.length) {
      const run = `the last ${report.services} services (${fmtDay(report.firstService)} to ${fmtDay(report.lastService)})`;
      const lower = share > 25 ? [{ label: 'Show more than 25%', run: () => navigate({ share: 25 }) }] : [];
      return panels.often.empty(`No song was sung in more than ${share}% of ${run}. Lower the share to see the most repeated songs.`, lower);
    }
    panels.often.show(views.oftenView(report, { share, openSong }));
  });
}

function loadRotation() {
  const cutoff = addDays(today(), -7 * state.weeks);
  load('rotation', panels.rotation, async (signal) => {
    neverList.replaceChildren();
    const rows = await api.notSungSince(cutoff, windowArgs(state).serviceTypes, signal);
    if (!rows.length) {
      if (!(await api.anySongs(signal))) {
        return panels.rotation.empty(
          'No songs yet. Add songs through the API (POST /api/v1/songs, as an ADMIN), or load the demo data with "npm run seed".',
        );
      }
      return panels.rotation.empty(
        `Every song has been sung in the last ${state.weeks} weeks (since ${fmtCalendarDay(cutoff)}). Lower the number of weeks to see which were sung least recently.`,
      );
    }
    const view = views.rotationView(rows, { cutoff, weeks: state.weeks, now: Date.now(), openSong });
    panels.rotation.show(view);
    if (!view.hasChart) panels.rotation.chartEl.hidden = true;
    if (view.never.length) {
      const h = document.createElement('h3');
      h.textContent = `Never sung (${view.never.length})`;
      const ul = document.createElement('ul');
      ul.append(
        ...view.never.map((r) => {
          const li = document.createElement('li');
          li.append(songButton(r.song));
          return li;
        }),
      );
      neverList.replaceChildren(h, ul);
    }
  });
}

function focusStory() {
  storyEl.scrollIntoView({ block: 'start' });
  storyEl.focus({ preventScroll: true });
}

function loadStory() {
  if (!state.song) {
    for (const key of ['story', 'strip', 'with']) controllers.get(key)?.abort();
    storyEl.hidden = true;
    return;
  }
  const id = state.song;
  const w = windowArgs(state);
  const bucket = effectiveBucket(state);
  const opening = storyEl.hidden;
  storyEl.hidden = false;
  let name = null;
  const songDone = load('story', storyHeader, async (signal) => {
    const song = await api.songStory(id, w, signal);
    if (!song) return storyHeader.missing(id);
    name = song.name;
    storyHeader.show(song, state.serviceTypes, state.from || state.to ? windowSpan(state) : null);
  });
  load('strip', panels.strip, async (signal) => {
    const buckets = await api.timeline(w, bucket, signal, id);
    await songDone;
    if (!name) return panels.strip.settle();
    if (!buckets.some((b) => b.performances > 0)) {
      return panels.strip.empty(`${name} was not sung in this window. Widen the window to see its history.`, [
        { label: 'Show all time', run: () => navigate({ from: null, to: null }) },
      ]);
    }
    panels.strip.show(views.stripView(name, buckets, bucket, bucketCover(buckets, bucket)));
  });
  load('with', panels.sungWith, async (signal) => {
    const rows = (await api.sungWith(id, w, WITH_LIMIT, signal)).filter((r) => r.together > 0);
    await songDone;
    if (!name) return panels.sungWith.settle();
    if (!rows.length) return panels.sungWith.empty(`${name} shared no service with another song in this window.`);
    panels.sungWith.show(views.sungWithView(name, rows, openSong));
  });
  if (opening) focusStory();
}

function render(scopes) {
  syncControls();
  showNotice(state.problems ?? []);
  if (scopes.includes('window')) {
    recordedCheck = null;
    loadTopAndPairs();
    loadTimeline();
    loadOften();
    loadNewSongs();
  } else {
    if (scopes.includes('timeline')) loadTimeline();
    if (scopes.includes('often')) loadOften();
  }
  if (scopes.includes('rotation')) loadRotation();
  if (scopes.includes('story')) loadStory();
}

// A link with mistakes is shown cleaned, with the mistakes explained in the notice.
if (state.problems.length) history.replaceState(null, '', location.pathname + writeState(state, today()));
render(['window', 'rotation', 'story']);
