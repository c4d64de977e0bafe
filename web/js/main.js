// Wires the page: loads the engine, creates the controls and draws the page from the store's
// state (state.js) in one render, run after every update. A user action is one update; the
// render asks the engine for a report when what it estimates (model, workload, GPU, units)
// or how it is shown (language, the layer table's sort) changed, and redraws only the part
// an other change touches (the open explanation, the GPU table's sort).
// @ts-check

import dlcost, { DlcostError, loadExtra, ready } from './dlcost.js';
import { byId } from './dom.js';
import { renderBreakdown, renderSweep } from './charts.js';
import { applyI18n, engineText, setLang, t } from './i18n.js';
import { createModelEditor } from './model_editor.js';
import { createModelIo, splitDocument } from './model_io.js';
import { capacityOf, memorySegments, renderExtras, renderFit, renderLayerTable, renderTotals, showLayerRow } from './results.js';
import { buildDocument, getState, subscribe, update } from './state.js';
import { createShareLinks, linkState } from './share.js';
import { formatBytes, formatSignificant, unitStep } from './units.js';
import { setPresetFamilies, setSchema } from './llm_fields.js';
import { createWorkloadForm, taskPatch, unitsPatch, workloadPatch } from './workload_form.js';
import { registerOffline } from './offline.js';
import { createAdvice } from './advice.js';
import { currentTask, modelKind, setTasks } from './tasks.js';
import './page_i18n.js';
import { renderInference } from './inference_section.js';
import { createUnderLoad } from './under_load.js';
import { renderRun } from './run_section.js';
import { renderLayouts } from './layouts_section.js';
import { redrawTimeline, renderTimeline, showTimelineLayer } from './timeline_section.js';
import { redrawLayerGraph, renderLayerGraph } from './layer_graph.js';
import { clearSelection, onSelectLayer, selectLayer } from './selection.js';

/** @typedef {import('./state.js').PageState} PageState */
/** @typedef {import('./state.js').StatePatch} StatePatch */
/** @typedef {import('./types').Report} Report */
/** @typedef {import('./types').Sweep} Sweep */
/** @typedef {import('./types').EngineError} EngineError */
/** @typedef {import('./types').Gpu} Gpu */

/** The engine's workload defaults: a link's document that leaves a field out means these. */
const ENGINE_WORKLOAD = { mode: 'train', batch: '1', dtype: 'fp32', optimizer: 'adam', overhead_bytes: '0' };

/** What the estimate reads (the document), or how its report is drawn: a change redraws all. */
const REPORT_KEYS = /** @type {const} */ (['model', 'workload', 'gpu', 'units', 'lang', 'sort']);

/** The workload patch that starts the task again from the settings of the new model's kind
 *  when `model` is of another kind than the state's (a transformer after a CNN).
 *  @param {PageState} s @param {PageState['model']} model @returns {StatePatch} */
function taskForModel(s, model) {
  const next = { ...s, model };
  return modelKind(next) === modelKind(s) ? {} : taskPatch(currentTask(next), next);
}

/** Merges two state patches (the later's nested fields win). @param {StatePatch[]} patches */
function mergePatches(...patches) {
  /** @type {{[key: string]: any}} */
  const out = {};
  for (const p of patches) {
    for (const [key, value] of Object.entries(p)) {
      const both = value && typeof value === 'object' && out[key] && typeof out[key] === 'object' && key !== 'model';
      out[key] = both ? { ...out[key], ...value } : value;
    }
  }
  return /** @type {StatePatch} */ (out);
}

/** Opens preset `name`; `keepWorkload` (a link's own workload) skips the task's settings.
 *  @param {string} name @param {{keepWorkload?: boolean}} [opts] */
function loadPreset(name, { keepWorkload = false } = {}) {
  const model = { preset: name, doc: null };
  update({ model, ...(keepWorkload ? {} : taskForModel(getState(), model)) });
}

/** The page's parts and what the render remembers between runs.
 *  @typedef {{
 *    presets: import('./types').PresetEntry[], gpus: () => Gpu[], start: {task: string, memory_gib: number},
 *    lastReport: Report | null, lastError: EngineError | null, underLoad: ReturnType<typeof createUnderLoad>,
 *    shown: PageState | null, editorOn: boolean, editor: ReturnType<typeof createModelEditor>,
 *    form: ReturnType<typeof createWorkloadForm>, advice: ReturnType<typeof createAdvice>,
 *    io: ReturnType<typeof createModelIo> | null,
 *    insights: Promise<typeof import('./insights.js')> | null,
 *    insightsLoaded: typeof import('./insights.js') | null,
 *  }} Page */

