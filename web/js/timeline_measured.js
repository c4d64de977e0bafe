// "Compare with your run" in the memory timeline (#28 item 3): a PyTorch CUDA memory snapshot
// (the .pickle of torch.cuda.memory._dump_snapshot()) picked or dropped by the user, read in
// this browser (File.arrayBuffer; nothing is sent anywhere) and handed to the engine
// (dlcost.measuredTimeline, `dlcost timeline --measured FILE --json`). This module builds the
// control, the measured curve drawn over the predicted one, the two peaks with their
// difference and what the engine does not model. Renders only; every figure is the engine's.
// @ts-check

import { h, s } from './dom.js';
import { DICTIONARIES, engineText, t } from './i18n.js';
import { formatBytes, formatPercent, groupDigits } from './units.js';

/** @typedef {import('./types').MeasuredTimeline} MeasuredTimeline */

Object.assign(DICTIONARIES.en, {
  tmCompare: 'Compare with your run',
  tmHint:
    'Pick or drop a PyTorch memory snapshot (the .pickle of torch.cuda.memory._dump_snapshot()). ' +
    'It is read in this browser; nothing is uploaded.',
  tmFile: 'Memory snapshot',
  tmPick: 'Choose a snapshot…',
  tmDevice: 'Device',
  tmRemove: 'Remove',
  tmReading: 'Reading {file}…',
  tmLoaded: '{file}: device {device}, {events} trace events',
  tmLoadedOf: '{file}: device {device} (the snapshot has devices {devices}), {events} trace events',
  tmError: '{file}: {message} (at {path})',
  tmErrorNoPath: '{file}: {message}',
  tmMeasuredPeak: 'Measured peak (active memory): {bytes}',
  tmPredictedPeak: 'Predicted peak: {bytes}',
  tmDifference: 'Difference, measured − predicted: {bytes} ({percent}%)',
  tmDifferenceNoPercent: 'Difference, measured − predicted: {bytes}',
  tmAxes:
    'Across: the predicted areas run over the step’s {n} op events; the measured line over your ' +
    'snapshot’s {m} trace events, stretched to the same width (the two are not one clock: ' +
    'compare heights, not positions). Up: bytes, 0 to {top}.',
  tmLegend: 'measured active memory (your run)',
  tmNotModelled: 'Not in the predicted curve',
  tmNotModelledBytes: '{text} ({bytes} in this snapshot)',
});
Object.assign(DICTIONARIES.zh, {
  tmCompare: '与你的运行对比',
  tmHint:
    '选择或拖入一个 PyTorch 内存快照（torch.cuda.memory._dump_snapshot() 生成的 .pickle）。文件只在本浏览器中读取，不会上传。',
  tmFile: '内存快照',
  tmPick: '选择快照…',
  tmDevice: '设备',
  tmRemove: '移除',
  tmReading: '正在读取 {file}…',
  tmLoaded: '{file}：设备 {device}，{events} 个跟踪事件',
  tmLoadedOf: '{file}：设备 {device}（快照中的设备：{devices}），{events} 个跟踪事件',
  tmError: '{file}：{message}（位置 {path}）',
  tmErrorNoPath: '{file}：{message}',
  tmMeasuredPeak: '实测峰值（活跃显存）：{bytes}',
  tmPredictedPeak: '预测峰值：{bytes}',
  tmDifference: '差值（实测 − 预测）：{bytes}（{percent}%）',
  tmDifferenceNoPercent: '差值（实测 − 预测）：{bytes}',
  tmAxes:
    '横轴：预测的面积图按这一步的 {n} 个算子事件排列；实测曲线按你的快照的 {m} 个跟踪事件排列，并拉伸到相同宽度' +
    '（两者不是同一个时钟：请比较高度，而非位置）。纵轴：字节，0 到 {top}。',
  tmLegend: '实测活跃显存（你的运行）',
  tmNotModelled: '预测曲线不包含的部分',
  tmNotModelledBytes: '{text}（此快照中为 {bytes}）',
});

/** "+1.50 MiB" / "−2.00 MiB": a difference with its sign. @param {number} bytes @param {string} units */
const signedBytes = (bytes, units) => (bytes > 0 ? '+' : '') + formatBytes(bytes, units);

