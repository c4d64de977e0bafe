// Wires the page: loads the engine, builds the document from the state on every input
// change, estimates, and hands the report (or the error) to the modules that show it.

import dlcost, { DlcostError, ready } from './dlcost.js';
import { byId } from './dom.js';
import { renderBreakdown, renderSweep } from './charts.js';
import { applyI18n, engineText, setLang, t } from './i18n.js';
import { createModelEditor } from './model_editor.js';
import { createModelIo, splitDocument } from './model_io.js';
import { inspectFile } from './model_file.js';
import { capacityOf, memorySegments, renderExtras, renderFit, renderLayerTable, renderTotals } from './results.js';
import { buildDocument, getState, subscribe, update } from './state.js';
import { createShareLinks, linkState } from './share.js';
import { formatBytes } from './units.js';
import { setPresetFamilies, setSchema } from './llm_fields.js';
import { createWorkloadForm } from './workload_form.js';
import { initInsights, updateInsights } from './insights.js';
import { registerOffline } from './offline.js';
import { createAdvice } from './advice.js';
import { modelKind, setTasks } from './tasks.js';
import './page_i18n.js';
import { renderInference } from './inference_section.js';
import { renderRun } from './run_section.js';

let editor;
let io;
let form;
let advice;
let lastReport = null;
let lastError = null;

function showError(error) {
  lastError = error;
  const onWorkload = form.showError(error);
  const onModel = editor.showError(error);
  const global = byId('global-error');
  global.textContent = error && !onWorkload && !onModel
    ? `${error.path ? `${t('errorIn', { path: error.path })}: ` : ''}${error.message}`
    : '';
  byId('results-body').classList.toggle('stale', Boolean(error) || editor.hasLocalError());
}

function renderReport(report, sweep) {
  const { units } = getState();
  const fmt = (b) => formatBytes(b, units);
  renderTotals(byId('totals'), report, units);
  renderFit(byId('fit'), report, units);
  renderInference(byId('inference'), report, units, () => dlcost.servingSweep(buildDocument(getState())));
  const cap = capacityOf(report);
  // The lines that hold memory, each its own colour (a zero line draws nothing).
  renderBreakdown(byId('breakdown'), memorySegments(report).filter((seg) => seg.bytes > 0), report.memory.total, cap, fmt, {
    capacity: t('capacity'),
    total: t('total'),
    summary: cap === null
      ? t('breakdownSummaryNoCap', { total: fmt(report.memory.total) })
      : t('breakdownSummary', { total: fmt(report.memory.total), capacity: fmt(cap) }),
  });
  const pts = sweep.points;
  // The engine's sweep carries its capacity (a GPU's usable memory, per GPU, when one is
  // chosen) and the largest batch that fits.
  renderSweep(byId('sweep'), sweep, report.workload.batch, fmt, {
    batch: t('batchAxis'),
    capacity: t('capacity'),
    maxBatch: t('maxBatch'),
    current: t('current'),
    fixed: t('fixed'),
    formula: t('formula', { fixed: fmt(sweep.fixed), perSample: fmt(sweep.per_sample) }),
    summary: t('sweepSummary', {
      first: fmt(pts[0].total), last: fmt(pts.at(-1).total), lastBatch: pts.at(-1).batch,
      perSample: fmt(sweep.per_sample),
    }),
  }, units === 'GB' ? 1000 : 1024);
  renderExtras(byId('extras'), report, units);
  renderRun(byId('run'), report, getState().lang);
  renderLayerTable(byId('layers'), report, units, getState().sort, (key) => {
    const { sort } = getState();
    const dir = sort.key === key ? -sort.dir : key === 'name' || key === 'type' ? 1 : -1;
    update({ sort: { key, dir } });
  });
  editor.showReport(report);
  advice.render(report);
  renderStickySummary(report, units);
}