/** The model picker, paste box and file import (model_io.js), wired to the store.
 *  @param {Page} page */
function createIo(page) {
  return createModelIo(page.presets, {
    onPreset: loadPreset,
    onModel(doc, workload) {
      const s = getState();
      const model = { preset: null, doc };
      update(mergePatches({ model }, taskForModel(s, model), workloadPatch(workload, s.units)));
    },
    // The engine's count of the model just loaded, null when it was refused.
    engineTotal: () => (page.lastError ? null : page.lastReport?.params?.total ?? null),
    getExport() {
      const s = getState();
      return { model: s.model.doc ?? dlcost.preset(s.model.preset), workload: buildDocument().workload };
    },
  });
}

/** Runs `use` with the insights module (insights.js with explain.js, compare.js, learn.js),
 *  loading it the first time: a chunk of its own, requested after the first result is drawn
 *  (docs/benchmarks.md, "Session 5"), so the first result does not wait for it.
 *  @param {Page} page @param {(m: typeof import('./insights.js')) => void} use */
function withInsights(page, use) {
  page.insights ??= new Promise((loaded) => requestAnimationFrame(() => setTimeout(loaded, 0)))
    .then(() => import('./insights.js'))
    .then((m) => {
      m.initInsights({ presets: page.presets, loadPreset });
      page.insightsLoaded = m;
      return m;
    });
  page.insights.then(use, () => {});  // offline before the first visit: no explanations
}

/** @param {Page} page @param {EngineError | null} error */
function showError(page, error) {
  page.lastError = error;
  const onWorkload = page.form.showError(error);
  const onModel = page.editor.showError(error);
  const global = byId('global-error');
  global.textContent = error && !onWorkload && !onModel
    ? `${error.path ? `${t('errorIn', { path: error.path })}: ` : ''}${error.message}`
    : '';
  byId('results-body').classList.toggle('stale', Boolean(error) || page.editor.hasLocalError());
  if (error) showErrorVerdict(error);
}

/** An error replaces the verdict (a stale "Fits" of the question before is no answer): the
 *  card and the pinned line say what to fix, where the eye is. @param {EngineError} error */
function showErrorVerdict(error) {
  const fit = byId('fit');
  const field = error.path ? error.path.replace(/^\/workload\//, '').replace(/^\//, '') : '';
  const text = field ? t('errorAtField', { field, message: error.message }) : error.message;
  fit.className = 'fit over';
  fit.replaceChildren();
  const line = document.createElement('strong');
  line.className = 'fit-verdict';
  line.id = 'verdict-error';
  line.dataset.fits = 'error';
  line.textContent = text;
  fit.append(line);
  const bar = byId('sticky-summary');
  bar.textContent = text;
  bar.className = 'sticky-summary over';
}

/** The memory breakdown and the batch sweep. @param {Report} report @param {Sweep} sweep @param {string} units */
function renderMemoryCharts(report, sweep, units) {
  /** @param {number} b */
  const fmt = (b) => formatBytes(b, units);
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
  const last = pts[pts.length - 1];
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
      first: fmt(pts[0].total), last: fmt(last.total), lastBatch: last.batch,
      perSample: fmt(sweep.per_sample),
    }),
  }, unitStep(units));
}

/** @param {Page} page @param {PageState} s @param {Report} report @param {Sweep} sweep */
function renderReport(page, s, report, sweep) {
  const { units } = s;
  renderTotals(byId('totals'), report, units);
  renderFit(byId('fit'), report, units);
  renderInference(byId('inference'), report, units, (users, contexts) =>
    loadExtra().then(() => dlcost.servingSweep(buildDocument(getState()), users, contexts)));
  page.underLoad(report);
  renderMemoryCharts(report, sweep, units);
  renderExtras(byId('extras'), report, units);
  renderRun(byId('run'), report, s.lang);
  renderTimeline(/** @type {HTMLDetailsElement} */ (byId('timeline-box')),
    () => loadExtra().then(() => dlcost.timeline(buildDocument(getState()))), {
      units, lang: s.lang,
      // A PyTorch memory snapshot beside the prediction: its bytes never leave the page.
      measure: (bytes, size, device) =>
        loadExtra().then(() => dlcost.measuredTimeline(buildDocument(getState()), bytes, size, device)),
      // A timeline event names its layer: the graph and the table show that row.
      onPick: (op) => {
        const row = report.layers.findIndex((l) => l.name === op);
        if (row >= 0) selectLayer(row, 'timeline');
      },
    });
  renderLayerGraph(/** @type {HTMLDetailsElement} */ (byId('graph-box')), report, { units, lang: s.lang });
  renderLayerTable(byId('layers'), report, units, s.sort, (key) => {
    const { sort } = getState();
    const dir = sort.key === key ? -sort.dir : key === 'name' || key === 'type' ? 1 : -1;
    update({ sort: { key, dir } });
  });
  page.editor.showReport(report);
  page.advice.render(report);
  renderStickySummary(report, units);
}

