// Dates are shown in the service time zone (the server's SERVICE_TIME_ZONE, given in the page).

export const TIME_ZONE = document.querySelector('meta[name="service-time-zone"]')?.content || 'UTC';

const formats = {
  day: new Intl.DateTimeFormat('en-GB', { timeZone: TIME_ZONE, day: 'numeric', month: 'short', year: 'numeric' }),
  month: new Intl.DateTimeFormat('en-GB', { timeZone: TIME_ZONE, month: 'short', year: 'numeric' }),
};

/** An epoch-ms instant as "5 Jan 2025" (or "—" when absent). */
export const fmtDay = (ms) => (ms === null || ms === undefined ? '—' : formats.day.format(new Date(ms)));
export const fmtMonth = (ms) => formats.month.format(new Date(ms));

/** A YYYY-MM-DD calendar day as "5 Jan 2025", without moving it through any zone. */
export const fmtCalendarDay = (day) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' }).format(
    new Date(`${day}T00:00:00Z`),
  );

/** A YYYY-MM-DD calendar day as "5 Jan", for spans inside one period. */
export const fmtDayMonth = (day) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short' }).format(new Date(`${day}T00:00:00Z`));

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