/** "+12.3" / "−4.5": a difference in percent with its sign. @param {number} percent */
const signedPercent = (percent) =>
  (percent > 0 ? '+' : percent < 0 ? '−' : '') + formatPercent(Math.abs(percent) / 100);

/** The highest figure the chart must hold. @param {MeasuredTimeline} tl */
export const measuredTop = (tl) => Math.max(tl.comparison.predicted_peak_bytes, tl.comparison.measured_peak_bytes);

/**
 * The measured curve as SVG: a step line (active memory holds between events) over the chart's
 * plot box, its own x axis (trace events, first to last, stretched to the box's width), and a
 * dot at the measured peak.
 * @param {MeasuredTimeline} tl
 * @param {{x0: number, x1: number, py: (v: number) => number}} box
 */
export function measuredCurve(tl, box) {
  const points = tl.measured.points;
  const first = points[0].event;
  const last = points[points.length - 1].event;
  const span = last - first;
  const px = (/** @type {number} */ event) =>
    span > 0 ? box.x0 + ((event - first) / span) * (box.x1 - box.x0) : box.x0;
  const r1 = (/** @type {number} */ v) => Math.round(v * 10) / 10;
  let d = `M${r1(px(points[0].event))},${r1(box.py(points[0].bytes))}`;
  for (const p of points.slice(1)) d += `H${r1(px(p.event))}V${r1(box.py(p.bytes))}`;
  d += `H${r1(box.x1)}`; // the last level holds to the end of the snapshot
  const peak = points[tl.measured.peak.point];
  return [
    s('path', { d, class: 'tm-curve', id: 'tm-curve' }),
    s('circle', { cx: r1(px(peak.event)), cy: r1(box.py(peak.bytes)), r: 3, class: 'tm-peak-dot' }),
  ];
}

/** The note under the chart saying which axis is which. @param {MeasuredTimeline} tl @param {string} units */
export const axesNote = (tl, units) =>
  h(
    'p',
    { class: 'hint', id: 'tm-axes' },
    t('tmAxes', {
      n: groupDigits(tl.points.length),
      m: groupDigits(tl.measured.events),
      top: formatBytes(measuredTop(tl), units),
    }),
  );

/** The legend entry of the measured line. */
export const legendEntry = () => h('li', {}, h('span', { class: 'tl-swatch tm-swatch' }), t('tmLegend'));

/**
 * Both peaks, their difference, and what the engine does not model, in the engine's words.
 * @param {MeasuredTimeline} tl @param {string} units @param {string} lang
 */
function summary(tl, units, lang) {
  const c = tl.comparison;
  const difference =
    c.difference_percent === null
      ? t('tmDifferenceNoPercent', { bytes: signedBytes(c.difference_bytes, units) })
      : t('tmDifference', {
          bytes: signedBytes(c.difference_bytes, units),
          percent: signedPercent(c.difference_percent),
        });
  const notModelled = tl.not_modelled.map((item) => {
    const text = lang === 'zh' ? item.zh : item.en;
    return h(
      'li',
      { dataset: { id: item.id } },
      item.bytes === undefined ? text : t('tmNotModelledBytes', { text, bytes: formatBytes(item.bytes, units) }),
    );
  });
  return [
    h(
      'ul',
      { class: 'tm-peaks', id: 'tm-peaks' },
      h('li', { id: 'tm-measured-peak' }, t('tmMeasuredPeak', { bytes: formatBytes(c.measured_peak_bytes, units) })),
      h('li', { id: 'tm-predicted-peak' }, t('tmPredictedPeak', { bytes: formatBytes(c.predicted_peak_bytes, units) })),
      h('li', { id: 'tm-difference' }, h('strong', {}, difference)),
    ),
    h('p', { class: 'tm-not-title' }, t('tmNotModelled')),
    h('ul', { class: 'tm-not-modelled', id: 'tm-not-modelled' }, notModelled),
  ];
}

