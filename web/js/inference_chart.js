// Small SVG line charts of a serving sweep (the engine's servingSweep points): one figure
// against users or against context, the points evenly spaced (both axes are powers of two).
// Drawing only: every value comes from the engine.
// @ts-check

import { h, s } from './dom.js';
import { niceTicks } from './charts.js';

const W = 320;
const H = 180;
const M = { l: 64, r: 12, t: 22, b: 30 };

/**
 * @param {Array<any>} points  the sweep's points, in x order
 * @param {(p: any) => (number | string)} xOf  the x value shown under each point
 * @param {(p: any) => (number | null)} yOf  the plotted value (null: no point)
 * @param {(v: number) => string} fmt  axis and tooltip text for a value
 * @param {string} title
 */
export function lineChart(points, xOf, yOf, fmt, title) {
  const shown = points.filter((p) => typeof yOf(p) === 'number');
  const top = Math.max(...shown.map(yOf), 0);
  const ticks = niceTicks(top || 1, 4);
  const yMax = ticks[ticks.length - 1];
  const step = points.length > 1 ? (W - M.l - M.r) / (points.length - 1) : 0;
  const px = (i) => M.l + i * step;
  const py = (v) => H - M.b - (v / yMax) * (H - M.t - M.b);
  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'inference-chart', role: 'img', 'aria-label': title },
    s('title', {}, title),
    s('text', { x: M.l, y: 14, class: 'axis-label' }, title),
  );
  for (const v of ticks) {
    svg.append(s('line', { x1: M.l, x2: W - M.r, y1: py(v), y2: py(v), class: 'grid' }));
    svg.append(s('text', { x: M.l - 4, y: py(v) + 4, 'text-anchor': 'end', class: 'tick' }, fmt(v)));
  }
  points.forEach((p, i) => {
    svg.append(s('text', { x: px(i), y: H - M.b + 14, 'text-anchor': 'middle', class: 'tick' }, String(xOf(p))));
  });
  const path = points
    .map((p, i) => [i, yOf(p)])
    .filter(([, v]) => typeof v === 'number')
    .map(([i, v], k) => `${k ? 'L' : 'M'}${px(i)},${py(v)}`)
    .join('');
  if (path) svg.append(s('path', { d: path, class: 'sweep-line' }));
  points.forEach((p, i) => {
    const v = yOf(p);
    if (typeof v !== 'number') return;
    svg.append(
      s(
        'circle',
        { cx: px(i), cy: py(v), r: 3, class: p.fits ? 'tput-dot' : 'max-dot' },
        s('title', {}, `${xOf(p)}: ${fmt(v)}`),
      ),
    );
  });
  return h('figure', { class: 'inference-chart-box' }, svg);
}
