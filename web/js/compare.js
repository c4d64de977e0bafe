// The comparison views, all from engine figures: a bubble chart of the model presets (CNNs:
// forward GMACs vs ImageNet top-1 from the presets' cited metrics; LLMs: parameters vs total
// memory at the current workload), every GPU preset for the current model as a sortable table
// and a step-time-vs-price chart, and throughput plus memory versus batch size on the chosen
// GPU. SVG built with DOM calls; names only ever become text nodes.
// @ts-check

import { linePath } from './charts.js';
import { h, replace, s } from './dom.js';
import { t } from './i18n.js';
import { formatBytes, formatCount, formatPercent, formatRate, formatSeconds, unitStep } from './units.js';

const W = 640;
const H = 300;
const M = { l: 64, r: 64, t: 16, b: 44 };

function logTicks(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e += 1) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo && v <= hi) out.push(v);
    }
  }
  return out;
}

const isPow10 = (v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;

function linTicks(lo, hi, count = 5) {
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function frame(svg, xTicks, px, yTicks, py, xFmt, yFmt, xLabel, yLabel) {
  const grid = s('g', { class: 'grid' });
  for (const v of yTicks) {
    grid.append(s('line', { x1: M.l, x2: W - M.r, y1: py(v), y2: py(v) }));
    grid.append(s('text', { x: M.l - 6, y: py(v) + 4, 'text-anchor': 'end', class: 'tick' }, yFmt(v)));
  }
  for (const v of xTicks) {
    grid.append(s('line', { x1: px(v), x2: px(v), y1: M.t, y2: H - M.b }));
    grid.append(s('text', { x: px(v), y: H - M.b + 16, 'text-anchor': 'middle', class: 'tick' }, xFmt(v)));
  }
  svg.append(grid,
    s('line', { x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, class: 'axis' }),
    s('line', { x1: M.l, x2: M.l, y1: M.t, y2: H - M.b, class: 'axis' }),
    s('text', { x: (M.l + W - M.r) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' }, xLabel),
    s('text', { x: 12, y: M.t - 4, class: 'axis-label' }, yLabel));
}

const activateKeys = (el, fn) => {
  el.addEventListener('click', fn);
  el.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' || ev.key === ' ') {
      ev.preventDefault();
      fn();
    }
  });
};

/**
 * Bubble chart of preset rows (comparePresets). `kind` "cnn" (x: GMACs log, y: top-1) or
 * "llm" (x: parameters log, y: total memory log). `onPick(name)` loads a preset.
 */
export function renderModelChart(root, rows, kind, current, units, onPick) {
  const pts = rows.filter((r) => !r.error && (kind === 'cnn'
    ? r.metrics && typeof r.metrics.imagenet_top1 === 'number' && r.macs_forward > 0
    : r.params > 0 && r.memory_total > 0));
  if (!pts.length) {
    replace(root);
    return;
  }
  const xv = (r) => (kind === 'cnn' ? r.macs_forward / 1e9 : r.params);
  const yv = (r) => (kind === 'cnn' ? r.metrics.imagenet_top1 : r.memory_total);
  const xs = pts.map(xv);
  const ys = pts.map(yv);
  const xlo = Math.min(...xs) / 1.6;
  const xhi = Math.max(...xs) * 1.6;
  const px = (v) => M.l + ((Math.log10(v) - Math.log10(xlo)) / (Math.log10(xhi) - Math.log10(xlo))) * (W - M.l - M.r);
  let py;
  let yTicks;
  let yFmt;
  if (kind === 'cnn') {
    const ylo = Math.floor(Math.min(...ys) - 2);
    const yhi = Math.ceil(Math.max(...ys) + 2);
    py = (v) => H - M.b - ((v - ylo) / (yhi - ylo)) * (H - M.t - M.b);
    yTicks = linTicks(ylo, yhi);
    yFmt = (v) => `${v}`;
  } else {
    const ylo = Math.min(...ys) / 1.6;
    const yhi = Math.max(...ys) * 1.6;
    py = (v) => H - M.b - ((Math.log10(v) - Math.log10(ylo)) / (Math.log10(yhi) - Math.log10(ylo))) * (H - M.t - M.b);
    // Round values of the unit shown (1, 10, 100 MiB, GiB, ... or MB, GB, ...).
    const base = unitStep(units);
    yTicks = [];
    for (let e = 0; e <= 6; e += 1) {
      for (const m of [1, 10, 100]) {
        const v = m * base ** e;
        if (v >= ylo && v <= yhi) yTicks.push(v);
      }
    }
    yFmt = (v) => formatBytes(v, units);
  }
  const xTicks = logTicks(xlo, xhi).filter((v, i, a) => a.length < 9 || isPow10(v));
  const maxP = Math.max(...pts.map((r) => r.params));
  const radius = (p) => 4 + 18 * Math.sqrt(p / maxP);  // area proportional to parameters
  const title = kind === 'cnn' ? t('cnnChartTitle') : t('llmChartTitle');
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'bubble-svg', role: 'group', 'aria-label': title });
  frame(svg, xTicks, px, yTicks, py, (v) => (kind === 'cnn' ? `${v}` : formatCount(v)), yFmt,
    kind === 'cnn' ? t('axisGmacs') : t('axisParams'), kind === 'cnn' ? t('axisTop1') : t('axisMemory'));
  // Names are drawn where they overlap no name already drawn (the current model's first); the
  // others are in each bubble's tooltip and accessible name. Boxes in SVG units, about 6.5 per
  // character of the 11 px label font.
  const placed = [];
  const labelFits = (r, cx, cy) => {
    const w = r.name.length * 6.5;
    const box = { l: cx - w / 2, r: cx + w / 2, t: cy - radius(r.params) - 14, b: cy - radius(r.params) };
    if (placed.some((p) => box.l < p.r && p.l < box.r && box.t < p.b && p.t < box.b)) return false;
    placed.push(box);
    return true;
  };
  const currentPt = pts.find((r) => r.name === current);
  if (currentPt) labelFits(currentPt, px(xv(currentPt)), py(yv(currentPt)));
  // Largest first so small bubbles stay clickable on top.
  for (const r of [...pts].sort((a, b) => b.params - a.params)) {
    const cx = px(xv(r));
    const cy = py(yv(r));
    const named = r === currentPt || labelFits(r, cx, cy);
    const label = t('bubbleLoad', {
      name: r.name,
      x: kind === 'cnn' ? `${xv(r).toFixed(2)} GMACs` : formatCount(r.params),
      y: kind === 'cnn' ? `${yv(r).toFixed(2)} %` : formatBytes(r.memory_total, units),
      params: formatCount(r.params),
    });
    const g = s('g', {
      class: `bubble${r.name === current ? ' current' : ''}`, tabindex: '0', role: 'button',
      'aria-label': label, 'aria-pressed': String(r.name === current), dataset: { name: r.name },
    },
    s('circle', { cx, cy, r: radius(r.params) }),
    named ? s('text', { x: cx, y: cy - radius(r.params) - 3, 'text-anchor': 'middle', class: 'bubble-label' }, r.name) : null,
    s('title', {}, label));
    activateKeys(g, () => onPick(r.name));
    svg.append(g);
  }
  const sources = kind === 'cnn'
    ? h('details', { class: 'sources' }, h('summary', {}, t('top1Source')),
      h('ul', {}, pts.map((r) => h('li', {}, `${r.name}: ${r.metrics.imagenet_top1} % — ${r.metrics.source}`))))
    : null;
  replace(root, h('p', { class: 'chart-title' }, title), svg,
    h('p', { class: 'hint' }, t('modelsSummary', { count: pts.length })), sources);
}

