// Everything that explains and compares the current result: the engine's explanations of
// each figure, the "how memory works" panel, the model / GPU comparisons and the batch chart.
// main.js calls initInsights once and updateInsights after each report; the engine calls
// here (explain, compare, comparePresets) run a moment after the report is drawn, so typing
// in the form stays as fast as before. document.body.dataset.insights counts finished updates
// and dataset.insightsPending says whether a newer report still waits for its update (tests
// wait for both: a finished update can be one scheduled for the report before). These calls live in the engine's second module (dlcost.loadExtra), which
// the first update loads, after the first result is on the page.
// @ts-check

import dlcost, { DlcostError, extraLoaded, loadExtra } from './dlcost.js';
import { byId } from './dom.js';
import { getLang } from './i18n.js';
import './insights_i18n.js';
import { applyExplanations, initExplain, showExplanation } from './explain.js';
import { renderLearn } from './learn.js';
import { gpuSortSpec, renderBatchChart, renderGpuCompare, renderModelChart } from './compare.js';
import { getState, update } from './state.js';

const DELAY_MS = 250;

/** @type {import('./types').PresetEntry[]} */
let presets = [];
/** @type {(name: string) => void} */
let loadPreset = () => {};
let timer = null;
let generation = 0;
let last = null;  // {doc, report, units, presetName} of the report on the page

/** @param {{presets: import('./types').PresetEntry[], loadPreset: (name: string) => void}} options */
export function initInsights(options) {
  presets = options.presets;
  loadPreset = options.loadPreset;
  initExplain(byId('results'));
  for (const box of /** @type {NodeListOf<HTMLDetailsElement>} */ (document.querySelectorAll('details.insight'))) {
    box.addEventListener('toggle', () => {
      if (!box.open || !last) return;
      loadExtra().then(() => {
        renderViews(box.dataset.view);
        renderLearn();
        finished();
      }, () => {});  // offline before the first visit: the section stays empty
    });
  }
}

function familyOf(presetName, report) {
  const p = presets.find((x) => x.name === presetName);
  if (p) return p.family === 'cnn' ? 'cnn' : p.family;
  return report.transformer ? 'hf' : 'cnn';
}

/** @param {string} id */
const isOpen = (id) => Boolean(/** @type {HTMLDetailsElement | null} */ (byId(id))?.open);

function renderBatch(doc, report, units) {
  let tput = null;
  if (doc.workload && doc.workload.gpu) {
    try {
      tput = dlcost.sweepThroughput(doc, null);  // null: the engine picks the chart's batches
    } catch (e) {
      if (!(e instanceof DlcostError)) throw e;
    }
  }
  renderBatchChart(byId('batch-chart'), tput, units);
}

function renderModels(doc, report, units, presetName) {
  const family = familyOf(presetName, report);
  // The engine's rows are kept in the store's cache: the CNN rows do not depend on the
  // workload (computed once), the transformer rows are kept for the last family and workload.
  const { cache } = getState();
  try {
    if (family === 'cnn') {
      // batch 1: the engine's forward MACs are per step (B x per sample).
      const rows = cache.cnnRows ?? dlcost.comparePresets('cnn', { batch: 1 }).rows;
      if (rows !== cache.cnnRows) update({ cache: { cnnRows: rows } });
      renderModelChart(byId('compare-models'), rows, 'cnn', presetName, units, loadPreset);
    } else {
      const key = JSON.stringify([family, doc.workload || {}]);
      let llm = cache.llmRows;
      if (!llm || llm.key !== key) {
        llm = { key, rows: dlcost.comparePresets(family, doc.workload || {}).rows };
        update({ cache: { llmRows: llm } });
      }
      renderModelChart(byId('compare-models'), llm.rows, 'llm', presetName, units, loadPreset);
    }
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
  }
}

function renderGpus(doc, units) {
  try {
    renderGpuCompare(byId('compare-gpus'), byId('gpu-chart'), dlcost.compare(doc, gpuSortSpec(getState().gpuSort)), units, getState().gpuSort,
      (gpuSort) => update({ gpuSort }));
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
    byId('compare-gpus').replaceChildren();
    byId('gpu-chart').replaceChildren();
  }
}

/** The views whose section is open; `only` limits it to one (a section just opened). */
function renderViews(only) {
  if (!last) return;
  const { doc, report, units, presetName } = last;
  if ((!only || only === 'batch') && isOpen('batch-box')) renderBatch(doc, report, units);
  if ((!only || only === 'models') && isOpen('models-box')) renderModels(doc, report, units, presetName);
  if ((!only || only === 'gpus') && isOpen('gpus-box')) renderGpus(doc, units);
}

function finished() {
  generation += 1;
  document.body.dataset.insights = String(generation);
  document.body.dataset.insightsPending = String(timer !== null);
}

function run() {
  timer = null;
  if (!extraLoaded()) {
    loadExtra().then(run, () => {});  // offline before the first visit: no explanations
    return;
  }
  const { doc, units } = last;
  try {
    applyExplanations(dlcost.explain(doc, getLang(), units === 'GB' ? 'decimal' : 'binary'));
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
  }
  renderViews();
  renderLearn();
  finished();
}

// The page's render reaches the explanation panel through this module (a chunk loaded after
// the first result).
export { showExplanation };

/** Draws the GPU table again in the state's sort (the page's render calls this when it changes). */
export function redrawGpus() {
  if (last && extraLoaded()) renderViews('gpus');
}

/** Schedules the explanations and comparisons for the report just drawn. */
export function updateInsights(doc, report, units, presetName) {
  last = { doc, report, units, presetName };
  clearTimeout(timer);
  timer = setTimeout(run, DELAY_MS);
  document.body.dataset.insightsPending = 'true';
}
