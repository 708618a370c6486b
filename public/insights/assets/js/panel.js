// One chart with its text alternative (a table), keyboard use, and loading / empty / error states.

import { CHART_FONT_FAMILY } from './format.js';

const SLOW_MS = 5000;
let nextId = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  node.append(...children);
  return node;
}

/** A button that opens a song's story (the page listens for clicks on [data-song-id]). */
export function songButton(song) {
  return el('button', { type: 'button', class: 'song-link', 'data-song-id': song.id, text: song.name });
}

/** Base options every chart shares: ARIA description on, tooltips drawn on the canvas (no inline HTML styles, so the strict CSP holds). */
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

function withDefaults(option, description) {
  return {
    animation: !reducedMotion.matches,
    animationDuration: 300,
    textStyle: { fontFamily: CHART_FONT_FAMILY },
    ...option,
    // Our own description: ECharts' generated one reads out raw data tuples.
    aria: { enabled: true, label: { description }, ...option.aria },
    tooltip: { confine: true, renderMode: 'richText', ...option.tooltip },
  };
}

export class Panel {
  /**
   * @param host  the element the panel fills (its first header gets the table toggle)
   * @param name  a stable name: data-chart on the chart element, used by tests and styles
   */
  constructor(host, { name, label }) {
    const id = `p${++nextId}`;
    this.name = name;
    this.label = label;
    this.tableMode = false;
    this.items = [];
    this.cursor = -1;
    this.onChartClick = null;

    this.toggle = el('button', {
      type: 'button',
      class: 'table-toggle',
      'aria-pressed': 'false',
      'aria-controls': `${id}-table`,
      text: 'Table',
      title: 'Show the numbers as a table',
    });
    this.summary = el('p', { class: 'summary', id: `${id}-summary` });
    this.status = el('div', { class: 'status', role: 'status', hidden: true });
    this.chartEl = el('div', {
      class: 'chart',
      tabindex: '0',
      role: 'group',
      'aria-roledescription': 'chart',
      'aria-describedby': `${id}-keys`,
      'data-chart': name,
    });
    this.keysHint = el('p', {
      class: 'sr-only',
      id: `${id}-keys`,
      text: 'Arrow keys move between items; Enter opens a song.',
    });
    this.announcer = el('p', { class: 'sr-only', 'aria-live': 'polite' });
    // A scrolling region a keyboard can reach and a screen reader can name.
    this.tableWrap = el('div', { class: 'table-wrap', id: `${id}-table`, hidden: true, 'data-table': name, tabindex: '0', role: 'region', 'aria-label': `Table of ${label}` });
    this.body = el('div', { class: 'panel-body' }, this.summary, this.status, this.chartEl, this.tableWrap);

    (host.querySelector('header, .sub-head') ?? host).append(this.toggle);
    host.append(this.body, this.keysHint, this.announcer);
    this.host = host;

    this.toggle.addEventListener('click', () => this.setTableMode(!this.tableMode));
    this.chartEl.addEventListener('keydown', (e) => this.onKey(e));
    new ResizeObserver(() => {
      if (!this.chart) return;
      this.chart.resize();
      this.fitLegend();
    }).observe(this.chartEl);
  }

  /**
   * Keep the legend above the plot. ECharts wraps a legend wider than the chart onto more lines (on
   * a phone) but places the grid at its own `top` regardless, so the second line would lie on the
   * first bars. After each layout the grid moves down below the legend as drawn, and the chart
   * grows by as much; when the legend fits one line again, both return to what the view asked.
   */
  fitLegend() {
    const legendModel = this.chart.getModel().getComponent('legend');
    if (!legendModel || this.gridTop === undefined) return;
    const legend = this.chart.getViewOfComponentModel(legendModel).group;
    let bottom = 0;
    for (const e of this.chart.getZr().storage.getDisplayList(true)) {
      let p = e;
      while (p && p !== legend) p = p.parent;
      if (!p || e.invisible || e.ignore) continue;
      const box = e.getBoundingRect().clone();
      box.applyTransform(e.getComputedTransform());
      bottom = Math.max(bottom, box.y + box.height);
    }
    const top = Math.max(this.gridTop, Math.ceil(bottom) + 8);
    if (top === this.gridTopNow) return;
    this.gridTopNow = top;
    this.chartEl.style.height = `${this.baseHeight + top - this.gridTop}px`;
    this.chart.setOption({ grid: { top } });
    this.chart.resize();
  }

  setTableMode(on) {
    this.tableMode = on;
    this.toggle.setAttribute('aria-pressed', String(on));
    this.toggle.textContent = on ? 'Chart' : 'Table';
    this.toggle.title = on ? 'Show the chart' : 'Show the numbers as a table';
    if (this.hasData) this.reveal();
  }

  reveal() {
    this.chartEl.hidden = this.tableMode;
    this.tableWrap.hidden = !this.tableMode;
    if (!this.tableMode) this.chart?.resize();
  }

