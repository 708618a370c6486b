// What each view draws: API answers in, Panel.show() arguments out (chart option, table, keys).

import { CHART_FONT_FAMILY, fitTitle, fmtCalendarDay, fmtDay, fmtDayMonth, fmtMonth, plural } from './format.js';
import { SERVICE_TYPES, TYPE_LABELS } from './state.js';

// Okabe-Ito colours: told apart with any common colour-vision deficiency.
const TYPE_COLORS = { SUN_AM: '#0072B2', SUN_PM: '#E69F00', WED: '#009E73' };
const BLUE = '#0072B2';
const VERMILION = '#D55E00';
const ROW = 30;
const WEEK_MS = 7 * 86_400_000;

/** Phones get narrower song labels beside the bars (the full name is in the tooltip and table). */
const narrow = () => window.matchMedia('(max-width: 500px)').matches;

/** Width in px of `text` in the charts' 12px axis-label font, measured as the canvas will draw it. */
let measurer = null;
function labelWidth(text) {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = `12px ${CHART_FONT_FAMILY}`;
  return measurer.measureText(text).width;
}
/** A title fitted into `width` px on `lines` lines, at word boundaries (format.js fitTitle). */
const fitted = (width, lines) => (name) => fitTitle(name, width, lines, labelWidth);

/**
 * Song names down the side: two lines at most, wrapped and shortened at word boundaries, not
 * ECharts' character truncation. A bar row (ROW) holds two 13px lines. The label box is given its
 * width so the grid leaves exactly that room (ECharts' own estimate samples a few labels and can
 * leave a long one hanging past the canvas edge).
 */
const categoryAxis = (names, width = narrow() ? 110 : 160) => ({
  type: 'category',
  data: names,
  inverse: true,
  triggerEvent: true,
  axisTick: { show: false },
  axisLabel: { width, formatter: fitted(width, 2), lineHeight: 13 },
});
const grid = (extra = {}) => ({ left: 8, right: 48, top: 36, bottom: 8, containLabel: true, ...extra });

/** Song index of a click on a bar or on its axis label. */
function clickedIndex(params, names) {
  if (params.componentType === 'series') return params.dataIndex;
  if (params.componentType === 'yAxis') return names.indexOf(params.value);
  return -1;
}

const songItems = (rows, text, openSong) =>
  rows.map((r, i) => ({ text: text(r), tip: { seriesIndex: 0, dataIndex: i }, select: () => openSong(r.song.id) }));

/**
 * One bar per song, one series: the drawing, keyboard items and click handling that rotation,
 * new songs and "sung with" share. `value(row)` is the bar; `label(row)` is written at its end.
 */
function songBars(rows, { series, color, value, label, axisName, right = 48, text, openSong }) {
  const names = rows.map((r) => r.song.name);
  return {
    height: rows.length * ROW + (axisName ? 70 : 40),
    option: {
      grid: grid({ top: axisName ? 16 : 8, bottom: axisName ? 30 : 8, right }),
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      // Fewer ticks on a phone, where five numbers run into each other.
      xAxis: { type: 'value', minInterval: 1, splitNumber: narrow() ? 3 : 5, name: axisName, nameLocation: 'middle', nameGap: 24 },
      yAxis: categoryAxis(names),
      series: [
        {
          name: series,
          type: 'bar',
          barMaxWidth: 22,
          itemStyle: { color },
          label: { show: true, position: 'right', formatter: (p) => label(rows[p.dataIndex]) },
          data: rows.map(value),
        },
      ],
    },
    items: songItems(rows, text, openSong),
    onClick: (p) => {
      const i = clickedIndex(p, names);
      if (i >= 0) openSong(rows[i].song.id);
    },
  };
}

