// The embed widget (embed.html#d1....): a compact read-only view of a share link's state for
// an iframe in an article. It decodes the fragment with the engine, estimates the document
// exactly as the link carries it (the numbers of `dlcost estimate --link`), and posts its
// height to the host page ({type: "dlcost:height", height}) on load and on every resize.
// Everything from the link becomes text nodes or attribute values the page built itself.
// @ts-check

import dlcost, { DlcostError, ready } from './dlcost.js';
import { renderBreakdown } from './charts.js';
import { byId, h, replace } from './dom.js';
import { applyI18n, setLang, t } from './i18n.js';
import './links_i18n.js';
import { capacityOf, fitOf, memorySegments } from './results.js';
import { formatBytes, formatCount, formatSeconds, groupDigits } from './units.js';

function postHeight() {
  if (window.parent === window) return;
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  // The height is no secret and the host's origin is unknown here: any origin may read it.
  window.parent.postMessage({ type: 'dlcost:height', height }, '*');
}

function total(key, label, value, detail) {
  return h('div', { dataset: { total: key } }, h('dt', {}, label), h('dd', { class: 'num' }, value),
    detail ? h('dd', { class: 'hint' }, detail) : null);
}

function render(report, units) {
  byId('w-name').textContent = report.model?.name || 'model';
  const w = report.workload;
  byId('w-workload').textContent = [w.mode === 'infer' ? t('modeInfer') : t('modeTrain'),
    `${t('batch')} ${groupDigits(w.batch)}`, w.dtype ?? w.precision, report.gpu_fit?.gpu?.name].filter(Boolean).join(' · ');
  replace(byId('w-totals'),
    total('params', t('totalParams'), formatCount(report.params.total), groupDigits(report.params.total)),
    total('macs', t('totalMacs'), formatCount(report.macs.forward), t('forward')),
    total('flops', t('totalFlops'), formatCount(report.flops.total), t('flopsConvention')),
    total('memory', t('totalMemory'), formatBytes(report.memory.total, units),
      `${t('perSample')} ${formatBytes(report.memory.per_sample, units)}`),
    typeof report.gpu_fit?.step_time_s === 'number' ? total('step_time', t('stepTime'), formatSeconds(report.gpu_fit.step_time_s)) : null);
  const fmt = (b) => formatBytes(b, units);
  const cap = capacityOf(report);
  renderBreakdown(byId('w-breakdown'), memorySegments(report).filter((seg) => seg.bytes > 0), report.memory.total, cap, fmt, {
    capacity: t('capacity'),
    total: t('total'),
    summary: cap === null
      ? t('breakdownSummaryNoCap', { total: fmt(report.memory.total) })
      : t('breakdownSummary', { total: fmt(report.memory.total), capacity: fmt(cap) }),
  });
  const fit = byId('w-fit');
  fit.className = 'widget-fit';
  if (cap === null) {
    replace(fit);
    return;
  }
  const { fits, max_batch: maxBatch } = fitOf(report);
  fit.classList.add(fits ? 'ok' : 'over');
  replace(fit, h('span', { class: 'fit-verdict', dataset: { fits: String(fits) } }, fits ? t('fits') : t('doesNotFit')),
    typeof maxBatch === 'number'
      ? h('span', {}, `${t('maxBatch')}: `, h('span', { class: 'num', id: 'w-max-batch' }, groupDigits(maxBatch)))
      : null);
}

function show() {
  const error = byId('w-error');
  error.textContent = '';
  const open = /** @type {HTMLAnchorElement} */ (byId('w-open'));
  open.href = `index.html${location.hash}`;
  try {
    const state = dlcost.decodeLink(location.hash);
    const units = state.ui?.units === 'decimal' ? 'GB' : 'GiB';
    setLang(state.ui?.lang === 'zh' ? 'zh' : 'en');
    applyI18n();
    if (!state.doc || typeof state.doc !== 'object' || Array.isArray(state.doc)) {
      throw new DlcostError({ code: 'value', path: '', message: t('linkNoDoc') });
    }
    // The document exactly as the link carries it: the numbers of `dlcost estimate --link`.
    const report = dlcost.estimate(state.doc);
    render(report, units);
    document.body.dataset.state = 'ok';
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
    error.textContent = e.message;
    document.body.dataset.state = 'error';
  }
  postHeight();
}

async function start() {
  try {
    await ready();
  } catch (e) {
    byId('w-error').textContent = `${t('engineFailed')}: ${/** @type {Error} */ (e).message}`;
    return;
  }
  show();
  delete document.body.dataset.starting;  // the first result is drawn: show the widget
  addEventListener('hashchange', show);
  new ResizeObserver(postHeight).observe(document.documentElement);
  document.body.dataset.ready = 'true';
}

start();
