// "Memory over the step": the engine's memory timeline (core/src/report/timeline_json.cpp, as
// `dlcost timeline --json`) drawn as stacked areas, one x step per op event, the peak marked and
// named. A slider walks the events (arrow keys step one, the pointer over the chart moves it)
// and names each; drawn only while the box is open (the timeline lives in the second module).
// Renders only; every figure is the engine's.
// @ts-check

import { h, replace, s } from './dom.js';
import { DICTIONARIES, t } from './i18n.js';
import { formatBytes } from './units.js';

Object.assign(DICTIONARIES.en, {
  tlTitle: 'Memory over the step',
  tlPeak: 'Peak {bytes} at {where}',
  tlEvent: 'Event {i} of {n}: {where}, {bytes}',
  tlSlider: 'Event',
  tlLoading: 'Simulating the step…',
  tl_weights: 'weights',
  tl_gradients: 'gradients',
  tl_optimizer_states: 'optimizer states',
  tl_master_weights: 'master weights',
  tl_activations: 'activations',
  tl_transients: 'temporaries',
  tl_kv_cache: 'KV cache',
  tl_overhead: 'overhead',
});
Object.assign(DICTIONARIES.zh, {
  tlTitle: '一步之内的显存变化',
  tlPeak: '峰值 {bytes}，出现在{where}',
  tlEvent: '第 {i} / {n} 个事件：{where}，{bytes}',
  tlSlider: '事件',
  tlLoading: '正在模拟这一步…',
  tl_weights: '权重',
  tl_gradients: '梯度',
  tl_optimizer_states: '优化器状态',
  tl_master_weights: '主权重',
  tl_activations: '激活',
  tl_transients: '临时张量',
  tl_kv_cache: 'KV 缓存',
  tl_overhead: '额外开销',
});

const W = 640;
const H = 220;
const M = { l: 8, r: 8, t: 8, b: 8 };

/** @typedef {{terms: string[], phases: {[phase: string]: {en: string, zh: string}},
 *   points: {op: string, phase: string, bytes: number[]}[],
 *   peak: {index: number, total: number, where: {en: string, zh: string}}}} Timeline */

/** The words for where event `p` runs: the engine's phrase for its phase.
 *  @param {Timeline} tl @param {{op: string, phase: string}} p @param {string} lang */
function whereOf(tl, p, lang) {
  const phrase = tl.phases[p.phase] ?? { en: p.phase, zh: p.phase };
  return (lang === 'zh' ? phrase.zh : phrase.en).replace('{op}', p.op);
}

const total = (/** @type {number[]} */ b) => b.reduce((a, x) => a + x, 0);
/** An SVG coordinate to a tenth of a unit (drawing, not a figure). @param {number} v */
const r1 = (v) => Math.round(v * 10) / 10;

/** The stacked areas: one path per term that is ever non-zero, bottom first.
 *  @param {Timeline} tl @param {number} top */
function areas(tl, top) {
  const n = tl.points.length;
  const px = (/** @type {number} */ i) => M.l + (n > 1 ? (i / (n - 1)) * (W - M.l - M.r) : 0);
  const py = (/** @type {number} */ v) => H - M.b - (v / top) * (H - M.t - M.b);
  const below = new Array(n).fill(0);
  const out = [];
  tl.terms.forEach((term, k) => {
    if (!tl.points.some((p) => p.bytes[k] !== 0)) return;
    const lower = below.slice();
    tl.points.forEach((p, i) => (below[i] += p.bytes[k]));
    const upper = below.map((v, i) => `${r1(px(i))},${r1(py(v))}`);
    const back = lower.map((v, i) => `${r1(px(i))},${r1(py(v))}`).reverse();
    out.push(s('path', { d: `M${upper.join('L')}L${back.join('L')}Z`, class: `tl-area tl-${term}` }));
  });
  return { paths: out, px };
}

/** Each drawn box's timeline and a function that moves its slider to an event (picks made in
 *  the layer graph or the table land here). @type {WeakMap<Element, {tl: Timeline, showEvent: (i: number) => void}>} */
const drawn = new WeakMap();

/** The chart, the peak line, the event slider and the legend. @param {Timeline} tl
 *  @param {string} units @param {string} lang @param {(op: string) => void} onPick */
