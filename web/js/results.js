// The report, rendered: totals, fit against the GPU, optional lines other engine features add
// (GPU, step time, tokens/s, advice, warnings) and the sortable per-layer table. Everything is
// read from the report JSON, so new fields show up without changes here where possible.

// @ts-check
import { h, morph, replace, setText } from './dom.js';
import { t } from './i18n.js';
import { formatBytes, formatCount, formatRate, formatSeconds, formatShape, formatSignificant, groupDigits } from './units.js';
import { approximateBadge } from './approximate.js';
import { selectLayer, selectedLayer } from './selection.js';

/** @typedef {import('./types').Report} Report */
/** @typedef {import('./types').GpuFit} GpuFit */
/** @typedef {import('./types').MemoryFit} MemoryFit */
/** @typedef {import('./types').LayerReport} LayerReport */
/** A memory line: {key, label, bytes, share, pointer}. */
/** @typedef {{key: string, label: string, bytes: number, share: number, pointer: string}} MemorySegment */
/** The report's fit with where it came from and the memory it compares with. */
/** @typedef {(GpuFit & {kind: 'gpu_fit', capacity: number}) | (MemoryFit & {kind: 'memory_fit', capacity: number})} Fit */
/** The layer table's sort: dir 1 ascending, -1 descending; key null: report order. */
/** @typedef {{key: string | null, dir: number}} Sort */
/** A layer with its index in the report. */
/** @typedef {LayerReport & {index: number}} LayerRow */
/** @typedef {{key: string, num: boolean, bar?: boolean}} Column */

/** "max_batch" -> "max batch" @param {string} key */
export function humanize(key) {
  return key.replace(/_/g, ' ');
}

/** The memory lines of a report, in the engine's order: [{key, label, bytes, pointer}], where
 *  pointer is the JSON pointer of the line's bytes (the id of its explanation).
 *  @param {Report} report @returns {MemorySegment[]} */
export function memorySegments(report) {
  // Training peaks in one phase (backward or the optimizer step): the engine marks the
  // terms its total counts ("in_peak").
  return report.memory.terms.flatMap((term, i) => (term.in_peak === false ? [] : [{
    key: term.key,
    label: t(`mem_${term.key}`, {}, humanize(term.key)),
    bytes: term.bytes,
    share: term.share,
    pointer: `/memory/terms/${i}/bytes`,
  }]));
}

/** The engine's fit: on the chosen GPU ("gpu_fit"), else against the workload's memory size
 *  ("memory_fit"); null without either. Both carry fits, headroom_bytes and max_batch.
 *  @param {Report} report @returns {Fit | null} */
export function fitOf(report) {
  if (report.gpu_fit) return { ...report.gpu_fit, kind: 'gpu_fit', capacity: report.gpu_fit.gpu_memory.usable_bytes };
  if (report.memory_fit) return { ...report.memory_fit, kind: 'memory_fit', capacity: report.memory_fit.memory_bytes };
  return null;
}

/** The memory the total is compared with: a GPU's usable memory (after the engine's reserves)
 *  when a GPU is chosen, else the workload's memory size.
 *  @param {Report} report @returns {number | null} */
export function capacityOf(report) {
  const fit = fitOf(report);
  return fit ? fit.capacity : null;
}

/** @param {string} key @param {string} value @param {string} detail @param {string} title
 *  @param {Node | null} [badge] */
function card(key, value, detail, title, badge) {
  return h('div', { class: 'card', dataset: { total: key }, title },
    h('div', { class: 'card-label' }, t(key)),
    h('div', { class: 'card-value num' }, value, badge),
    detail ? h('div', { class: 'card-detail' }, detail) : null);
}

