// "Memory over the step": the engine's memory timeline (core/src/report/timeline_json.cpp, as
// `dlcost timeline --json`) drawn as stacked areas, one x step per op event, the peak marked and
// named. A slider walks the events (arrow keys step one, the pointer over the chart moves it)
// and names each; drawn only while the box is open (the timeline lives in the second module).
// Renders only; every figure is the engine's. "Compare with your run" (timeline_measured.js)
// draws a PyTorch memory snapshot's active memory over it: the engine returns the timeline and
// the snapshot in one answer (`dlcost timeline --measured FILE --json`).
// @ts-check

import { h, replace, s } from './dom.js';
import { DICTIONARIES, t } from './i18n.js';
import { axesNote, legendEntry, measuredBox, measuredCurve, measuredTop } from './timeline_measured.js';
import { formatBytes } from './units.js';

/** @typedef {import('./types').MeasuredTimeline} MeasuredTimeline */
/** @typedef {import('./timeline_measured.js').MeasuredState} MeasuredState */

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

/** Each drawn box's timeline, its snapshot comparison if any, and a function that moves its
 *  slider to an event (picks made in the layer graph or the table land here).
 *  @type {WeakMap<Element, {tl: Timeline, measured: MeasuredTimeline | null, showEvent: (i: number) => void}>} */
const drawn = new WeakMap();

/** The chart, the peak line, the event slider and the legend; with a snapshot (`measured`, the
 *  engine's answer holding `tl` too) its curve over the areas and the comparison.
 *  @param {Timeline} tl @param {string} units @param {string} lang @param {(op: string) => void} onPick
 *  @param {MeasuredTimeline | null} measured */
function draw(tl, units, lang, onPick, measured) {
  const n = tl.points.length;
  const top = (measured ? measuredTop(measured) : tl.peak.total) || 1;
  const { paths, px } = areas(tl, top);
  const py = (/** @type {number} */ v) => H - M.b - (v / top) * (H - M.t - M.b);
  const overlay = measured ? measuredCurve(measured, { x0: M.l, x1: W - M.r, py }) : [];
  const cursor = s('line', { y1: M.t, y2: H - M.b, class: 'tl-cursor' });
  const peakX = px(tl.peak.index);
  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'tl-chart', role: 'img', 'aria-label': t('tlTitle') },
    ...paths,
    s('line', { x1: peakX, x2: peakX, y1: M.t, y2: H - M.b, class: 'tl-peak' }),
    ...overlay,
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
    measured ? legendEntry() : null,
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
  const note = measured ? axesNote(measured, units) : null;
  return { nodes: [peak, svg, note, slider, said, legend], showEvent };
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

/** The snapshot each box compares with, kept across redraws (a new question recomputes the
 *  comparison with the same bytes). @type {WeakMap<Element, MeasuredState>} */
const snapshots = new WeakMap();

/** @param {Element} box @returns {MeasuredState} */
function snapshotOf(box) {
  let st = snapshots.get(box);
  if (!st) {
    st = { file: null, reading: null, error: null, answer: null };
    snapshots.set(box, st);
  }
  return st;
}

/** The last question drawn in each box. @type {WeakMap<Element, {load: () => Promise<Timeline>, view: any}>} */
const latest = new WeakMap();

/** An empty read: the engine's first answer for a file comes from its size alone. */
const NO_BYTES = new Uint8Array(0);

/**
 * Draws the timeline into `box` (a <details>) while it is open: `load` gives the engine's
 * timeline for the current question; a newer call supersedes an older one. `view.measure`
 * (bytes, fileSize) gives it with a snapshot beside it (dlcost.measuredTimeline).
 * @param {HTMLDetailsElement} box @param {() => Promise<Timeline>} load
 * @param {{units: string, lang: string, onPick?: (op: string) => void,
 *   measure?: (bytes: Uint8Array, size: number, device: number) => Promise<any>}} view
 */