export function topSongsView(rows, types, openSong) {
  const names = rows.map((r) => r.song.name);
  const count = (r, t) => r.byServiceType.find((b) => b.serviceType === t)?.timesSung ?? 0;
  const series = types.map((t, i) => ({
    name: TYPE_LABELS[t],
    type: 'bar',
    stack: 'times',
    barMaxWidth: 22,
    itemStyle: { color: TYPE_COLORS[t] },
    data: rows.map((r) => count(r, t)),
    // The total, written once at the end of each stacked bar.
    label:
      i === types.length - 1
        ? { show: true, position: 'right', formatter: (p) => String(rows[p.dataIndex].timesSung) }
        : { show: false },
  }));
  const top = rows[0];
  return {
    summary: `Most sung: ${top.song.name}, ${plural(top.timesSung, 'time')}. The ${plural(rows.length, 'song')} sung most in the window.`,
    height: rows.length * ROW + 90,
    option: {
      aria: { decal: { show: true } },
      legend: { top: 0, left: 0 },
      grid: grid({ bottom: 30 }),
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' } },
      xAxis: { type: 'value', minInterval: 1, name: 'times sung', nameLocation: 'middle', nameGap: 26 },
      yAxis: categoryAxis(names),
      series,
    },
    items: songItems(
      rows,
      (r) => `${r.song.name}: ${plural(r.timesSung, 'time')} (${types.map((t) => `${TYPE_LABELS[t]} ${count(r, t)}`).join(', ')})`,
      openSong,
    ),
    onClick: (p) => {
      const i = clickedIndex(p, names);
      if (i >= 0) openSong(rows[i].song.id);
    },
    table: {
      caption: 'Top songs: times sung in the window by service type',
      columns: [{ label: 'Song' }, { label: 'Times sung', num: true }, ...types.map((t) => ({ label: TYPE_LABELS[t], num: true }))],
      rows: rows.map((r) => [r.song, r.timesSung, ...types.map((t) => count(r, t))]),
    },
  };
}

const bucketLabel = (bucket) => (bucket === 'WEEK' ? (ms) => `w/c ${fmtDay(ms)}` : fmtMonth);
const bucketWord = (bucket) => (bucket === 'WEEK' ? 'week' : 'month');

/** The days of a partial bucket the window covers: "from 10 Jan", "to 20 Mar", "10 to 20 Jan". */
function coveredDays(c) {
  if (c.from !== c.first && c.to !== c.last) return `${fmtDayMonth(c.from)} to ${fmtDayMonth(c.to)}`;
  return c.from !== c.first ? `from ${fmtDayMonth(c.from)}` : `to ${fmtDayMonth(c.to)}`;
}

/**
 * Bucket labels, the partial ones marked: `short` on the axis, `full` (with the days covered) in
 * the tooltip, table and keyboard text, and a sentence naming them for the summary.
 */
function bucketLabels(buckets, bucket, cover) {
  const label = bucketLabel(bucket);
  const short = buckets.map((b) => label(b.start));
  const full = short.map((l, i) => (cover[i].partial ? `${l} (partial: ${coveredDays(cover[i])})` : l));
  const cut = full.filter((_, i) => cover[i].partial);
  const note = cut.length
    ? ` Partial ${cut.length === 1 ? bucketWord(bucket) : `${bucketWord(bucket)}s`}, drawn pale with a dashed edge: ${cut.join('; ')}.`
    : '';
  return { short, full, note };
}

/** A partial bucket's bar: paler, dashed edge. `partial` rides along on the data item for tests and tools. */
const partialBar = (value, color) => ({
  value,
  partial: true,
  itemStyle: { color, opacity: 0.45, borderColor: color, borderWidth: 1.5, borderType: 'dashed' },
});
const bars = (values, cover, color) => values.map((v, i) => (cover[i].partial ? partialBar(v, color) : v));

/** `cover[i]`: how much of bucket i the window covers (./buckets.js). */
export function timelineView(buckets, bucket, cover) {
  const label = bucketLabel(bucket);
  const { short, full: labels, note } = bucketLabels(buckets, bucket, cover);
  const services = buckets.reduce((n, b) => n + b.services, 0);
  const busiest = buckets.reduce((a, b) => (b.services > a.services ? b : a), buckets[0]);
  return {
    summary: `${plural(services, 'service')} over ${plural(buckets.length, bucketWord(bucket))}; busiest: ${label(busiest.start)} with ${plural(busiest.services, 'service')}.${note}`,
    option: {
      legend: { top: 0, left: 0 },
      grid: grid({ right: 16, bottom: 40 }),
      tooltip: { trigger: 'axis' },
      dataZoom: buckets.length > 60 ? [{ type: 'inside' }, { type: 'slider', height: 18, bottom: 4 }] : [],
      // The full label (partial ones say so) is the category, for the tooltip; the axis writes it short.
      xAxis: { type: 'category', data: labels, axisTick: { alignWithLabel: true }, axisLabel: { formatter: (_, i) => short[i] } },
      yAxis: { type: 'value', minInterval: 1 },
      series: [
        { name: 'Services', type: 'bar', itemStyle: { color: BLUE }, data: bars(buckets.map((b) => b.services), cover, BLUE) },
        {
          name: 'Distinct songs',
          type: 'line',
          symbolSize: 5,
          itemStyle: { color: VERMILION },
          lineStyle: { width: 2 },
          data: buckets.map((b) => b.distinctSongs),
        },
      ],
    },
    items: buckets.map((b, i) => ({
      text: `${labels[i]}: ${plural(b.services, 'service')}, ${plural(b.distinctSongs, 'distinct song')}`,
      tip: { seriesIndex: 0, dataIndex: i },
    })),
    table: {
      caption: `Services and distinct songs per ${bucketWord(bucket)}`,
      columns: [{ label: bucket === 'WEEK' ? 'Week' : 'Month' }, { label: 'Services', num: true }, { label: 'Distinct songs', num: true }, { label: 'Songs sung', num: true }],
      rows: buckets.map((b, i) => [labels[i], b.services, b.distinctSongs, b.performances]),
    },
  };
}