/** The total cards. @param {Element} root @param {Report} report @param {string} units */
export function renderTotals(root, report, units) {
  const p = report.params;
  morph(root,
    card('totalParams', formatCount(p.total),
      `${groupDigits(p.total)} · ${t('trainable')} ${formatCount(p.trainable)}`, t('paramsHelp'), approximateBadge(report)),
    card('totalMacs', formatCount(report.macs.forward),
      `${t('forward')} · ${groupDigits(report.macs.forward)}`, t('macsHelp'), approximateBadge(report)),
    card('totalFlops', formatCount(report.flops.total),
      // Inference runs the forward pass only: the card says which passes its FLOPs count.
      `${report.workload.mode === 'infer' ? t('forward') : t('forwardBackward')} · ${t('flopsConvention')}`, t('flopsHelp'), approximateBadge(report)),
    card('totalMemory', formatBytes(report.memory.total, units),
      `${t('perSample')} ${formatBytes(report.memory.per_sample, units)}`, t('memoryHelp'), approximateBadge(report)));
}

/** A figure of the verdict: its label and its value, the value with an id for the tests.
 *  @param {string} label @param {string} id @param {string} value @param {Report} report */
function verdictItem(label, id, value, report) {
  return h('span', {}, `${label}: `, h('span', { class: 'num', id }, value), approximateBadge(report));
}

/** The verdict of a serving question (answered_by "serving"): the plan's users at its context,
 *  then how fast (time to first token, tokens/s per user and in all). No training batch.
 *  @param {Element} root @param {Report} report @param {string} units */
function renderServingFit(root, report, units) {
  const plan = /** @type {import('./types').ServingPlan} */ (report.serving);
  root.className = `fit serving ${plan.fits ? 'ok' : 'over'}`;
  const vars = { users: groupDigits(plan.users), context: groupDigits(plan.context), engine: plan.engine };
  const items = [
    h('strong', { class: 'fit-verdict', dataset: { fits: String(plan.fits), answeredBy: 'serving' } },
      plan.fits ? t('servingFits', vars) : t('servingNoFit', vars)),
    verdictItem(t('servingMaxUsers'), 'serving-max-users', groupDigits(plan.max_users), report),
  ];
  const speed = plan.speed;
  if (speed) {
    items.push(
      verdictItem(t('inferenceTtft'), 'serving-ttft', speed.ttft_s === null ? t('inferenceTtftUnavailable') : formatSeconds(speed.ttft_s), report),
      verdictItem(t('servingPerUser'), 'serving-per-user', formatSignificant(speed.tokens_per_s_per_user, 3), report),
      verdictItem(t('servingInAll'), 'serving-in-all', formatSignificant(speed.tokens_per_s, 3), report));
  }
  const mem = report.gpu_fit?.gpu_memory;
  if (mem) {
    items.push(h('span', { class: 'hint reserve', id: 'reserve-note' }, t('servingBudget', {
      budget: formatBytes(plan.budget_bytes, units), capacity: formatBytes(plan.capacity_bytes, units),
    })));
  }
  morph(root, ...items);
}

/** The fit verdict. @param {Element} root @param {Report} report @param {string} units */
export function renderFit(root, report, units) {
  if (report.gpu_fit?.answered_by === 'serving' && report.serving) {
    renderServingFit(root, report, units);
    return;
  }
  const fit = fitOf(report);
  if (fit === null) {
    morph(root, h('p', { class: 'hint' }, t('noCapacity')));
    root.className = 'fit';
    return;
  }
  const { fits } = fit;
  root.className = `fit ${fits ? 'ok' : 'over'}`;
  const items = [
    h('strong', { class: 'fit-verdict', dataset: { fits: String(fits) } }, fits ? t('fits') : t('doesNotFit')),
    h('span', {}, `${t('headroom')}: `, h('span', { class: 'num', id: 'headroom', dataset: { pointer: `/${fit.kind}/headroom_bytes` } }, formatBytes(fit.headroom_bytes, units)), approximateBadge(report)),
  ];
  if (typeof fit.max_batch === 'number') {
    items.push(h('span', {}, `${t('maxBatch')}: `, h('span', { class: 'num', id: 'max-batch', dataset: { pointer: `/${fit.kind}/max_batch` } }, groupDigits(fit.max_batch)), approximateBadge(report)));
  }
  // The step time is the GPU's (memory_fit has none).
  if (fit.kind === 'gpu_fit' && typeof fit.step_time_s === 'number') {
    items.push(h('span', {}, `${isPhased(report) ? t('x_step_time_s_phase') : t('stepTime')}: `, h('span', { class: 'num', id: 'step-time', dataset: { pointer: '/gpu_fit/step_time_s' } }, formatExtra('step_time_s', fit.step_time_s, units)), approximateBadge(report)));
  }
  // Which memory the verdict compares with: a preset's usable memory after its reserve and
  // fragmentation (the engine's figures), or a custom size as typed.
  const mem = fit.kind === 'gpu_fit' ? fit.gpu_memory : null;
  items.push(h('span', { class: 'hint reserve', id: 'reserve-note' }, mem
    ? t('reserveGpu', {
      usable: formatBytes(mem.usable_bytes, units), capacity: formatBytes(mem.capacity_bytes, units),
      reserve: formatBytes(mem.reserve_bytes, units), fragmentation: formatBytes(mem.fragmentation_bytes, units),
    })
    : t('reserveNote')));
  morph(root, ...items);
}