/** Estimates the state's document and draws the results: one engine call.
 *  @param {Page} page @param {PageState} s */
function estimate(page, s) {
  try {
    // Strict: a field the engine cannot read shows its error next to it, as an estimate's does.
    const doc = buildDocument(s, { strict: true });
    const { report, sweep } = dlcost.estimateWithSweep(doc);
    // Another model's rows are other layers: its pick does not carry over.
    if (page.lastReport?.model.name !== report.model.name) clearSelection();
    page.lastReport = report;
    renderReport(page, s, report, sweep);
    withInsights(page, (m) => m.updateInsights(doc, report, s.units, s.model.preset));
    showError(page, null);
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
    showError(page, { code: e.code, path: e.path, message: engineText(e.message, e.message_zh) });
  }
  showLayouts(s);
}

/** The layout search for a multi-GPU training run, beside the verdict: also when the
 *  estimate of the current split failed (a batch that does not divide), which it explains
 *  with the engine's fix. @param {PageState} s */
function showLayouts(s) {
  const w = s.workload;
  const gpus = gpuCount(String(w.gpus ?? ''));
  const now = {
    mode: String(w.mode ?? ''), gpus: s.gpu.name ? gpus : 1, tp: String(w.tp ?? ''), pp: String(w.pp ?? ''),
    zero: String(w.zero ?? ''), grad_accum: String(w.grad_accum ?? ''), batch: String(w.batch ?? ''), units: s.units,
  };
  renderLayouts(byId('layouts'), now,
    () => loadExtra().then(() => dlcost.layouts(buildDocument(s))),
    (patch) => update({ workload: patch }));
}

/** The one render: draws the page from `s`, each part when what it shows changed.
 *  @param {Page} page @param {PageState} s */
function render(page, s) {
  const prev = page.shown;
  page.shown = { ...s };
  /** @param {keyof PageState} key */
  const changed = (key) => prev === null || prev[key] !== s[key];
  if (changed('lang')) {
    setLang(s.lang);
    applyI18n();
    /** @type {HTMLSelectElement} */ (byId('lang')).value = s.lang;
  }
  if (changed('units')) {
    byId('units-gib').setAttribute('aria-pressed', String(s.units === 'GiB'));
    byId('units-gb').setAttribute('aria-pressed', String(s.units === 'GB'));
  }
  page.form.render(s);
  page.io.render(s);
  if (page.editorOn) page.editor.render(s);
  if (REPORT_KEYS.some(changed)) estimate(page, s);
  // Before the insights load there is no explanation to show and no GPU table to sort.
  if (page.insightsLoaded && changed('explain')) page.insightsLoaded.showExplanation();
  if (page.insightsLoaded && changed('gpuSort')) page.insightsLoaded.redrawGpus();
}

/** Opens a share link's state in one update: its units and language, its workload (GPU
 *  included, the rest the engine's defaults) and its model as a preset (by name) or as a
 *  custom document. @param {() => Gpu[]} gpus @param {{doc: any, ui: any}} link */
function openLinkState(gpus, { doc, ui }) {
  const s = getState();
  const units = ui?.units === 'decimal' ? 'GB' : ui?.units === 'binary' ? 'GiB' : s.units;
  const lang = ui?.lang === 'zh' || ui?.lang === 'en' ? ui.lang : s.lang;
  const { model, workload } = splitDocument(doc);
  const fromLink = workloadPatch(workload, units);
  /** @type {PageState['gpu']} */
  const gpu = { name: '', memory: '', ...fromLink.gpu };
  const w = /** @type {{gpu?: unknown}} */ (workload && typeof workload === 'object' ? workload : {});
  if (typeof w.gpu === 'string') {
    // The engine writes the sizes back as text that reads back to the link's exact bytes.
    const g = gpus().find((x) => (x.id ?? x.name) === w.gpu);
    const memory = g && Number.isFinite(g.memory_bytes)
      ? dlcost.workloadToText({ memory_bytes: g.memory_bytes }, units).memory_bytes : '';
    Object.assign(gpu, { name: w.gpu, memory });
  }
  const keys = model && typeof model === 'object' && !Array.isArray(model) ? Object.keys(model) : [];
  const byName = keys.length === 1 && keys[0] === 'preset' && typeof model.preset === 'string';
  update({
    units,
    lang,
    workload: { ...ENGINE_WORKLOAD, ...fromLink.workload },
    gpu,
    model: byName ? { preset: model.preset, doc: null } : { preset: null, doc: model },
  }, { replace: true });
}