/**
 * Sung often lately (the API's songsSungOften): one bar per song, its percentage of the run of
 * recent services, with the chosen share drawn as a line the bars all pass.
 */
export function oftenView(report, { share, openSong }) {
  const { songs, services } = report;
  const pct = (r) => Math.round(r.share * 100);
  const run = `the last ${plural(services, 'service')} (${fmtDay(report.firstService)} to ${fmtDay(report.lastService)})`;
  const most = songs[0];
  const view = songBars(songs, {
    series: 'Share of the services',
    color: VERMILION,
    value: pct,
    label: (r) => `${r.timesSung} of ${services}`,
    axisName: '% of the services',
    right: 70,
    text: (r) => `${r.song.name}: in ${r.timesSung} of ${plural(services, 'service')} (${pct(r)}%), last ${fmtDay(r.lastSung)}`,
    openSong,
  });
  view.option.xAxis = { ...view.option.xAxis, max: 100 };
  view.option.series[0].markLine = {
    silent: true,
    symbol: 'none',
    // The y axis runs top down (inverse), so the line's start is at the top.
    label: { formatter: `${share}%`, position: 'start' },
    lineStyle: { color: '#1d232b', type: 'dashed' },
    data: [{ xAxis: share }],
  };
  return {
    summary:
      `${plural(songs.length, 'song')} sung in more than ${share}% of ${run}; ` +
      `the most: ${most.song.name}, in ${most.timesSung}.`,
    ...view,
    table: {
      caption: `Songs sung in more than ${share}% of ${run}, most often first`,
      columns: [{ label: 'Song' }, { label: 'Services sung in', num: true }, { label: 'Share', num: true }, { label: 'Last sung' }],
      rows: songs.map((r) => [r.song, r.timesSung, `${pct(r)}%`, fmtDay(r.lastSung)]),
    },
  };
}

/** Rotation: songs sung before, longest gap first (the chart), and never-sung songs (listed). */
export function rotationView(rows, { cutoff, weeks, now, openSong, chartLimit = 25 }) {
  const never = rows.filter((r) => r.lastSung === null);
  const lapsed = rows.filter((r) => r.lastSung !== null);
  const shown = lapsed.slice(0, chartLimit);
  const gap = (r) => Math.floor((now - r.lastSung) / WEEK_MS);
  const more = lapsed.length - shown.length;
  return {
    summary:
      `${plural(lapsed.length, 'song')} not sung since ${fmtCalendarDay(cutoff)} (${plural(weeks, 'week')})` +
      `${never.length ? `; ${plural(never.length, 'song')} never sung` : ''}.` +
      `${more > 0 ? ` The chart shows the ${shown.length} longest gaps; the table has all.` : ''}`,
    ...songBars(shown, {
      series: 'Weeks since last sung',
      color: VERMILION,
      value: gap,
      label: (r) => fmtDay(r.lastSung),
      axisName: 'weeks since last sung',
      right: 90,
      text: (r) => `${r.song.name}: last sung ${fmtDay(r.lastSung)}, ${plural(gap(r), 'week')} ago`,
      openSong,
    }),
    // All of them never sung: nothing to draw, only the list.
    hasChart: shown.length > 0,
    never,
    table: {
      caption: `Songs not sung since ${fmtCalendarDay(cutoff)}, never-sung first`,
      columns: [{ label: 'Song' }, { label: 'Last sung' }, { label: 'Weeks since', num: true }, { label: 'Times sung (all time)', num: true }],
      rows: rows.map((r) => [r.song, r.lastSung === null ? 'never' : fmtDay(r.lastSung), r.lastSung === null ? '—' : gap(r), r.timesSung]),
    },
  };
}