/** Whether the report is LLM inference with a prefill and a decode phase.
 *  @param {Report} report @returns {boolean} */
export function isPhased(report) {
  return report.workload?.mode === 'infer' && Array.isArray(report.phases) && report.phases.some((p) => p.name === 'decode');
}

/** @param {string} key @param {unknown} value @param {string} units @returns {string | null} */
function formatExtra(key, value, units) {
  if (typeof value === 'number') {
    if (key.endsWith('_bytes')) return formatBytes(value, units);
    if (key.endsWith('_per_s')) return `${formatRate(value)} /s`;
    if (key.endsWith('_s')) return formatSeconds(value);
    return Number.isInteger(value) ? groupDigits(value) : formatSignificant(value, 4);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  return null;
}

/** Optional report fields other features add; shown when present, generically.
 *  @param {Element} root @param {Report} report @param {string} units */
export function renderExtras(root, report, units) {
  const blocks = [];
  const list = h('dl', { class: 'extras' });
  // LLM inference has two phases: the step time is the prompt's prefill, tokens/s the decode
  // (core/src/gpu/roofline.cpp); the labels say which.
  const phased = isPhased(report);
  /** @param {string} key */
  const labelOf = (key) => (phased && (key === 'step_time_s' || key === 'tokens_per_s' || key === 'samples_per_s')
    ? t(`x_${key}_phase`) : t(`x_${key}`, {}, humanize(key)));
  /** @param {string} key @param {unknown} value */
  const addPair = (key, value) => {
    const text = formatExtra(key, value, units);
    if (text !== null) list.append(h('dt', {}, labelOf(key)), h('dd', { class: 'num', dataset: { key } }, text, approximateBadge(report)));
  };
  const gpu = report.gpu_fit;
  if (gpu && gpu.gpu && gpu.gpu.name) addPair('gpu', gpu.gpu.name);
  for (const key of ['step_time_s', 'samples_per_s', 'tokens_per_s']) {
    if (gpu && typeof gpu[key] === 'number') addPair(key, gpu[key]);
  }
  if (gpu && gpu.roofline && typeof gpu.roofline.bound === 'string') addPair('bound', gpu.roofline.bound);
  if (list.childNodes.length) blocks.push(list);
  // The advice has its own list ("To make it fit", advice.js); the engine's warnings (text,
  // core/include/dlcost/types/report.hpp) show here.
  const notes = Array.isArray(report.warnings) ? report.warnings : [];
  if (notes.length) blocks.push(h('ul', { class: 'notes' }, notes.map((n) => h('li', {}, n))));
  morph(root, ...blocks);
}

/** @type {Column[]} */
const COLUMNS = [
  { key: 'name', num: false },
  { key: 'type', num: false },
  { key: 'output_shape', num: false },
  { key: 'params', num: true, bar: true },
  { key: 'macs', num: true, bar: true },
  { key: 'activation_bytes', num: true, bar: true },
];

/** @param {Column} col @param {LayerReport} l @param {string} units @returns {string} */
function cellText(col, l, units) {
  if (col.key === 'output_shape') return formatShape(l.output_shape);
  if (!col.num) return String(l[col.key]);
  return col.key === 'activation_bytes' ? formatBytes(l[col.key], units) : formatCount(l[col.key]);
}

/** Table rows are drawn only where the table is scrolled to (plus a margin), so a model of a
 *  thousand layers redraws as fast as one of twenty; ROW_PX matches the CSS row height. */
export const ROW_PX = 26;
const OVERSCAN = 12;

/** One table view per container: the header is rebuilt when the sort, units or language
 *  change; rows are refilled on every report and on scroll. */
/** @type {WeakMap<Element, View>} */
const views = new WeakMap();

/**
 * The per-layer table, sorted by `sort`.
 * @param {HTMLElement} root the scrolling container
 * @param {Report} report
 * @param {string} units
 * @param {Sort} sort
 * @param {(key: string) => void} onSort
 */
export function renderLayerTable(root, report, units, sort, onSort) {
  const rows = report.layers.map((l, i) => ({ ...l, index: i }));
  if (sort.key) {
    const col = COLUMNS.find((c) => c.key === sort.key);
    const value = (l) => (col.num ? l[sort.key] : cellText(col, l, units));
    rows.sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      return (va < vb ? -1 : va > vb ? 1 : a.index - b.index) * sort.dir;
    });
  }
  /** @type {{[key: string]: number}} */
  const max = {};
  for (const c of COLUMNS) {
    if (!c.bar) continue;
    let m = 1;
    for (const l of report.layers) if (l[c.key] > m) m = l[c.key];
    max[c.key] = m;
  }
  const key = JSON.stringify([sort, units, t('col_name')]);
  let view = views.get(root);
  if (!view || view.key !== key || !root.contains(view.table)) {
    view = buildView(root, sort, onSort, key);
    views.set(root, view);
  }
  view.data = { rows, max, units };
  view.table.setAttribute('aria-rowcount', String(rows.length + 1));
  view.draw();
}

