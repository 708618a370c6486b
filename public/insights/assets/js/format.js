// Dates are shown in the service time zone (the server's SERVICE_TIME_ZONE, given in the page),
// written the reader's way: in the browser's language, which its date inputs follow too, so a
// summary beside an input puts day and month in the input's order ("Nov 27, 2025" beside
// 11/27/2025 in American English, "27 Nov 2025" beside 27/11/2025 in British English).

export const TIME_ZONE = document.querySelector('meta[name="service-time-zone"]')?.content || 'UTC';
export const LOCALE = navigator.language || 'en-GB';

const formats = {
  day: new Intl.DateTimeFormat(LOCALE, { timeZone: TIME_ZONE, day: 'numeric', month: 'short', year: 'numeric' }),
  month: new Intl.DateTimeFormat(LOCALE, { timeZone: TIME_ZONE, month: 'short', year: 'numeric' }),
};

/** An epoch-ms instant as "5 Jan 2025" or "Jan 5, 2025" (or "—" when absent). */
export const fmtDay = (ms) => (ms === null || ms === undefined ? '—' : formats.day.format(new Date(ms)));
export const fmtMonth = (ms) => formats.month.format(new Date(ms));

/** A YYYY-MM-DD calendar day as "5 Jan 2025" or "Jan 5, 2025", without moving it through any zone. */
export const fmtCalendarDay = (day) =>
  new Intl.DateTimeFormat(LOCALE, { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }).format(
    new Date(`${day}T00:00:00Z`),
  );

/** A YYYY-MM-DD calendar day as "5 Jan" or "Jan 5", for spans inside one period. */
export const fmtDayMonth = (day) =>
  new Intl.DateTimeFormat(LOCALE, { timeZone: 'UTC', day: 'numeric', month: 'short' }).format(new Date(`${day}T00:00:00Z`));

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The charts' font (ECharts' textStyle), so text can be measured as it will be drawn. */
export const CHART_FONT_FAMILY = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * A song title fitted to a chart label: wrapped at spaces into at most `lines` lines no wider than
 * `maxWidth` (as `width(text)` measures it), and when it is longer still, cut after a whole word
 * with "…". Never cut inside a word (a label "Nearer, My Go..." reads as another title); a single
 * word wider than a line is kept whole. The full title is in the tooltip and table.
 */
export function fitTitle(title, maxWidth, lines, width) {
  const out = [];
  for (const word of title.split(/\s+/).filter(Boolean)) {
    const last = out[out.length - 1];
    if (last !== undefined && width(`${last} ${word}`) <= maxWidth) out[out.length - 1] = `${last} ${word}`;
    else out.push(word);
  }
  if (out.length <= lines) return out.join('\n');
  const kept = out.slice(0, lines);
  let end = kept[lines - 1].split(' ');
  // Room for the ellipsis: drop whole words from the last line while it would overflow.
  while (end.length > 1 && width(`${end.join(' ')}…`) > maxWidth) end = end.slice(0, -1);
  kept[lines - 1] = `${end.join(' ')}…`;
  return kept.join('\n');
}
