// Two small SVG charts drawn by hand (see docs/web.md for why no library): the memory
// breakdown as one stacked bar against the GPU's capacity, and total memory versus batch size
// (fixed + batch x per_sample) with the capacity line and the largest batch that fits.
// @ts-check

import { h, morph, s } from './dom.js';
import { formatPercent } from './units.js';

const BAR_W = 640;

/** Round tick values covering [0, max]: steps of 1, 2 or 5 x 10^k. */
/** An SVG path "d" through screen points: move to the first, a line to each next, coordinates
 *  to 0.1 px (finer is invisible and only lengthens the markup).
 *  @param {Array<[number, number]>} xy */
export function linePath(xy) {
  return xy.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`).join('');
}

export function niceTicks(max, count = 5) {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((st) => st >= raw) || 10 * mag;
  const ticks = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(v);
  if (ticks[ticks.length - 1] < max) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

/** A memory line of the breakdown (results.js memorySegments). */
/** @typedef {{key: string, label: string, bytes: number, share: number, pointer: string}} Segment */

/**
 * @param {Element} root  container
 * @param {Segment[]} segments  in drawing order (zero lines already left out)
 * @param {number} total  bytes
 * @param {number | null} capacity  bytes or null
 * @param {(bytes: number) => string} fmt  bytes -> text
 * @param {{capacity: string, total: string, summary: string}} labels
 */
export function renderBreakdown(root, segments, total, capacity, fmt, labels) {
  const scaleMax = Math.max(total, capacity || 0) * 1.04 || 1;
  const x = (b) => (b / scaleMax) * BAR_W;
  const svg = s('svg', {
    viewBox: `0 0 ${BAR_W} 64`, class: 'bar-svg', role: 'img', 'aria-label': labels.summary,
    preserveAspectRatio: 'none',
  }, s('title', {}, labels.summary));
  let at = 0;
  segments.forEach((seg, i) => {
    const w = x(seg.bytes);
    svg.append(s('rect', { x: x(at), y: 8, width: Math.max(w, 0), height: 32, class: `seg seg-${i % 10}` },
      s('title', {}, `${seg.label}: ${fmt(seg.bytes)}`)));
    at += seg.bytes;
  });
  // The bar stretches to the box (preserveAspectRatio none): it holds no text, which would
  // stretch with it; the capacity line keeps its width and is named in the legend.
  if (capacity) {
    const cx = Math.min(x(capacity), BAR_W - 1);
    svg.append(s('line', { x1: cx, x2: cx, y1: 2, y2: 46, class: total > capacity ? 'cap over' : 'cap', 'vector-effect': 'non-scaling-stroke' }));
  }
  const legend = h('ul', { class: 'legend' });
  segments.forEach((seg, i) => {
    const pct = formatPercent(seg.share);
    legend.append(h('li', { dataset: { key: seg.key, pointer: seg.pointer ?? '' } },
      h('span', { class: `swatch seg-${i % 10}`, 'aria-hidden': 'true' }),
      h('span', { class: 'legend-label' }, seg.label),
      h('span', { class: 'legend-value num' }, fmt(seg.bytes)),
      h('span', { class: 'legend-pct num' }, `${pct} %`)));
  });
  if (capacity) {
    legend.append(h('li', { class: 'legend-cap', dataset: { key: 'capacity' } },
      h('span', { class: 'swatch cap-swatch', 'aria-hidden': 'true' }),
      h('span', { class: 'legend-label' }, labels.capacity),
      h('span', { class: 'legend-value num' }, fmt(capacity)),
      h('span', { class: 'legend-pct num' }, '')));
  }
  legend.append(h('li', { class: 'legend-total', dataset: { key: 'total', pointer: '/memory/total' } },
    h('span', { class: 'swatch', 'aria-hidden': 'true' }),
    h('span', { class: 'legend-label' }, labels.total),
    h('span', { class: 'legend-value num' }, fmt(total)),
    h('span', { class: 'legend-pct num' }, '')));
  morph(root, svg, legend);
}

const W = 640;
const H = 260;
const M = { l: 72, r: 16, t: 14, b: 40 };

/** Ticks at round values of the unit the labels use (…, MiB, GiB or MB, GB, …).
 *  @param {number} max @param {number} base */
function byteTicks(max, base) {
  const scale = max >= 1 ? base ** Math.floor(Math.log(max) / Math.log(base)) : 1;
  return niceTicks(max / scale, 5).map((v) => v * scale);
}

/**
 * @param {Element} root  container
 * @param {import('./types').Sweep} sweep  the engine's sweep
 * @param {number} batch  the workload's batch (marked)
 * @param {(bytes: number) => string} fmt  bytes -> text
 * @param {{[key: string]: string}} labels  {batch, capacity, maxBatch, current, fixed, formula, summary}
 * @param {number} [base]  1024 (GiB) or 1000 (GB): the unit the ticks are round in
 */
export function renderSweep(root, sweep, batch, fmt, labels, base = 1024) {
  const pts = sweep.points;
  const last = pts[pts.length - 1];
  const xMax = last.batch;
  const yTop = Math.max(last.total, sweep.memory_bytes || 0) * 1.06;
  const yTicks = byteTicks(yTop, base);
  const yMax = yTicks[yTicks.length - 1];
  const xTicks = niceTicks(xMax, 6).filter((v) => v <= xMax);
  const px = (b) => M.l + (b / xMax) * (W - M.l - M.r);
  const py = (v) => H - M.b - (v / yMax) * (H - M.t - M.b);

  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'sweep-svg', role: 'img', 'aria-label': labels.summary },
    s('title', {}, labels.summary));
  const grid = s('g', { class: 'grid' });
  for (const v of yTicks) {
    grid.append(s('line', { x1: M.l, x2: W - M.r, y1: py(v), y2: py(v) }));
    grid.append(s('text', { x: M.l - 6, y: py(v) + 4, 'text-anchor': 'end', class: 'tick' }, fmt(v)));
  }
  for (const v of xTicks) {
    grid.append(s('text', { x: px(v), y: H - M.b + 16, 'text-anchor': 'middle', class: 'tick' }, String(v)));
  }
  svg.append(grid);
  svg.append(s('line', { x1: M.l, x2: W - M.r, y1: py(0), y2: py(0), class: 'axis' }));
  svg.append(s('line', { x1: M.l, x2: M.l, y1: M.t, y2: py(0), class: 'axis' }));
  svg.append(s('text', { x: (M.l + W - M.r) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' }, labels.batch));

  // The fixed part: what batch 0 would need.
  svg.append(s('line', { x1: M.l, x2: W - M.r, y1: py(sweep.fixed), y2: py(sweep.fixed), class: 'fixed-line' }));
  svg.append(s('text', { x: W - M.r - 4, y: py(sweep.fixed) - 4, 'text-anchor': 'end', class: 'fixed-label' },
    `${labels.fixed} ${fmt(sweep.fixed)}`));

  const d = linePath(pts.map((p) => [px(p.batch), py(p.total)]));
  svg.append(s('path', { d, class: 'sweep-line' }));

  if (sweep.memory_bytes) {
    const y = py(sweep.memory_bytes);
    svg.append(s('line', { x1: M.l, x2: W - M.r, y1: y, y2: y, class: 'cap' }));
    svg.append(s('text', { x: M.l + 6, y: y - 5, class: 'cap-label' }, `${labels.capacity} ${fmt(sweep.memory_bytes)}`));
  }
  const mb = sweep.max_batch;
  const atMax = pts.find((p) => p.batch === mb);  // the engine puts the largest batch in the sweep
  if (atMax) {
    const x = px(mb);
    const { total } = atMax;
    svg.append(s('line', { x1: x, x2: x, y1: M.t, y2: py(0), class: 'max-line' }));
    svg.append(s('circle', { cx: x, cy: py(total), r: 5, class: 'max-dot' }, s('title', {}, `${labels.maxBatch} ${mb}: ${fmt(total)}`)));
    svg.append(s('text', { x: x + (x > W * 0.75 ? -6 : 6), y: M.t + 12, 'text-anchor': x > W * 0.75 ? 'end' : 'start', class: 'max-label' },
      `${labels.maxBatch} ${mb}`));
  }
  const cur = pts.find((p) => p.batch === batch);
  if (cur) {
    svg.append(s('circle', { cx: px(cur.batch), cy: py(cur.total), r: 5, class: 'cur-dot' },
      s('title', {}, `${labels.current} ${cur.batch}: ${fmt(cur.total)}`)));
  }
  morph(root, svg, h('p', { class: 'hint' }, labels.formula));
}