/** The phone's one-line verdict: the fit's own figures (or the total without a capacity). */
function renderStickySummary(report, units) {
  const bar = byId('sticky-summary');
  const fit = report.gpu_fit ?? report.memory_fit ?? null;
  const parts = [`${t('totalMemory')} ${formatBytes(report.memory.total, units)}`];
  if (fit) {
    parts.unshift(fit.fits ? t('fits') : t('doesNotFit'));
    if (typeof fit.max_batch === 'number') parts.push(`${t('maxBatch')} ${fit.max_batch}`);
  }
  bar.textContent = parts.join(' · ');
  bar.className = `sticky-summary ${fit ? (fit.fits ? 'ok' : 'over') : ''}`;
  bar.hidden = false;
}

/** After a model of another kind (a transformer after a CNN) is loaded, the task starts
 *  again from that kind's settings. */
function keepTaskForKind(kindBefore) {
  if (modelKind(getState()) !== kindBefore) form.applyTask(form.currentTask(), { silent: true });
}

/** Estimates the current document and redraws everything: one engine call per update. */
export function recompute() {
  form.refresh();  // which transformer / multi-GPU fields apply to this model and GPU
  try {
    // Strict: a field the engine cannot read shows its error next to it, as an estimate's does.
    const doc = buildDocument(getState(), { strict: true });
    const { report, sweep } = dlcost.estimateWithSweep(doc);
    lastReport = report;
    renderReport(report, sweep);
    updateInsights(doc, report, getState().units, getState().model.preset);
    showError(null);
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
    showError({ code: e.code, path: e.path, message: engineText(e.message, e.message_zh) });
  }
}

function syncStatic() {
  const s = getState();
  setLang(s.lang);
  applyI18n();
  byId('lang').value = s.lang;
  byId('units-gib').setAttribute('aria-pressed', String(s.units === 'GiB'));
  byId('units-gb').setAttribute('aria-pressed', String(s.units === 'GB'));
  form.sync();
}

/** Opens preset `name`; `keepWorkload` (a link's own workload) skips the task's settings. */
function loadPreset(name, { keepWorkload = false } = {}) {
  const doc = dlcost.preset(name);
  const kind = modelKind(getState());
  update({ model: { preset: name, doc: null } }, { silent: true });
  if (!keepWorkload) keepTaskForKind(kind);
  form.syncValues();
  editor.setModel(doc);
  recompute();
}

/** The engine's workload defaults: a link's document that leaves a field out means these. */
const ENGINE_WORKLOAD = { mode: 'train', batch: '1', dtype: 'fp32', optimizer: 'adam', overhead_bytes: '0' };

/** Opens a share link's state: its units and language, its workload (GPU included) in the
 *  form, and its model as a preset (by name) or as a custom document. */
function openLinkState({ doc, ui }, gpus) {
  const s = getState();
  const units = ui?.units === 'decimal' ? 'GB' : ui?.units === 'binary' ? 'GiB' : s.units;
  const lang = ui?.lang === 'zh' || ui?.lang === 'en' ? ui.lang : s.lang;
  const { model, workload } = splitDocument(doc);
  update({ units, lang, workload: { ...ENGINE_WORKLOAD }, gpu: { name: '', memory: '' } }, { silent: true });
  // The engine writes the sizes back as text that reads back to the link's exact bytes.
  form.applyWorkload(workload);
  const w = workload && typeof workload === 'object' ? workload : {};
  if (typeof w.gpu === 'string') {
    const g = gpus.find((x) => (x.id ?? x.name) === w.gpu);
    const memory = g && Number.isFinite(g.memory_bytes)
      ? dlcost.workloadToText({ memory_bytes: g.memory_bytes }, units).memory_bytes : '';
    update({ gpu: { name: w.gpu, memory } }, { silent: true });
  }
  setLang(lang);
  syncStatic();
  form.fillGpus();
  const keys = model && typeof model === 'object' && !Array.isArray(model) ? Object.keys(model) : [];
  if (keys.length === 1 && keys[0] === 'preset' && typeof model.preset === 'string') {
    io.fillPresets(model.preset);
    loadPreset(model.preset, { keepWorkload: true });
  } else {
    io.fillPresets('');
    update({ model: { preset: null, doc: model } }, { silent: true });
    editor.setModel(model && typeof model === 'object' ? model : null);
    recompute();
  }
}

