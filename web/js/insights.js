// Everything that explains and compares the current result: the engine's explanations of
// each figure, the "how memory works" panel, the model / GPU comparisons and the batch chart.
// main.js calls initInsights once and updateInsights after each report; the engine calls
// here (explain, compare, comparePresets) run a moment after the report is drawn, so typing
// in the form stays as fast as before. document.body.dataset.insights counts finished updates
// (tests wait on it).

import dlcost, { DlcostError } from './dlcost.js';
import { byId } from './dom.js';
import { getLang } from './i18n.js';
import './insights_i18n.js';
import { applyExplanations, initExplain } from './explain.js';
import { renderLearn } from './learn.js';
import { renderBatchChart, renderGpuCompare, renderModelChart } from './compare.js';

const DELAY_MS = 120;

let presets = [];
let loadPreset = () => {};
let timer = null;
let cnnRows = null;  // independent of the workload: computed once
let llmRows = null;  // {key, rows} for the last workload
let generation = 0;

/** @param options {presets: [{name, family}], loadPreset(name)} */
export function initInsights(options) {
  presets = options.presets;
  loadPreset = options.loadPreset;
  initExplain(byId('results'));
}

function familyOf(presetName, report) {
  const p = presets.find((x) => x.name === presetName);
  if (p) return p.family === 'cnn' ? 'cnn' : p.family;
  return report.transformer ? 'hf' : 'cnn';
}

function run(doc, report, units, presetName) {
  const unitsName = units === 'GB' ? 'decimal' : 'binary';
  try {
    applyExplanations(dlcost.explain(doc, getLang(), unitsName));
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
  }
  renderLearn();
  let tput = null;
  if (doc.workload && doc.workload.gpu) {
    try {
      tput = dlcost.sweepThroughput(doc, throughputBatches(report));
    } catch (e) {
      if (!(e instanceof DlcostError)) throw e;
    }
  }
  renderBatchChart(byId('batch-chart'), tput, units);

  const family = familyOf(presetName, report);
  try {
    if (family === 'cnn') {
      // batch 1: the engine's forward MACs are per step (B x per sample).
      if (!cnnRows) cnnRows = dlcost.comparePresets('cnn', { batch: 1 }).rows;
      renderModelChart(byId('compare-models'), cnnRows, 'cnn', presetName, units, loadPreset);
    } else {
      const key = JSON.stringify([family, doc.workload || {}]);
      if (!llmRows || llmRows.key !== key) llmRows = { key, rows: dlcost.comparePresets(family, doc.workload || {}).rows };
      const { rows } = llmRows;
      renderModelChart(byId('compare-models'), rows, 'llm', presetName, units, loadPreset);
    }
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
  }
  try {
    renderGpuCompare(byId('compare-gpus'), byId('gpu-chart'), dlcost.compare(doc), units);
  } catch (e) {
    if (!(e instanceof DlcostError)) throw e;
    byId('compare-gpus').replaceChildren();
    byId('gpu-chart').replaceChildren();
  }
  generation += 1;
  document.body.dataset.insights = String(generation);
}

/** Powers of two up to past the largest batch that fits (or 4 x the batch), plus the
 *  workload's batch and the largest batch: a log-scale batch axis, about 15 estimates. */
export function throughputBatches(report) {
  const max = typeof report.max_batch === 'number' ? report.max_batch : null;
  const top = Math.max(8, max ? Math.ceil(max * 1.25) : report.workload.batch * 4);
  const out = new Set([report.workload.batch]);
  for (let b = 1; b <= Math.min(top, 1 << 20); b *= 2) out.add(b);
  if (max && max >= 1) out.add(max);
  return [...out].sort((a, b) => a - b).slice(0, 64);
}

/** Schedules the explanations and comparisons for the report just drawn. */
export function updateInsights(doc, report, units, presetName) {
  clearTimeout(timer);
  timer = setTimeout(() => run(doc, report, units, presetName), DELAY_MS);
}
