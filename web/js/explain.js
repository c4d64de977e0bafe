// "How was this computed?": every figure the results show opens the engine's explanation of
// it (title, formula, inputs with values, result), matched by id = the JSON pointer of the
// figure in the report. The engine writes the texts (one source with the CLI's --explain);
// this module only finds the figures, renders with textContent and marks what dominates.
// Which explanation is open is the store's (state.explain): a click updates it and the
// page's render shows it (showExplanation).
// @ts-check

import { byId, h, replace } from './dom.js';
import { t } from './i18n.js';
import { getState, update } from './state.js';

/** JSON pointer of each total card (results.js renders them with data-total). */
const CARD_IDS = {
  totalParams: '/params/total',
  totalMacs: '/macs/forward',
  totalFlops: '/flops/total',  // the card shows forward + backward; armed only if explained
  totalMemory: '/memory/total',
};

/** Extra report lines (results.js: dd[data-key]) that have an explanation. */
const EXTRA_IDS = {
  step_time_s: '/gpu_fit/step_time_s',
  samples_per_s: '/gpu_fit/samples_per_s',
  tokens_per_s: '/gpu_fit/tokens_per_s',
  bound: '/gpu_fit/roofline/bound',
};

/** The engine's explanations of the report on the page, by id (the last explain() result). */
let byIdMap = new Map();
let panel = null;
/** @returns {string | null} */
const openId = () => getState().explain;

/** The figure elements on the page, each with the id of its explanation. */
function figures(root) {
  const out = [];
  for (const card of root.querySelectorAll('#totals .card[data-total]')) {
    const id = CARD_IDS[card.dataset.total];
    if (id) out.push([card.querySelector('.card-value'), id]);
  }
  for (const li of root.querySelectorAll('#breakdown .legend li[data-pointer]')) {
    out.push([li.querySelector('.legend-value'), li.dataset.pointer]);
  }
  const headroom = byId('headroom');
  if (headroom) out.push([headroom, headroom.dataset.pointer]);
  const maxBatch = byId('max-batch');
  if (maxBatch) out.push([maxBatch, maxBatch.dataset.pointer]);
  const stepTime = byId('step-time');
  if (stepTime) out.push([stepTime, stepTime.dataset.pointer]);
  for (const dd of root.querySelectorAll('#extras dd[data-key]')) {
    const id = EXTRA_IDS[dd.dataset.key];
    if (id) out.push([dd, id]);
  }
  return out;
}

/** Makes `el` open the explanation `id` (click, Enter or Space), when the engine has one. */
function arm(el, id) {
  if (!el || !byIdMap.has(id)) return;
  el.classList.add('explainable');
  el.dataset.explain = id;
  el.setAttribute('role', 'button');
  el.setAttribute('tabindex', '0');
  el.setAttribute('aria-controls', 'explain-panel');
  el.setAttribute('aria-expanded', String(openId() === id));
  el.title = t('explainOpen');
}

/** The id of a per-layer table cell: /layers/<report index>/<column>. */
function cellId(td) {
  const tr = td.closest('tr');
  if (!tr || tr.dataset.index === undefined || !td.dataset.col) return null;
  return `/layers/${tr.dataset.index}/${td.dataset.col}`;
}

function renderPanel() {
  if (!panel) return;
  const id = openId();
  const e = id ? byIdMap.get(id) : null;
  if (!e) {
    panel.hidden = true;
    replace(panel);
    return;
  }
  panel.hidden = false;
  const close = h('button', { type: 'button', class: 'explain-close', 'aria-label': t('explainClose') }, '×');
  close.addEventListener('click', () => toggle(null));
  const inputs = h('table', { class: 'explain-inputs' },
    h('caption', { class: 'visually-hidden' }, t('explainInputs')),
    h('tbody', {}, e.inputs.map((i) => h('tr', {},
      h('th', { scope: 'row', class: 'sym' }, i.symbol),
      h('td', {}, i.label),
      h('td', { class: 'num' }, i.value)))));
  replace(panel,
    close,
    h('h4', { class: 'explain-title' }, e.title),
    h('p', { class: 'explain-formula' }, h('code', {}, e.formula)),
    e.inputs.length ? inputs : null,
    h('p', { class: 'explain-result' }, `= ${e.result}`),
    h('p', { class: 'explain-text' }, e.text));
  panel.dataset.id = e.id;
}

function syncExpanded() {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-explain]'))) {
    el.setAttribute('aria-expanded', String(el.dataset.explain === openId()));
  }
}

/** Opens explanation `id` (null closes); the same id again closes it. */
export function toggle(id) {
  update({ explain: id && id !== openId() ? id : null });
}