/** @typedef {{bar?: HTMLElement, text: HTMLElement}} Cell */
/** @typedef {{rows: LayerRow[], max: {[key: string]: number}, units: string}} ViewData */
/** @typedef {{key: string, table: HTMLTableElement, data: ViewData | null, draw?: () => void}} View */

/** @param {HTMLElement} root @param {Sort} sort @param {(key: string) => void} onSort
 *  @param {string} key @returns {View} */
function buildView(root, sort, onSort, key) {
  const head = h('tr', { 'aria-rowindex': '1' });
  for (const c of COLUMNS) {
    const active = sort.key === c.key;
    const button = h('button', { type: 'button', class: 'sort', dataset: { key: c.key } },
      t(`col_${c.key}`), h('span', { 'aria-hidden': 'true' }, active ? (sort.dir > 0 ? ' ▲' : ' ▼') : ''));
    button.addEventListener('click', () => onSort(c.key));
    head.append(h('th', {
      scope: 'col', class: c.num ? 'num' : '',
      'aria-sort': active ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none',
    }, button));
  }
  const top = h('tr', { class: 'spacer', 'aria-hidden': 'true' }, h('td', { colspan: String(COLUMNS.length) }));
  const bottom = h('tr', { class: 'spacer', 'aria-hidden': 'true' }, h('td', { colspan: String(COLUMNS.length) }));
  const body = h('tbody', {}, top, bottom);
  const table = h('table', { class: 'layers' },
    h('caption', { class: 'visually-hidden' }, t('perLayerCaption')),
    h('thead', {}, head), body);
  replace(root, table);
  armRowPicks(body, () => view.draw());

  /** @type {{tr: HTMLTableRowElement, cells: Cell[]}[]} */
  const pool = [];  // reusable row elements with their cells
  const makeRow = () => {
    const tr = h('tr', {});
    const cells = COLUMNS.map((c) => {
      if (c.num) {
        const bar = h('span', { class: `bar bar-${c.key}`, 'aria-hidden': 'true' });
        const text = h('span', { class: 'bar-text' });
        tr.append(h('td', { class: 'num bar-cell', dataset: { col: c.key } }, bar, text));
        return { bar, text };
      }
      const td = h('td', { class: c.key === 'output_shape' ? 'shape' : '' });
      tr.append(td);
      return { text: td };
    });
    return { tr, cells };
  };

  /** @type {View} */
  const view = { key, table, data: null };
  view.draw = () => {
    const { rows, max, units } = view.data;
    const { height, scrollTop } = boxOf(root);
    const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_PX) + OVERSCAN);
    while (pool.length < last - first) pool.push(makeRow());
    /** @type {HTMLElement} */ (top.firstChild).style.height = `${first * ROW_PX}px`;
    top.hidden = first === 0;
    /** @type {HTMLElement} */ (bottom.firstChild).style.height = `${(rows.length - last) * ROW_PX}px`;
    bottom.hidden = last === rows.length;
    let at = top.nextSibling;
    for (let r = first; r < last; r += 1) {
      const { tr, cells } = pool[r - first];
      const l = rows[r];
      if (tr.dataset.name !== l.name) tr.dataset.name = l.name;
      if (tr.dataset.index !== String(l.index)) tr.dataset.index = String(l.index);  // explain.js: /layers/<index>
      if (tr.getAttribute('aria-rowindex') !== String(r + 2)) tr.setAttribute('aria-rowindex', String(r + 2));
      const picked = l.index === selectedLayer(); // the layer graph's and timeline's pick too
      if (tr.classList.contains('selected') !== picked) tr.classList.toggle('selected', picked);
      COLUMNS.forEach((c, k) => {
        setText(cells[k].text, cellText(c, l, units));
        if (c.bar) {
          const width = `${((100 * l[c.key]) / max[c.key]).toFixed(1)}%`;
          if (cells[k].bar.style.width !== width) cells[k].bar.style.width = width;
        }
      });
      if (at !== tr) body.insertBefore(tr, at);
      at = tr.nextSibling;
    }
    for (let i = last - first; i < pool.length; i += 1) pool[i].tr.remove();
  };
  return view;
}

