// The "Export CSV" link: the usage (licensing) report of the window shown, as the REST API's CSV
// (GET /api/v1/reports/songUsage?format=csv, docs/API.md), which a spreadsheet opens as it is.

import { windowArgs } from './state.js';

/** The CSV's URL for the state's window and service types (all of them when none is chosen). */
export function songUsageCsvUrl(state) {
  const { from, to, serviceTypes = [] } = windowArgs(state);
  const q = new URLSearchParams({ format: 'csv' });
  if (from) q.set('from', from);
  if (to) q.set('to', to);
  for (const t of serviceTypes) q.append('serviceType', t);
  return `/api/v1/reports/songUsage?${q}`;
}

/** Point the link at the window shown; called whenever the controls follow the state. */
export function syncExportLink(link, state) {
  if (link) link.href = songUsageCsvUrl(state);
}