/** Opens explanation `id` (kept open if it already is). */
export function openExplanation(id) {
  update({ explain: byIdMap.has(id) ? id : null });
}

/** Draws the state's open explanation (the page's render calls this when it changes). */
export function showExplanation() {
  renderPanel();
  syncExpanded();
}

/** Wires the results area once: clicks and keys on any armed figure or layer cell. */
export function initExplain(resultsRoot) {
  panel = byId('explain-panel');
  const activate = (target) => {
    const el = target.closest('[data-explain]');
    if (el) {
      toggle(el.dataset.explain);
      return true;
    }
    const td = target.closest('#layers td[data-col]');
    const id = td && cellId(td);
    if (id && byIdMap.has(id)) {
      td.dataset.explain = id;
      toggle(id);
      return true;
    }
    return false;
  };
  resultsRoot.addEventListener('click', (ev) => {
    if (ev.target.closest('#explain-panel')) return;
    activate(ev.target);
  });
  resultsRoot.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && openId()) {
      toggle(null);
      return;
    }
    if ((ev.key === 'Enter' || ev.key === ' ') && !ev.target.closest('button, input, select, textarea')) {
      if (activate(ev.target)) ev.preventDefault();
    }
  });
  // The per-layer table reuses its rows while scrolling: its cells are armed as they appear.
  const layers = byId('layers');
  new MutationObserver(() => armLayerCells(layers)).observe(layers, { childList: true, subtree: true });
}

function armLayerCells(layers) {
  for (const td of layers.querySelectorAll('td[data-col]')) {
    const id = cellId(td);
    if (id && byIdMap.has(id)) {
      if (td.dataset.explain !== id) {
        td.dataset.explain = id;
        td.setAttribute('aria-expanded', String(id === openId()));
      }
      if (td.getAttribute('tabindex') !== '0') {
        td.setAttribute('tabindex', '0');
        td.setAttribute('role', 'button');
        td.setAttribute('aria-controls', 'explain-panel');
        td.classList.add('explainable');
      }
    }
  }
  markDominantRows(layers);
}

let dominantNames = { params: new Set(), macs: new Set(), activation_bytes: new Set() };

function markDominantRows(layers) {
  for (const tr of layers.querySelectorAll('tbody tr[data-name]')) {
    const keys = Object.keys(dominantNames).filter((k) => dominantNames[k].has(tr.dataset.name));
    const value = keys.join(' ');
    if ((tr.dataset.dominant || '') !== value) {
      if (value) tr.dataset.dominant = value;
      else delete tr.dataset.dominant;
    }
    for (const td of tr.querySelectorAll('td[data-col]')) {
      td.classList.toggle('dominant', keys.includes(td.dataset.col));
    }
  }
}

/**
 * Applies one explainDocument result to the freshly rendered results: arms every figure,
 * re-renders an open explanation (new numbers, new language), shows the dominant sentences
 * and marks the dominant layers and the largest memory line.
 */
export function applyExplanations(result) {
  byIdMap = new Map(result.explanations.map((e) => [e.id, e]));
  const root = byId('results-body');
  for (const [el, id] of figures(root)) arm(el, id);
  // An explanation the new report has not (a figure that went away) closes.
  if (openId() && !byIdMap.has(openId())) update({ explain: null });
  renderPanel();

  dominantNames = { params: new Set(), macs: new Set(), activation_bytes: new Set() };
  const sentences = [];
  let memoryLine = null;
  for (const d of result.dominant) {
    sentences.push(d);
    if (d.quantity === 'memory') memoryLine = d.layer_type;
    else if (dominantNames[d.quantity]) for (const n of d.names) dominantNames[d.quantity].add(n);
  }
  const box = byId('dominant');
  if (box) {
    replace(box, sentences.length
      ? h('ul', { class: 'dominant-list' }, sentences.map((d) => {
        const line = d.quantity === 'memory' ? /** @type {HTMLElement | null} */ (document.querySelector(`#breakdown .legend li[data-key="${CSS.escape(d.layer_type)}"]`)) : null;
        const target = line ? line.dataset.pointer : CARD_IDS[{ params: 'totalParams', macs: 'totalMacs', activation_bytes: 'totalMemory' }[d.quantity]];
        const li = h('li', { dataset: { quantity: d.quantity } }, d.text);
        if (target && byIdMap.has(target)) arm(li, target);
        return li;
      }))
      : null);
  }
  for (const li of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('#breakdown .legend li[data-key]'))) {
    li.classList.toggle('dominant', li.dataset.key === memoryLine);
  }
  const layers = byId('layers');
  armLayerCells(layers);
  syncExpanded();
}

/** Closes the panel (e.g. when the model changes). */
export function closeExplanation() {
  toggle(null);
}
