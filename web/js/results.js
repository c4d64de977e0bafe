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

export function capacityOf(report) {
  const gpuBytes = report.gpu && typeof report.gpu === 'object' ? report.gpu.memory_bytes : undefined;
  const m = report.workload.memory_bytes ?? gpuBytes;
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
  for (const key of ['step_time_s', 'tokens_per_s']) if (key in report) addPair(key, report[key]);
  for (const key of ['gpu', 'kv_cache']) {
    const v = report[key];
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) addPair(`${key}_${k}`.replace(/^gpu_name$/, 'gpu'), x);
    }
  }
  if (list.childNodes.length) blocks.push(list);
  const notes = [];
  if (Array.isArray(report.advice)) notes.push(...report.advice);
  if (Array.isArray(report.warnings)) notes.push(...report.warnings);
  if (notes.length) {
    blocks.push(h('ul', { class: 'notes' }, notes.map((n) => h('li', {}, typeof n === 'string' ? n : n.message || JSON.stringify(n)))));
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

/**
 * @param sort     {key, dir} (dir 1 ascending, -1 descending; key null: report order)
 * @param onSort   (key) => void
 */
export function renderLayerTable(root, report, units, sort, onSort) {
  const rows = report.layers.map((l, i) => ({ ...l, index: i }));
  if (sort.key) {
    const col = COLUMNS.find((c) => c.key === sort.key);
    rows.sort((a, b) => {
      const va = col.num ? a[sort.key] : sort.key === 'output_shape' ? formatShape(a.output_shape) : String(a[sort.key]);
      const vb = col.num ? b[sort.key] : sort.key === 'output_shape' ? formatShape(b.output_shape) : String(b[sort.key]);
      return (va < vb ? -1 : va > vb ? 1 : a.index - b.index) * sort.dir;
    });
  }
  const max = {};
  for (const c of COLUMNS) if (c.bar) max[c.key] = Math.max(1, ...report.layers.map((l) => l[c.key]));
  const head = h('tr', {});
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
  const body = document.createDocumentFragment();
  for (const l of rows) {
    const tr = h('tr', { dataset: { name: l.name } });
    for (const c of COLUMNS) {
      if (c.key === 'output_shape') tr.append(h('td', { class: 'shape' }, formatShape(l.output_shape)));
      else if (!c.num) tr.append(h('td', {}, l[c.key]));
      else {
        const text = c.key === 'activation_bytes' ? formatBytes(l[c.key], units) : formatCount(l[c.key]);
        const bar = h('span', { class: `bar bar-${c.key}`, 'aria-hidden': 'true' });
        bar.style.width = `${((100 * l[c.key]) / max[c.key]).toFixed(1)}%`;
        tr.append(h('td', { class: 'num bar-cell' }, bar, h('span', { class: 'bar-text' }, text)));
      }
    }
    body.append(tr);
  }
  const table = h('table', { class: 'layers' },
    h('caption', { class: 'visually-hidden' }, t('perLayerCaption')),
    h('thead', {}, head), h('tbody', {}, body));
  replace(root, table);
}