/** New songs arrive newest first (the API's order), so a long list is cut at its oldest end. */
export function newSongsView(rows, openSong, chartLimit = 30) {
  const shown = rows.slice(0, chartLimit);
  const latest = rows[0];
  return {
    summary:
      `${plural(rows.length, 'song')} first sung in the window; the latest: ${latest.song.name} on ${fmtDay(latest.firstSung)}.` +
      `${rows.length > shown.length ? ` The chart shows the newest ${shown.length}; the table has all.` : ''}`,
    ...songBars(shown, {
      series: 'Times sung',
      color: '#009E73',
      value: (r) => r.timesSung,
      // A phone has room for the month only; the day is in the tooltip and the table.
      label: (r) => `${r.timesSung} · first ${narrow() ? fmtMonth(r.firstSung) : fmtDay(r.firstSung)}`,
      axisName: 'times sung since (all time)',
      right: narrow() ? 135 : 170,
      text: (r) => `${r.song.name}: first sung ${fmtDay(r.firstSung)}, ${plural(r.timesSung, 'time')} since`,
      openSong,
    }),
    table: {
      caption: 'Songs first sung in the window, newest first',
      columns: [{ label: 'Song' }, { label: 'First sung' }, { label: 'Times sung (all time)', num: true }, { label: 'Last sung' }],
      rows: rows.map((r) => [r.song, fmtDay(r.firstSung), r.timesSung, fmtDay(r.lastSung)]),
    },
  };
}

/** The API's `jaccard`, named and explained for people. */
const TOGETHER_SCORE =
  'Together score: of the services with either song, the share that had both (1.00 = always sung together, 0.00 = never).';

/**
 * Pairs among the top songs: `withLists[i]` is songsSungWith for `top[i]`. The heat map is
 * symmetric; the table and the keyboard walk the pairs strongest first.
 */
export function pairsView(top, withLists, openSong) {
  const names = top.map((r) => r.song.name);
  const index = new Map(top.map((r, i) => [r.song.id, i]));
  const cell = new Map();
  withLists.forEach((list, i) => {
    for (const p of list) {
      const j = index.get(p.song.id);
      if (j !== undefined && j !== i) cell.set(`${i},${j}`, p);
    }
  });
  const data = [];
  const pairs = [];
  for (let i = 0; i < top.length; i++) {
    for (let j = 0; j < top.length; j++) {
      if (i === j) continue;
      const p = cell.get(`${i},${j}`) ?? cell.get(`${j},${i}`);
      data.push([j, i, p?.together ?? 0]);
      if (i < j && p && p.together > 0) pairs.push({ i, j, together: p.together, jaccard: p.jaccard, dataIndex: data.length - 1 });
    }
  }
  pairs.sort((a, b) => b.together - a.together || b.jaccard - a.jaccard || a.i - b.i || a.j - b.j);
  if (!pairs.length) return null;
  const strongest = pairs[0];
  const max = strongest.together;
  return {
    summary: `Strongest pair: ${names[strongest.i]} and ${names[strongest.j]}, together in ${plural(strongest.together, 'service')}. Among the ${top.length} most sung songs.`,
    height: top.length * 34 + 170,
    option: {
      grid: { left: 8, right: 16, top: 8, bottom: 56, containLabel: true },
      tooltip: {
        formatter: (p) => `${names[p.value[1]]} + ${names[p.value[0]]}: together in ${plural(p.value[2], 'service')}`,
      },
      xAxis: {
        type: 'category',
        data: names,
        // Rotated names read on one line: shortened after a whole word, with room on a phone for
        // a two-word title ("Amazing Grace") whole.
        axisLabel: { rotate: narrow() ? 90 : 40, interval: 0, formatter: fitted(narrow() ? 120 : 100, 1) },
        splitArea: { show: true },
      },
      yAxis: categoryAxis(names, narrow() ? 96 : 140),
      visualMap: {
        min: 0,
        max,
        calculable: false,
        orient: 'horizontal',
        left: 'center',
        bottom: 0,
        itemHeight: 120,
        text: [`${max}`, '0'],
        inRange: { color: ['#f3f6fb', '#9ec3e6', '#0b4f8a'] },
      },
      series: [
        {
          name: 'Services together',
          type: 'heatmap',
          data,
          label: { show: true, formatter: (p) => (p.value[2] ? String(p.value[2]) : '') },
          emphasis: { itemStyle: { borderColor: '#222', borderWidth: 2 } },
        },
      ],
    },
    items: pairs.map((p) => ({
      text: `${names[p.i]} and ${names[p.j]}: together in ${plural(p.together, 'service')}`,
      tip: { seriesIndex: 0, dataIndex: p.dataIndex },
      select: () => openSong(top[p.i].song.id),
    })),
    onClick: (p) => {
      if (p.componentType === 'series') openSong(top[p.value[1]].song.id);
      else if (p.componentType === 'yAxis') openSong(top[names.indexOf(p.value)].song.id);
    },
    table: {
      caption: 'Pairs among the top songs, most often together first',
      columns: [{ label: 'Song' }, { label: 'Sung with' }, { label: 'Services together', num: true }, { label: 'Together score', num: true }],
      rows: pairs.map((p) => [top[p.i].song, top[p.j].song, p.together, p.jaccard.toFixed(2)]),
      note: TOGETHER_SCORE,
    },
  };
}