async function start() {
  const status = byId('global-error');
  status.textContent = t('engineLoading');
  try {
    await ready();
  } catch (e) {
    status.textContent = `${t('engineFailed')}: ${e.message}`;
    return;
  }
  status.textContent = '';
  registerOffline();
  const presets = dlcost.presets();
  const gpus = dlcost.gpus();
  setPresetFamilies(presets);

  editor = createModelEditor(byId('editor'), (doc) => {
    io.setPreset('');
    update({ model: { preset: null, doc: structuredClone(doc) } });
  });
  io = createModelIo(presets, {
    onPreset: loadPreset,
    onModel(model, workload) {
      const kind = modelKind(getState());
      update({ model: { preset: null, doc: model } }, { silent: true });
      keepTaskForKind(kind);
      form.applyWorkload(workload);
      form.sync();
      editor.setModel(model && typeof model === 'object' ? model : null);
      recompute();
    },
    // The engine's count of the model just loaded, null when it was refused.
    engineTotal: () => (lastError ? null : lastReport?.params?.total ?? null),
    getExport() {
      const s = getState();
      return { model: s.model.doc ?? dlcost.preset(s.model.preset), workload: buildDocument().workload };
    },
  });
  const schema = dlcost.workloadSchema();
  setSchema(schema);
  setTasks(schema.tasks);
  form = createWorkloadForm(gpus, getState, update);
  advice = createAdvice(byId('advice'), getState, update, () => {
    form.syncValues();
    recompute();
  });
  initInsights({ presets, loadPreset: (name) => { io.setPreset(name); loadPreset(name); } });

  byId('lang').addEventListener('change', (e) => {
    update({ lang: e.target.value }, { silent: true });
    syncStatic();
    io.fillPresets(getState().model.preset);
    form.fillGpus();
    editor.rerender();
    recompute();
  });
  const setUnits = (units) => {
    const from = getState().units;
    if (from === units) return;
    form.convertUnits(from, units);
    update({ units }, { silent: true });
    syncStatic();
    recompute();
  };
  byId('units-gib').addEventListener('click', () => setUnits('GiB'));
  byId('units-gb').addEventListener('click', () => setUnits('GB'));

  subscribe(() => recompute());

  syncStatic();
  io.fillPresets(getState().model.preset);
  form.fillGpus();
  const first = getState().model.preset || presets[0]?.name;
  const links = createShareLinks({
    currentState: () => linkState(buildDocument(), getState()),
    open: (state) => openLinkState(state, gpus),
    openDefault() {
      update({ workload: { batch: '32', overhead_bytes: '0' }, gpu: { name: '', memory: '24' } }, { silent: true });
      form.applyTask('train', { silent: true });
      syncStatic();
      form.fillGpus();
      io.fillPresets(first);
      loadPreset(first);
    },
    modelName: () => lastReport?.model?.name ?? getState().model.preset ?? 'model',
  });
  if (!links.openFromHash() && first) {
    // A first visit starts from the training task's settings for the first preset's kind.
    form.applyTask('train', { silent: true });
    form.syncValues();
    loadPreset(first);
  }
  document.body.dataset.ready = 'true';
  // For tests and benchmarks: the same entry points the page itself uses.
  // For tests: the page's own state and file reader (dist/js holds bundles, not modules).
  globalThis.dlcostPage = {
    recompute,
    getState,
    lastReport: () => lastReport,
    lastError: () => lastError,
    inspectFile,
  };
}

start();
