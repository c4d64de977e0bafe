// Small SVG charts of the "Under load" section (under_load.js): one or two series of (x, y)
// points on numeric axes (time or request rate), with an optional horizontal line (an
// objective). Drawing only: every value comes from the engine's serveSim. Styled as the
// Inference panel's charts (inference_chart.js, charts.js).
// @ts-check

import { h, s } from './dom.js';
import { linePath, niceTicks } from './charts.js';

const W = 320;
const H = 180;
const M = { l: 52, r: 12, t: 22, b: 30 };
/** Points drawn per series at most: a long timeline is thinned to every k-th sample. */
const MAX_POINTS = 400;

/** @typedef {{label: string, points: Array<[number, number]>, cls: string, dots?: boolean}} Series */

/** Every k-th point (the last kept) so that at most MAX_POINTS remain.
 *  @param {Array<[number, number]>} points */
function thin(points) {
  const k = Math.ceil(points.length / MAX_POINTS);
  return k <= 1 ? points : points.filter((_, i) => i % k === 0 || i === points.length - 1);
}

/** The axes of a chart: grid lines and tick labels. @param {SVGElement} svg */
function axes(svg, xTicks, yTicks, px, py, fmtX, fmtY) {
  for (const v of yTicks) {
    svg.append(s('line', { x1: M.l, x2: W - M.r, y1: py(v), y2: py(v), class: 'grid' }));
    svg.append(s('text', { x: M.l - 4, y: py(v) + 4, 'text-anchor': 'end', class: 'tick' }, fmtY(v)));
  }
  for (const v of xTicks) {
    svg.append(s('text', { x: px(v), y: H - M.b + 14, 'text-anchor': 'middle', class: 'tick' }, fmtX(v)));
  }
}

/**
 * @param {{title: string, series: Series[], fmtX: (v: number) => string,
 *   fmtY: (v: number) => string, hline?: {y: number, label: string}, id?: string}} spec
 */
export function xyChart({ title, series, fmtX, fmtY, hline, id }) {
  const all = series.flatMap((se) => se.points);
  const xTicks = niceTicks(Math.max(...all.map((p) => p[0]), 0) || 1, 4);
  const yTicks = niceTicks(Math.max(...all.map((p) => p[1]), hline ? hline.y : 0, 0) || 1, 4);
  const xMax = xTicks[xTicks.length - 1];
  const yMax = yTicks[yTicks.length - 1];
  /** @param {number} v */
  const px = (v) => M.l + (v / xMax) * (W - M.l - M.r);
  /** @param {number} v */
  const py = (v) => H - M.b - (v / yMax) * (H - M.t - M.b);
  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'inference-chart load-chart', role: 'img', 'aria-label': title },
    s('title', {}, title),
    s('text', { x: M.l, y: 14, class: 'axis-label' }, title),
  );
  axes(svg, xTicks, yTicks, px, py, fmtX, fmtY);
  if (hline) {
    svg.append(s('line', { x1: M.l, x2: W - M.r, y1: py(hline.y), y2: py(hline.y), class: 'cap' }));
    svg.append(s('text', { x: W - M.r - 2, y: py(hline.y) - 3, 'text-anchor': 'end', class: 'tick' }, hline.label));
  }
  for (const se of series) {
    const pts = thin(se.points);
    const d = linePath(pts.map(([x, y]) => [px(x), py(y)]));
    if (d) svg.append(s('path', { d, class: `load-line ${se.cls}` }));
    if (!se.dots) continue;
    for (const [x, y] of pts) {
      svg.append(
        s(
          'circle',
          { cx: px(x), cy: py(y), r: 3, class: `load-dot ${se.cls}` },
          s('title', {}, `${se.label} ${fmtX(x)}: ${fmtY(y)}`),
        ),
      );
    }
  }
  const legend =
    series.length > 1
      ? h(
          'ul',
          { class: 'load-legend' },
          series.map((se) =>
            h('li', {}, h('span', { class: `load-swatch ${se.cls}`, 'aria-hidden': 'true' }), se.label),
          ),
        )
      : null;
  return h('figure', { class: 'inference-chart-box', id }, svg, legend);
}