/** A click, or Enter on a cell, picks the row's layer for the graph and the timeline.
 *  @param {HTMLElement} body @param {() => void} redraw */
function armRowPicks(body, redraw) {
  const pickRow = (/** @type {Event} */ e) => {
    const tr = /** @type {HTMLElement} */ (e.target).closest('tr[data-index]');
    if (!(tr instanceof HTMLElement)) return;
    selectLayer(Number(tr.dataset.index), 'table');
    redraw();
  };
  body.addEventListener('click', pickRow);
  body.addEventListener('keydown', (e) => e.key === 'Enter' && pickRow(e));
}

/** Where each table's box is: its height and how far it is scrolled. */
/** @typedef {{height: number, scrollTop: number}} Box */
/** @type {WeakMap<Element, Box>} */
const boxes = new WeakMap();

/** The box of `root`, kept up to date by its scroll events and a ResizeObserver, so a redraw
 *  reads no layout: reading clientHeight or scrollTop while drawing would force a layout of the
 *  page in the middle of every redraw. Until the first observation, the CSS height's largest
 *  value. @param {HTMLElement} root @returns {Box} */
function boxOf(root) {
  let box = boxes.get(root);
  if (box) return box;
  box = { height: 640, scrollTop: 0 };
  boxes.set(root, box);
  const redraw = () => {
    const view = views.get(root);
    if (view?.data && root.contains(view.table)) view.draw();
  };
  new ResizeObserver(([entry]) => {
    const height = Math.round(entry.contentRect.height) || 640;
    if (height === box.height) return;
    box.height = height;
    redraw();
  }).observe(root);
  let pending = false;
  root.addEventListener('scroll', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      box.scrollTop = root.scrollTop;
      redraw();
    });
  });
  return box;
}

/** Scrolls the table in `root` to report row `index` (picked in another view) and redraws it
 *  marked. @param {HTMLElement} root @param {number} index */
export function showLayerRow(root, index) {
  const view = views.get(root);
  if (!view?.data || !root.contains(view.table)) return;
  const at = view.data.rows.findIndex((l) => l.index === index);
  if (at < 0) return;
  const box = boxOf(root);
  const y = at * ROW_PX;
  if (y < box.scrollTop || y + 2 * ROW_PX > box.scrollTop + box.height) {
    root.scrollTop = Math.max(0, y - box.height / 2);
    box.scrollTop = root.scrollTop;
  }
  view.draw();
}