/** A first visit (or a link that cannot be read): the first preset with the engine's
 *  starting point (schema.start: the task and the capacity; `dlcost estimate --preset NAME
 *  --task train --memory-gib 24` gives the same first screen).
 *  @param {{task: string, memory_gib: number}} start @param {string} name */
function openDefault(start, name) {
  const s = getState();
  const model = { preset: name, doc: null };
  const next = { ...s, model };
  const memory = dlcost.workloadToText({ memory_gib: start.memory_gib }, s.units).memory_gib ?? '';
  update(mergePatches(
    { model, workload: { overhead_bytes: '0' }, gpu: { name: '', memory } },
    taskPatch(start.task, next),
  ));
}

/** The language picker and the units toggle in the page's header. */
/** A layer picked in the graph or the timeline shows in the table; one picked in the graph
 *  or the table moves the timeline's slider to its event. @param {Page} page */
function wireLayerPicks(page) {
  onSelectLayer('table', ({ index }) => showLayerRow(byId('layers'), index));
  onSelectLayer('timeline', ({ index }) => {
    const name = page.lastReport?.layers[index]?.name;
    if (name) showTimelineLayer(byId('timeline-box'), name);
  });
}

function wireHeaderControls() {
  byId('lang').addEventListener('change', (e) => update({ lang: /** @type {HTMLSelectElement} */ (e.target).value }));
  /** @param {string} units */
  const setUnits = (units) => {
    const s = getState();
    if (s.units !== units) update(unitsPatch(s, units));
  };
  byId('units-gib').addEventListener('click', () => setUnits('GiB'));
  byId('units-gb').addEventListener('click', () => setUnits('GB'));
}

/** What the first result does not need, drawn once it is on the page: the layer editor and
 *  the GPU picker's list. @param {Page} page */
function finishStart(page) {
  page.editorOn = true;
  page.editor.render(getState());
  if (page.lastReport && !page.lastError) page.editor.showReport(page.lastReport);
  showError(page, page.lastError);
  page.form.listGpus();
}

/** The page, once the engine has loaded: its parts and the one render.
 *  @param {import('./types').PresetEntry[]} presets @param {() => Gpu[]} gpus
 *  @param {{task: string, memory_gib: number}} start the engine's starting point (schema.start) */
function createPage(presets, gpus, start) {
  /** @type {Page} */
  const page = {
    presets, gpus, start,
    lastReport: null,
    lastError: null,
    // The "Under load" section of a serving question: simulated when its button is pressed.
    underLoad: createUnderLoad(byId('under-load'), byId('verdict-load'), () => buildDocument(getState())),
    /** The state the page shows (top-level parts, compared by identity), null before the first. */
    shown: null,
    /** Whether the layer editor is drawn: from just after the first result (finishStart), which
     *  does not wait for its rows (a preset's list can be hundreds of rows of controls). */
    editorOn: false,
    editor: createModelEditor(
      byId('editor'),
      (doc) => update({ model: { preset: null, doc } }),
      (name) => dlcost.preset(name),
    ),
    form: createWorkloadForm(gpus, getState, update),
    advice: createAdvice(byId('advice'), getState, update),
    io: null,
    /** The insights module's promise, and the module once loaded: the render calls it directly
     *  (a sorted GPU table is redrawn before the click handler moves the focus to its new header). */
    insights: null,
    insightsLoaded: null,
  };
  page.io = createIo(page);
  wireHeaderControls();
  wireLayerPicks(page);

  return {
    /** @param {PageState} s */
    render: (s) => render(page, s),
    finishStart: () => finishStart(page),
    /** @param {{doc: any, ui: any}} link */
    openLinkState: (link) => openLinkState(gpus, link),
    /** @param {string} name */
    openDefault: (name) => openDefault(start, name),
    /** Estimates the state's document again and redraws (for tests and benchmarks). */
    recompute: () => estimate(page, getState()),
    lastReport: () => page.lastReport,
    lastError: () => page.lastError,
    /** Draws the open layer graph again; its milliseconds, or null while closed (benchmarks). */
    redrawLayerGraph: () => redrawLayerGraph(byId('graph-box')),
    /** Draws the open memory timeline again; its milliseconds, or null while closed. */
    redrawTimeline: () => redrawTimeline(/** @type {HTMLDetailsElement} */ (byId('timeline-box'))),
  };
}