const GPU_COLUMNS = [
  // The table's point first (what fits, how fast, per dollar and per watt), so a narrow box
  // shows it; the rest scrolls beside the sticky name column.
  { key: 'name', sort: 'name', label: 'col_gpu_name', num: false },
  { key: 'fits', sort: 'fits', label: 'col_fits', num: false },
  { key: 'samples_per_s', sort: 'samples_per_s', label: 'col_samples_per_s', num: true },
  { key: 'samples_per_s_per_1000usd', sort: 'per_1000usd', label: 'col_per_1000usd', num: true },
  { key: 'samples_per_s_per_watt', sort: 'per_watt', label: 'col_per_watt', num: true },
  { key: 'max_batch', sort: 'max_batch', label: 'col_max_batch', num: true },
  { key: 'step_time_s', sort: 'step_time', label: 'col_step_time_s', num: true, asc: true },
  { key: 'tokens_per_s', sort: 'tokens_per_s', label: 'col_tokens_per_s', num: true, optional: true },
  { key: 'per_gpu_bytes', sort: 'per_gpu_memory', label: 'col_memory', num: true },
];

const fmtNum = (v) => (typeof v !== 'number' ? '—' : formatRate(v));
const fmtTime = (v) => (typeof v !== 'number' ? '—' : formatSeconds(v));

function gpuCell(col, r, units) {
  const v = r[col.key];
  // The full name, and the preset id for narrow boxes ("NVIDIA GeForce RTX 4090" / rtx-4090).
  if (col.key === 'name') return [h('span', { class: 'gpu-full' }, r.name), h('span', { class: 'gpu-short' }, r.gpu)];
  if (col.key === 'fits') return v ? t('yes') : t('no');
  if (col.key === 'per_gpu_bytes') return formatBytes(v, units);
  if (col.key === 'max_batch') return typeof v === 'number' ? String(v) : '—';
  if (col.key === 'step_time_s') return fmtTime(v);
  return fmtNum(v);
}

