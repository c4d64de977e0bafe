// The report, rendered: totals, fit against the GPU, optional lines other engine features add
// (GPU, step time, tokens/s, advice, warnings) and the sortable per-layer table. Everything is
// read from the report JSON, so new fields show up without changes here where possible.

import { h, replace } from './dom.js';
import { t } from './i18n.js';
import { formatBytes, formatCount, formatShape, groupDigits } from './units.js';

/** Memory lines that are not parts of the total. */
const NOT_PARTS = new Set(['total', 'fixed', 'per_sample', 'units']);

export function humanize(key) {
  return key.replace(/_/g, ' ');
}

/** Model state first, then what grows with the batch, then overheads; lines this list does
 *  not know (added by later engine features) follow in the report's order. */
const MEMORY_ORDER = ['weights', 'buffers', 'gradients', 'master_weights', 'optimizer_states',
  'activations', 'activation_gradients', 'kv_cache', 'overhead'];

/** The memory lines of a report: [{key, label, bytes}]. */
export function memorySegments(report) {
  const rank = (k) => (MEMORY_ORDER.includes(k) ? MEMORY_ORDER.indexOf(k) : MEMORY_ORDER.length);
  return Object.entries(report.memory)
    .filter(([k, v]) => !NOT_PARTS.has(k) && typeof v === 'number')
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([k, v]) => ({ key: k, label: t(`mem_${k}`, {}, humanize(k)), bytes: v }));
}

/** The memory the total is compared with: a GPU's usable memory (after the engine's reserves)
 *  when a GPU is chosen, else the workload's memory size. */
export function capacityOf(report) {
  const usable = report.gpu_memory && typeof report.gpu_memory === 'object' ? report.gpu_memory.usable_bytes : undefined;
  const m = usable ?? report.workload.memory_bytes;
  return typeof m === 'number' ? m : null;
}

function card(key, value, detail, title) {
  return h('div', { class: 'card', dataset: { total: key }, title },
    h('div', { class: 'card-label' }, t(key)),
    h('div', { class: 'card-value num' }, value),
    detail ? h('div', { class: 'card-detail' }, detail) : null);
}

export function renderTotals(root, report, units) {
  const p = report.params;
  replace(root,
    card('totalParams', formatCount(p.total),
      `${groupDigits(p.total)} · ${t('trainable')} ${formatCount(p.trainable)}`, t('paramsHelp')),
    card('totalMacs', formatCount(report.macs.forward),
      `${t('forward')} · ${groupDigits(report.macs.forward)}`, t('macsHelp')),
    card('totalFlops', formatCount(report.flops.total),
      `${t('forwardBackward')} · ${t('flopsConvention')}`, t('flopsHelp')),
    card('totalMemory', formatBytes(report.memory.total, units),
      `${t('perSample')} ${formatBytes(report.memory.per_sample, units)}`, t('memoryHelp')));
}

export function renderFit(root, report, units) {
  const cap = capacityOf(report);
  if (cap === null) {
    replace(root, h('p', { class: 'hint' }, t('noCapacity')));
    root.className = 'fit';
    return;
  }
  const total = report.memory.total;
  const fits = typeof report.fits === 'boolean' ? report.fits : total <= cap;
  const headroom = typeof report.headroom_bytes === 'number' ? report.headroom_bytes : cap - total;
  root.className = `fit ${fits ? 'ok' : 'over'}`;
  const items = [
    h('strong', { class: 'fit-verdict', dataset: { fits: String(fits) } }, fits ? t('fits') : t('doesNotFit')),
    h('span', {}, `${t('headroom')}: `, h('span', { class: 'num', id: 'headroom' }, formatBytes(headroom, units))),
  ];
  if (typeof report.max_batch === 'number') {
    items.push(h('span', {}, `${t('maxBatch')}: `, h('span', { class: 'num', id: 'max-batch' }, groupDigits(report.max_batch))));
  }
  replace(root, ...items);
}

function formatExtra(key, value, units) {
  if (typeof value === 'number') {
    if (key.endsWith('_bytes')) return formatBytes(value, units);
    if (key.endsWith('_per_s')) return `${value >= 100 ? groupDigits(value) : value.toPrecision(3)} /s`;
    if (key.endsWith('_s')) return value < 1 ? `${(value * 1000).toPrecision(3)} ms` : `${value.toPrecision(3)} s`;
    return Number.isInteger(value) ? groupDigits(value) : value.toPrecision(4);
  }
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  return null;
}

/** Optional report fields other features add; shown when present, generically. */
export function renderExtras(root, report, units) {
  const blocks = [];
  const list = h('dl', { class: 'extras' });
  const addPair = (key, value) => {
    const text = formatExtra(key, value, units);
    if (text !== null) list.append(h('dt', {}, t(`x_${key}`, {}, humanize(key))), h('dd', { class: 'num', dataset: { key } }, text));
  };
  if (report.gpu && typeof report.gpu === 'object' && report.gpu.name) addPair('gpu', report.gpu.name);
  for (const key of ['step_time_s', 'samples_per_s', 'tokens_per_s']) {
    if (typeof report[key] === 'number') addPair(key, report[key]);
  }
  if (report.roofline && typeof report.roofline.bound === 'string') addPair('bound', report.roofline.bound);
  if (report.kv_cache && typeof report.kv_cache === 'object') {
    for (const [k, x] of Object.entries(report.kv_cache)) addPair(`kv_cache_${k}`, x);
  }
  if (list.childNodes.length) blocks.push(list);
  const notes = [];
  if (Array.isArray(report.advice)) notes.push(...report.advice);
  if (Array.isArray(report.warnings)) notes.push(...report.warnings);
  if (notes.length) {
    blocks.push(h('ul', { class: 'notes' }, notes.map((n) => h('li', {}, typeof n === 'string' ? n : n.change || n.message || n.text || JSON.stringify(n)))));
  }
  replace(root, ...blocks);
}

const COLUMNS = [
  { key: 'name', num: false },
  { key: 'type', num: false },
  { key: 'output_shape', num: false },
  { key: 'params', num: true, bar: true },
  { key: 'macs', num: true, bar: true },
  { key: 'activation_bytes', num: true, bar: true },
];

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

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
const views = new WeakMap();

/**
 * @param sort     {key, dir} (dir 1 ascending, -1 descending; key null: report order)
 * @param onSort   (key) => void
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

  const view = { key, table, data: null };
  view.draw = () => {
    const { rows, max, units } = view.data;
    const height = root.clientHeight || 640;
    const first = Math.max(0, Math.floor(root.scrollTop / ROW_PX) - OVERSCAN);
    const last = Math.min(rows.length, Math.ceil((root.scrollTop + height) / ROW_PX) + OVERSCAN);
    while (pool.length < last - first) pool.push(makeRow());
    top.firstChild.style.height = `${first * ROW_PX}px`;
    top.hidden = first === 0;
    bottom.firstChild.style.height = `${(rows.length - last) * ROW_PX}px`;
    bottom.hidden = last === rows.length;
    let at = top.nextSibling;
    for (let r = first; r < last; r += 1) {
      const { tr, cells } = pool[r - first];
      const l = rows[r];
      if (tr.dataset.name !== l.name) tr.dataset.name = l.name;
      if (tr.dataset.index !== String(l.index)) tr.dataset.index = String(l.index);  // explain.js: /layers/<index>
      tr.setAttribute('aria-rowindex', String(r + 2));
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
  let pending = false;
  root.onscroll = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (view.data) view.draw();
    });
  };
  return view;
}