/** The GPU count the form's text means, read by the engine's rule (1 when empty or unread).
 *  @param {string} text @returns {number} */
function gpuCount(text) {
  if (text.trim() === '') return 1;
  try {
    return Number(dlcost.workloadFromText({ gpus: text }).gpus ?? 1);
  } catch {
    return 1;
  }
}

/** The phone's one-line verdict: the fit's own figures (or the total without a capacity); a
 *  serving question's is its plan's users and speed.
 *  @param {Report} report @param {string} units */
function renderStickySummary(report, units) {
  const bar = byId('sticky-summary');
  const fit = report.gpu_fit ?? report.memory_fit ?? null;
  const plan = report.gpu_fit?.answered_by === 'serving' ? report.serving : null;
  const parts = [`${t('totalMemory')} ${formatBytes(report.memory.total, units)}`];
  if (plan) {
    const vars = { users: plan.users, context: plan.context, engine: plan.engine };
    parts.splice(0, 1, plan.fits ? t('servingFits', vars) : t('servingNoFit', vars));
    if (plan.speed) parts.push(`${t('servingPerUser')} ${formatSignificant(plan.speed.tokens_per_s_per_user, 3)}`);
  } else if (fit) {
    parts.unshift(fit.fits ? t('fits') : t('doesNotFit'));
    if (typeof fit.max_batch === 'number') parts.push(`${t('maxBatch')} ${fit.max_batch}`);
  }
  bar.textContent = parts.join(' · ');
  bar.className = `sticky-summary ${fit ? (fit.fits ? 'ok' : 'over') : ''}`;
  bar.hidden = false;
}

async function start() {
  const status = byId('global-error');
  status.textContent = t('engineLoading');
  try {
    await ready();
    // The stages of the first result (dlcost:compiled, :engine-ready, :presets-and-schema,
    // :first-result) as User Timing marks: bench/page_bench.mjs reports their medians.
    performance.mark('dlcost:engine-ready');
  } catch (e) {
    status.textContent = `${t('engineFailed')}: ${/** @type {Error} */ (e).message}`;
    delete document.body.dataset.starting;
    return;
  }
  status.textContent = '';
  const presets = dlcost.presets();
  /** @type {Gpu[] | null} */
  let gpuList = null;
  const gpus = () => (gpuList ??= dlcost.gpus());
  setPresetFamilies(presets);
  const schema = dlcost.workloadSchema();
  setSchema(schema);
  setTasks(schema.tasks);
  performance.mark('dlcost:presets-and-schema');

  const page = createPage(presets, gpus, schema.start);
  subscribe(page.render);
  const first = getState().model.preset || presets[0]?.name;
  const links = createShareLinks({
    currentState: () => linkState(buildDocument(), getState()),
    open: page.openLinkState,
    openDefault: () => page.openDefault(first),
    modelName: () => page.lastReport()?.model?.name ?? getState().model.preset ?? 'model',
  });
  // A first visit starts from the training task's settings for the first preset's kind.
  if (!links.openFromHash()) {
    if (first) page.openDefault(first);
    else page.render(getState());
  }
  // The first result is drawn: show the page (index.html's data-starting kept it hidden, so
  // that filling the form and the result moves nothing already on screen).
  delete document.body.dataset.starting;
  performance.mark('dlcost:first-result');
  // For tests and benchmarks: the page's own state, report and file reader (dist/js holds
  // bundles, not modules).
  globalThis.dlcostPage = {
    recompute: page.recompute,
    getState,
    lastReport: page.lastReport,
    lastError: page.lastError,
    redrawLayerGraph: page.redrawLayerGraph,
    redrawTimeline: page.redrawTimeline,
    document: () => buildDocument(getState()), // the document the last estimate read
    /** @param {Blob} file @param {(bytesRead: number) => void} [onRead] */
    inspectFile: async (file, onRead) => (await import('./model_file.js')).inspectFile(file, onRead),
  };
  // Once the first result is painted (the frame after it, then a task): the layer editor, the
  // GPU list and the offline worker (its install fetches every file of the build), then
  // "ready" for the tests, which drive the whole page.
  await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
  page.finishStart();
  registerOffline();
  document.body.dataset.ready = 'true';
}

start();