/** The engine's sort spec for the state's GPU-table sort: the column's engine field and the
 *  direction (`dlcost.compare(doc, spec)` sorts; the page does not). */
export function gpuSortSpec(gpuSort) {
  const col = GPU_COLUMNS.find((c) => c.key === gpuSort.key) || GPU_COLUMNS[0];
  return `${col.sort}:${gpuSort.dir > 0 ? 'asc' : 'desc'}`;
}

/** The GPU table and chart for one compareDocument result, as sorted by the engine by `gpuSort`;
 *  a column's button calls onSort with the new sort (the store's update redraws the table). */
export function renderGpuCompare(tableRoot, chartRoot, result, units, gpuSort, onSort) {
  const hasTokens = result.rows.some((r) => typeof r.tokens_per_s === 'number');
  const cols = GPU_COLUMNS.filter((c) => !c.optional || hasTokens);
  const rows = result.rows; // in the order the engine sorted them (gpuSortSpec)
  const head = h('tr', {}, cols.map((c) => {
    const active = c.key === gpuSort.key;
    const b = h('button', { type: 'button', class: 'sort', dataset: { key: c.key } }, t(c.label),
      h('span', { 'aria-hidden': 'true' }, active ? (gpuSort.dir > 0 ? ' ▲' : ' ▼') : ''));
    b.addEventListener('click', () => {
      onSort({ key: c.key, dir: active ? -gpuSort.dir : (c.num && !c.asc ? -1 : 1) });
      tableRoot.querySelector(`button[data-key="${c.key}"]`)?.focus();
    });
    return h('th', { scope: 'col', class: `${c.num ? 'num ' : ''}col-${c.key}`, 'aria-sort': active ? (gpuSort.dir > 0 ? 'ascending' : 'descending') : 'none' }, b);
  }));
  const body = h('tbody', {}, rows.map((r) => h('tr', { dataset: { gpu: r.gpu, fits: String(r.fits) } },
    cols.map((c) => h(c.key === 'name' ? 'th' : 'td', c.key === 'name' ? { scope: 'row', class: 'col-name' } : { class: `${c.num ? 'num ' : ''}col-${c.key}` }, gpuCell(c, r, units))))));
  const best = result.rows.find((r) => r.gpu === result.best_buy);
  replace(tableRoot,
    best ? h('p', { class: 'best-buy' }, t('bestBuy', { name: best.name, value: fmtNum(best.samples_per_s_per_1000usd) })) : null,
    h('div', { class: 'table-scroll' }, h('table', { class: 'gpu-table' }, h('caption', {}, t('gpuTableCaption')), h('thead', {}, head), body)));
  renderGpuChart(chartRoot, result.rows);
}

function renderGpuChart(root, rows) {
  const pts = rows.filter((r) => r.fits && r.price_usd > 0 && r.step_time_s > 0);
  if (!pts.length) {
    replace(root);
    return;
  }
  const xs = pts.map((r) => r.price_usd);
  const ys = pts.map((r) => r.step_time_s * 1000);
  const xlo = Math.min(...xs) / 1.5;
  const xhi = Math.max(...xs) * 1.5;
  const ylo = Math.min(...ys) / 1.5;
  const yhi = Math.max(...ys) * 1.5;
  const lg = (v, lo, hi) => (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
  const px = (v) => M.l + lg(v, xlo, xhi) * (W - M.l - M.r);
  const py = (v) => H - M.b - lg(v, ylo, yhi) * (H - M.t - M.b);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'gpu-svg', role: 'img', 'aria-label': t('gpuChartTitle') },
    s('title', {}, t('gpuChartTitle')));
  frame(svg, logTicks(xlo, xhi), px, logTicks(ylo, yhi), py, (v) => `$${formatCount(v)}`, (v) => `${v}`,
    t('axisPrice'), t('axisStep'));
  for (const r of pts) {
    const cx = px(r.price_usd);
    const cy = py(r.step_time_s * 1000);
    svg.append(s('g', { class: 'gpu-dot', dataset: { gpu: r.gpu } },
      s('circle', { cx, cy, r: 5 }),
      s('text', { x: cx + 7, y: cy + 4, class: 'bubble-label' }, r.name),
      s('title', {}, `${r.name}: $${r.price_usd}, ${fmtTime(r.step_time_s)}`)));
  }
  replace(root, h('p', { class: 'chart-title' }, t('gpuChartTitle')), svg);
}