function draw(tl, units, lang, onPick) {
  const n = tl.points.length;
  const top = tl.peak.total || 1;
  const { paths, px } = areas(tl, top);
  const cursor = s('line', { y1: M.t, y2: H - M.b, class: 'tl-cursor' });
  const peakX = px(tl.peak.index);
  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'tl-chart', role: 'img', 'aria-label': t('tlTitle') },
    ...paths,
    s('line', { x1: peakX, x2: peakX, y1: M.t, y2: H - M.b, class: 'tl-peak' }),
    cursor,
  );
  const slider = h('input', {
    type: 'range',
    id: 'tl-slider',
    min: '0',
    max: String(n - 1),
    value: String(tl.peak.index),
  });
  slider.setAttribute('aria-label', t('tlSlider'));
  const said = h('p', { id: 'tl-event', 'aria-live': 'polite' });
  const show = () => {
    const i = Number(slider.value);
    const p = tl.points[i];
    const x = String(r1(px(i)));
    cursor.setAttribute('x1', x);
    cursor.setAttribute('x2', x);
    said.textContent = t('tlEvent', {
      i: i + 1,
      n,
      where: whereOf(tl, p, lang),
      bytes: formatBytes(total(p.bytes), units),
    });
  };
  slider.addEventListener('input', show);
  // The event's layer is picked for the graph and the table once the slider settles.
  slider.addEventListener('change', () => onPick(tl.points[Number(slider.value)].op));
  svg.addEventListener('pointermove', (e) => {
    const r = svg.getBoundingClientRect();
    const f = (e.clientX - r.left) / r.width;
    slider.value = String(Math.round(Math.min(1, Math.max(0, f)) * (n - 1)));
    show();
  });
  show();
  const legend = h(
    'ul',
    { class: 'tl-legend' },
    tl.terms
      .filter((_, k) => tl.points.some((p) => p.bytes[k] !== 0))
      .map((term) => h('li', {}, h('span', { class: `tl-swatch tl-${term}` }), t(`tl_${term}`))),
  );
  const where = lang === 'zh' ? tl.peak.where.zh : tl.peak.where.en;
  const peak = h(
    'p',
    { id: 'tl-peak' },
    h('strong', {}, t('tlPeak', { bytes: formatBytes(tl.peak.total, units), where })),
  );
  const showEvent = (/** @type {number} */ i) => {
    slider.value = String(i);
    show();
  };
  return { nodes: [peak, svg, slider, said, legend], showEvent };
}

/** Moves the slider of the timeline drawn in `box` to the first event of layer `name` (its
 *  forward where there is one). @param {Element} box @param {string} name */
export function showTimelineLayer(box, name) {
  const d = drawn.get(box);
  if (!d) return;
  const points = d.tl.points;
  let i = points.findIndex((p) => p.op === name && p.phase === 'forward');
  if (i < 0) i = points.findIndex((p) => p.op === name);
  if (i >= 0) d.showEvent(i);
}

/**
 * Draws the timeline into `box` (a <details>) while it is open: `load` gives the engine's
 * timeline for the current question; a newer call supersedes an older one.
 * @param {HTMLDetailsElement} box @param {() => Promise<Timeline>} load
 * @param {{units: string, lang: string, onPick?: (op: string) => void}} view
 */
export function renderTimeline(box, load, view) {
  const body = /** @type {HTMLElement} */ (box.querySelector('.tl-body'));
  const ticket = String((Number(box.dataset.ticket) || 0) + 1);
  box.dataset.ticket = ticket;
  const run = () => {
    if (!box.open || box.dataset.drawn === ticket) return;
    box.dataset.drawn = ticket;
    if (!body.childElementCount) replace(body, h('p', { class: 'hint' }, t('tlLoading')));
    load().then(
      (tl) => {
        if (box.dataset.ticket !== ticket) return;
        const { nodes, showEvent } = draw(tl, view.units, view.lang, view.onPick ?? (() => {}));
        drawn.set(box, { tl, showEvent });
        replace(body, ...nodes);
      },
      (/** @type {Error} */ e) =>
        box.dataset.ticket === ticket && replace(body, h('p', { class: 'field-error' }, e.message)),
    );
  };
  box.ontoggle = run;
  run();
}