  loading() {
    clearTimeout(this.slowTimer);
    this.host.setAttribute('aria-busy', 'true');
    this.body.classList.add('is-loading');
    this.setStatus('loading', 'Loading…');
    this.slowTimer = setTimeout(() => this.setStatus('loading', 'Still loading: the server is slow to answer.'), SLOW_MS);
  }

  settle() {
    clearTimeout(this.slowTimer);
    this.status.hidden = true;
    this.host.removeAttribute('aria-busy');
    this.body.classList.remove('is-loading');
  }

  setStatus(kind, message, actions = []) {
    this.status.hidden = false;
    this.status.className = `status ${kind}`;
    this.status.replaceChildren(
      el('p', { text: message }),
      ...actions.map(({ label, run }) => {
        const b = el('button', { type: 'button', text: label });
        b.addEventListener('click', run);
        return b;
      }),
    );
  }

  /** A message instead of the chart and table (nothing to draw, or a failure). */
  message(kind, text, actions) {
    this.settle();
    this.hasData = false;
    this.summary.textContent = '';
    this.chartEl.hidden = true;
    this.tableWrap.hidden = true;
    this.toggle.disabled = true;
    this.setStatus(kind, text, actions);
  }

  /** Nothing to draw: say why and what to do instead. */
  empty(text, actions = []) {
    this.message('empty', text, actions);
  }

  error(text, retry) {
    this.message('error', `Could not load ${this.label}: ${text}`, retry ? [{ label: 'Try again', run: retry }] : []);
  }

  /**
   * Draw. `items` are what the keyboard walks through: { text, tip: {seriesIndex, dataIndex}, select? }.
   * `height` in px, for charts whose height follows their rows.
   */
  show({ option, table, summary, items = [], height, onClick }) {
    this.settle();
    this.hasData = true;
    this.status.hidden = true;
    this.toggle.disabled = false;
    this.summary.textContent = summary ?? '';
    this.items = items;
    this.cursor = -1;
    this.onChartClick = onClick ?? null;
    this.chartEl.style.height = height ? `${height}px` : '';
    this.reveal();
    this.renderTable(table);
    if (!this.chart) {
      this.chart = window.echarts.init(this.chartEl, null, { renderer: 'canvas' });
      this.chart.on('click', (params) => this.onChartClick?.(params));
    }
    const description = `Chart of ${this.label}. ${summary ?? ''} The Table button shows every number.`;
    this.chart.setOption(withDefaults(option, description), { notMerge: true });
    this.chart.resize();
    // What the view asked for, before fitLegend moves the grid for a wrapped legend.
    this.gridTop = option.legend && typeof option.grid?.top === 'number' ? option.grid.top : undefined;
    this.gridTopNow = this.gridTop;
    // The stylesheet's height when the view sets none (read even while the chart is hidden).
    this.baseHeight = height ?? parseFloat(getComputedStyle(this.chartEl).height);
    this.fitLegend();
  }

  /** `note`: one line under the table, for a column that needs explaining. */
  renderTable({ caption, columns, rows, note }) {
    const head = el('tr', {}, ...columns.map((c) => el('th', { scope: 'col', class: c.num ? 'num' : null, text: c.label })));
    const body = rows.map((row) =>
      el(
        'tr',
        {},
        ...row.map((cell, i) => {
          const tag = i === 0 ? 'th' : 'td';
          const attrs = { class: columns[i].num ? 'num' : null, scope: i === 0 ? 'row' : null };
          if (cell && typeof cell === 'object') return el(tag, attrs, songButton(cell));
          return el(tag, { ...attrs, text: String(cell ?? '—') });
        }),
      ),
    );
    // The note goes first: a long table scrolls inside its box, and the note should not scroll away with the end.
    this.tableWrap.replaceChildren(
      ...(note ? [el('p', { class: 'table-note', text: note })] : []),
      el('table', {}, el('caption', { text: caption }), el('thead', {}, head), el('tbody', {}, ...body)),
    );
  }

  onKey(e) {
    if (!this.items.length || !this.chart) return;
    const last = this.items.length - 1;
    const moves = {
      ArrowDown: this.cursor + 1,
      ArrowRight: this.cursor + 1,
      ArrowUp: this.cursor - 1,
      ArrowLeft: this.cursor - 1,
      Home: 0,
      End: last,
    };
    if (e.key in moves) {
      e.preventDefault();
      this.focusItem(Math.max(0, Math.min(last, moves[e.key])));
    } else if ((e.key === 'Enter' || e.key === ' ') && this.items[Math.max(this.cursor, 0)]?.select) {
      e.preventDefault();
      this.items[Math.max(this.cursor, 0)].select();
    } else if (e.key === 'Escape') {
      this.chart.dispatchAction({ type: 'hideTip' });
    }
  }

  focusItem(index) {
    const prev = this.items[this.cursor];
    if (prev) this.chart.dispatchAction({ type: 'downplay', ...prev.tip });
    this.cursor = index;
    const item = this.items[index];
    this.chart.dispatchAction({ type: 'highlight', ...item.tip });
    this.chart.dispatchAction({ type: 'showTip', ...item.tip });
    this.announcer.textContent = item.text + (item.select ? '. Enter opens its story.' : '');
  }
}