/** Throughput (left axis) and memory (right axis) versus batch size from the engine's sweep. */
export function renderBatchChart(root, sweep, units) {
  const pts = sweep ? sweep.points.filter((p) => typeof p.samples_per_s === 'number') : [];
  if (!pts.length) {
    replace(root, h('p', { class: 'hint' }, t('noGpuForBatch')));
    return;
  }
  const last = pts[pts.length - 1];
  const xMax = last.batch;
  const xMin = pts[0].batch;
  const tMax = Math.max(...pts.map((p) => p.samples_per_s)) * 1.1;
  const mMax = Math.max(last.total, sweep.memory_bytes || 0) * 1.08;
  // Log batch axis: the speed-up happens at small batches, memory runs out at large ones.
  const px = (b) => M.l + (xMax > xMin ? Math.log(b / xMin) / Math.log(xMax / xMin) : 0) * (W - M.l - M.r);
  const pyT = (v) => H - M.b - (v / tMax) * (H - M.t - M.b);
  const pyM = (v) => H - M.b - (v / mMax) * (H - M.t - M.b);
  // The engine's saturation point: the first batch at its share of the best throughput.
  const sat = sweep.saturation ? pts.find((p) => p.batch === sweep.saturation.batch) : undefined;
  const pct = sweep.saturation ? formatPercent(sweep.saturation.share, 0) : '—';
  const summary = sweep.max_batch !== undefined
    ? t('batchSummary', { pct, batch: sat ? sat.batch : '—', max: sweep.max_batch })
    : t('batchSummaryNoLimit', { pct, batch: sat ? sat.batch : '—' });
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'batch-svg', role: 'img', 'aria-label': summary },
    s('title', {}, summary));
  const xTicks = [];
  for (let b = 1; b <= xMax; b *= 4) if (b >= xMin) xTicks.push(b);
  frame(svg, xTicks, px, linTicks(0, tMax), pyT, (v) => `${v}`, fmtNum,
    `${t('batchAxis')} (log)`, t('axisSamplesPerS'));
  // Right axis: memory.
  const right = s('g', { class: 'grid right' });
  const base = unitStep(units);
  const scale = base ** Math.max(0, Math.floor(Math.log(mMax) / Math.log(base)));
  for (const v of linTicks(0, mMax / scale, 4).map((x) => x * scale)) {
    right.append(s('text', { x: W - M.r + 6, y: pyM(v) + 4, class: 'tick' }, formatBytes(v, units)));
  }
  svg.append(right, s('text', { x: W - M.r, y: M.t - 4, class: 'axis-label' }, t('legendMemory')));
  const line = (fn, cls) => s('path', { class: cls, d: linePath(pts.map((p) => [px(p.batch), fn(p)])) });
  svg.append(line((p) => pyM(p.total), 'mem-line'), line((p) => pyT(p.samples_per_s), 'tput-line'));
  for (const p of pts) {
    svg.append(s('circle', { cx: px(p.batch), cy: pyT(p.samples_per_s), r: 2.5, class: 'tput-dot', dataset: { batch: String(p.batch) } },
      s('title', {}, `${p.batch}: ${fmtNum(p.samples_per_s)} samples/s, ${formatBytes(p.total, units)}`)));
  }
  if (sweep.memory_bytes) {
    svg.append(s('line', { x1: M.l, x2: W - M.r, y1: pyM(sweep.memory_bytes), y2: pyM(sweep.memory_bytes), class: 'cap' }),
      s('text', { x: M.l + 6, y: pyM(sweep.memory_bytes) - 5, class: 'cap-label' }, `${t('capacity')} ${formatBytes(sweep.memory_bytes, units)}`));
  }
  if (sweep.max_batch !== undefined && sweep.max_batch <= xMax) {
    const x = px(sweep.max_batch);
    svg.append(s('line', { x1: x, x2: x, y1: M.t, y2: H - M.b, class: 'max-line' }),
      s('text', { x: x - 4, y: M.t + 12, 'text-anchor': 'end', class: 'max-label' }, `${t('maxBatch')} ${sweep.max_batch}`));
  }
  if (sat) {
    const g = s('g', { class: 'saturation', dataset: { batch: String(sat.batch) } },
      s('circle', { cx: px(sat.batch), cy: pyT(sat.samples_per_s), r: 6 }),
      s('text', { x: px(sat.batch) + 8, y: pyT(sat.samples_per_s) + 16, class: 'sat-label' }, `${t('saturation')}: ${sat.batch}`));
    svg.append(g);
  }
  replace(root, svg,
    h('ul', { class: 'legend inline' },
      h('li', {}, h('span', { class: 'swatch tput', 'aria-hidden': 'true' }), t('legendThroughput')),
      h('li', {}, h('span', { class: 'swatch mem', 'aria-hidden': 'true' }), t('legendMemory'))),
    h('p', { class: 'hint batch-summary' }, summary));
}