/** One song's history: how often it was sung per period (`cover` as for the timeline). */
export function stripView(name, buckets, bucket, cover) {
  const { short, full: labels, note } = bucketLabels(buckets, bucket, cover);
  const sung = buckets.filter((b) => b.performances > 0).length;
  return {
    summary: `${name} was sung in ${sung} of ${plural(buckets.length, bucketWord(bucket))}.${note}`,
    height: 170,
    option: {
      grid: grid({ right: 16, top: 16, bottom: 8 }),
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'category', data: labels, axisLabel: { formatter: (_, i) => short[i] } },
      yAxis: { type: 'value', minInterval: 1 },
      series: [{ name: 'Times sung', type: 'bar', itemStyle: { color: BLUE }, data: bars(buckets.map((b) => b.performances), cover, BLUE) }],
    },
    items: buckets.map((b, i) => ({ text: `${labels[i]}: ${plural(b.performances, 'time')}`, tip: { seriesIndex: 0, dataIndex: i } })),
    table: {
      caption: `${name}: times sung per ${bucketWord(bucket)}`,
      columns: [{ label: bucket === 'WEEK' ? 'Week' : 'Month' }, { label: 'Times sung', num: true }],
      rows: buckets.map((b, i) => [labels[i], b.performances]),
    },
  };
}

export function sungWithView(name, rows, openSong) {
  return {
    summary: `Most often with ${name}: ${rows[0].song.name}, together in ${plural(rows[0].together, 'service')}.`,
    ...songBars(rows, {
      series: 'Services together',
      color: '#CC79A7',
      value: (r) => r.together,
      label: (r) => String(r.together),
      text: (r) => `${r.song.name}: together in ${plural(r.together, 'service')}`,
      openSong,
    }),
    table: {
      caption: `Songs sung in the same services as ${name}`,
      columns: [{ label: 'Song' }, { label: 'Services together', num: true }, { label: 'Together score', num: true }],
      rows: rows.map((r) => [r.song, r.together, r.jaccard.toFixed(2)]),
      note: TOGETHER_SCORE,
    },
  };
}

/**
 * The story's headline numbers, as a definition list's [term, value] pairs. First and last sung
 * are the song's whole life (`ever`: a song introduced two years ago was not first sung when the
 * window starts); the counts are the window's, the first of them beside the first date.
 */
export function storyStats(usage, ever, types, allTime) {
  const t = types.length ? types : SERVICE_TYPES;
  return [
    ['First sung', fmtDay(ever.firstSung)],
    [allTime ? 'Times sung' : 'Times sung in the window', usage.timesSung],
    ['Last sung', fmtDay(ever.lastSung)],
    ['Opened a service', plural(usage.asOpener, 'time')],
    ['Closed a service', plural(usage.asCloser, 'time')],
    ...usage.byServiceType.filter((b) => t.includes(b.serviceType)).map((b) => [TYPE_LABELS[b.serviceType], b.timesSung]),
  ];
}