export function renderTimeline(box, load, view) {
  const body = /** @type {HTMLElement} */ (box.querySelector('.tl-body'));
  const ticket = String((Number(box.dataset.ticket) || 0) + 1);
  box.dataset.ticket = ticket;
  const st = snapshotOf(box);
  latest.set(box, { load, view });
  // After a file is read the page may have drawn a newer question: redraw that one.
  const redraw = () => {
    const now = latest.get(box) ?? { load, view };
    renderTimeline(box, now.load, now.view);
  };
  const measure = view.measure;
  /** A file picked or dropped: refused from its size past the engine's limit, else read whole
   *  here and compared; an error stays beside the control and the prediction stays drawn.
   *  @param {File} file */
  const onFile = async (file) => {
    if (!measure) return;
    Object.assign(st, { file: null, reading: file.name, error: null, answer: null });
    // Only the control says "Reading…": the chart stays as it is until the answer.
    body.querySelector('.tm-box')?.replaceWith(measuredBox(st, null, controlView()));
    try {
      await measure(NO_BYTES, file.size, -1); // {need_bytes}, or too_large before any read
      const bytes = new Uint8Array(await file.arrayBuffer());
      const value = await measure(bytes, file.size, -1); // a bad snapshot throws here, with its field
      // The redraw below draws this answer (its ticket) rather than asking again.
      const next = String((Number(box.dataset.ticket) || 0) + 1);
      Object.assign(st, {
        file: { name: file.name, bytes, size: file.size },
        reading: null,
        answer: { ticket: next, value },
      });
    } catch (e) {
      const err = /** @type {{message: string, message_zh?: string, path?: string}} */ (e);
      Object.assign(st, {
        reading: null,
        error: { file: file.name, message: err.message, message_zh: err.message_zh, path: err.path },
      });
    }
    redraw();
  };
  const onRemove = () => {
    Object.assign(st, { file: null, reading: null, error: null, answer: null });
    redraw();
  };
  /** Another device of a snapshot of several GPUs. @param {number} device */
  const onDevice = (device) => {
    if (!st.file) return;
    st.file.device = device;
    redraw();
  };
  const controlView = () => ({ units: view.units, lang: view.lang, onFile, onRemove, onDevice });
  const run = () => {
    if (!box.open || box.dataset.drawn === ticket) return;
    box.dataset.drawn = ticket;
    if (!body.childElementCount) replace(body, h('p', { class: 'hint' }, t('tlLoading')));
    const file = st.file;
    /** @type {Promise<any>} */
    const kept = st.answer && st.answer.ticket === ticket ? st.answer.value : null;
    st.answer = null;
    const answer = kept
      ? Promise.resolve(kept)
      : file && measure
        ? measure(file.bytes, file.size, file.device)
        : load();
    answer.then(
      (tl) => {
        if (box.dataset.ticket !== ticket) return;
        const measured = file && tl.measured ? /** @type {MeasuredTimeline} */ (tl) : null;
        const { nodes, showEvent } = draw(tl, view.units, view.lang, view.onPick ?? (() => {}), measured);
        drawn.set(box, { tl, measured, showEvent });
        const control = measure ? measuredBox(st, measured, controlView()) : null;
        replace(body, ...nodes, control);
      },
      (/** @type {Error} */ e) =>
        box.dataset.ticket === ticket && replace(body, h('p', { class: 'field-error' }, e.message)),
    );
  };
  box.ontoggle = run;
  run();
}

/** Draws the open timeline again at once from the answer it shows and gives the milliseconds
 *  it took, its style and layout included (tests, benchmarks); null while closed or not drawn.
 *  @param {HTMLDetailsElement} box */
export function redrawTimeline(box) {
  const d = drawn.get(box);
  const v = latest.get(box);
  const body = /** @type {HTMLElement | null} */ (box.querySelector('.tl-body'));
  if (!d || !v || !box.open || !body) return null;
  const start = performance.now();
  const { nodes, showEvent } = draw(d.tl, v.view.units, v.view.lang, v.view.onPick ?? (() => {}), d.measured);
  const control = body.querySelector('.tm-box');
  replace(body, ...nodes, control);
  drawn.set(box, { tl: d.tl, measured: d.measured, showEvent });
  void body.offsetHeight; // style and layout of what was drawn, inside the span
  return performance.now() - start;
}