/** What the control shows: the file in use, a file being read, or the last error; `answer`:
 *  the engine's answer for the file just read, drawn by the redraw of that ticket.
 *  @typedef {{file: {name: string, bytes: Uint8Array, size: number, device: number} | null, reading: string | null,
 *   error: {file: string, message: string, message_zh?: string, path?: string} | null,
 *   answer: {ticket: string, value: any} | null}} MeasuredState */

/** The control's status line or error. @param {MeasuredState} st @param {MeasuredTimeline | null} tl */
function status(st, tl) {
  if (st.reading)
    return h('p', { class: 'hint', id: 'tm-status', 'aria-live': 'polite' }, t('tmReading', { file: st.reading }));
  if (st.error) {
    const vars = {
      file: st.error.file,
      message: engineText(st.error.message, st.error.message_zh),
      path: st.error.path,
    };
    return h(
      'p',
      { class: 'field-error', id: 'tm-error', role: 'alert' },
      t(st.error.path ? 'tmError' : 'tmErrorNoPath', vars),
    );
  }
  if (st.file && tl) {
    const m = tl.measured;
    return h(
      'p',
      { class: 'hint', id: 'tm-status', 'aria-live': 'polite' },
      t(m.devices.length > 1 ? 'tmLoadedOf' : 'tmLoaded', {
        file: st.file.name,
        device: m.device,
        devices: m.devices.join(', '),
        events: groupDigits(m.events),
      }),
    );
  }
  return null;
}

/** A snapshot of several GPUs: which device's curve (the engine's pick first).
 *  @param {MeasuredTimeline} tl @param {(device: number) => void} onDevice */
function devicePicker(tl, onDevice) {
  const devices = tl.measured.devices;
  if (devices.length < 2) return null;
  const select = h(
    'select',
    { id: 'tm-device' },
    devices.map((d) => h('option', { value: String(d), selected: d === tl.measured.device }, String(d))),
  );
  select.addEventListener('change', () => onDevice(Number(select.value)));
  return h('label', { class: 'tm-device' }, `${t('tmDevice')} `, select);
}

/**
 * The "Compare with your run" box: the file input (which a file may also be dropped on), the
 * status or error, a remove button while a snapshot is shown, and the comparison.
 * @param {MeasuredState} st @param {MeasuredTimeline | null} tl the result with the snapshot
 * @param {{units: string, lang: string, onFile: (f: File) => void, onRemove: () => void,
 *   onDevice: (device: number) => void}} view
 */
export function measuredBox(st, tl, view) {
  // The browser's own file button speaks the browser's language: a label in the page's stands
  // in for it (the input stays focusable, visually hidden).
  const input = h('input', {
    type: 'file',
    id: 'tm-file',
    class: 'tm-input',
    accept: '.pickle,.pkl,application/octet-stream',
  });
  input.setAttribute('aria-label', t('tmFile'));
  const pick = h('label', { for: 'tm-file', class: 'tm-pick', id: 'tm-pick' }, t('tmPick'));
  input.setAttribute('aria-describedby', 'tm-hint');
  input.addEventListener('change', () => input.files && input.files[0] && view.onFile(input.files[0]));
  const remove =
    st.file || st.error
      ? h('button', { type: 'button', id: 'tm-remove', class: 'tm-remove', onclick: view.onRemove }, t('tmRemove'))
      : null;
  const box = h(
    'div',
    { class: 'tm-box', id: 'tm-box' },
    h('p', { class: 'tm-title' }, h('strong', {}, t('tmCompare'))),
    h('p', { class: 'hint', id: 'tm-hint' }, t('tmHint')),
    h('div', { class: 'tm-row' }, input, pick, remove, tl ? devicePicker(tl, view.onDevice) : null),
    status(st, tl),
    tl ? summary(tl, view.units, view.lang) : null,
  );
  box.addEventListener('dragover', (e) => {
    e.preventDefault();
    box.classList.add('drop');
  });
  box.addEventListener('dragleave', () => box.classList.remove('drop'));
  box.addEventListener('drop', (e) => {
    e.preventDefault();
    e.stopPropagation(); // the snapshot is for this box, not the page's model-file drop
    box.classList.remove('drop');
    const f = e.dataTransfer && e.dataTransfer.files[0];
    if (f) view.onFile(f);
  });
  return box;
}
