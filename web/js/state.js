// The page's store: every piece of UI state in one object (what the user chose: model,
// workload, GPU, units, language; how the results are shown: the layer table's and the GPU
// table's sort, the open explanation). Only this module writes it: modules call update(patch)
// and main.js's one render, subscribed here, redraws the page from the new state. Each user
// action is one update (one patch), so each action is one render and one engine call; there
// is no quiet update followed by a manual redraw.
// @ts-check

import dlcost, { DlcostError } from './dlcost.js';
import { workloadTexts } from './llm_fields.js';

/** @typedef {import('./types').WorkloadPatch} WorkloadPatch */

const STORAGE_KEY = 'dlcost.prefs';

/** @returns {{lang?: unknown, units?: unknown}} */
function loadPrefs() {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(STORAGE_KEY) || '{}') || {};
  } catch {
    return {};
  }
}

/** @param {{lang: string, units: string}} s */
function savePrefs(s) {
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, JSON.stringify({ lang: s.lang, units: s.units }));
  } catch {
    // Private mode or storage disabled: preferences simply are not remembered.
  }
}

function defaultLang() {
  const nav = globalThis.navigator?.language || 'en';
  return nav.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

/** The state the page opens with (before a link or the first preset is applied). */
function initialState() {
  const prefs = loadPrefs();
  return {
    /** {preset: name} while a preset is untouched; {doc: model document} once edited or custom.
     *  The document is never changed in place: an edit replaces it. */
    /** @type {{preset: string | null, doc: any}} */
    model: { preset: 'alexnet', doc: null },
    /** The form's text, keyed by the workload schema's field keys; absent or '' = the
     *  engine's default; a checkbox's field holds true or false. */
    /** @type {{[key: string]: string | boolean}} */
    workload: {
      mode: 'train',
      batch: '32',
      overhead_bytes: '0',
    },
    /** A GPU preset's id (name), or '' and a memory size in `units` (memory). */
    gpu: { name: '', memory: '24' },
    units: prefs.units === 'GB' ? 'GB' : 'GiB',
    lang: prefs.lang === 'zh' || prefs.lang === 'en' ? String(prefs.lang) : defaultLang(),
    /** The layer table's sort (key null: the report's order). */
    /** @type {{key: string | null, dir: number}} */
    sort: { key: null, dir: 1 },
    /** The GPU comparison's sort: the best value per dollar first. */
    /** @type {{key: string, dir: number}} */
    gpuSort: { key: 'samples_per_s_per_1000usd', dir: -1 },
    /** The id (the figure's JSON pointer in the report) of the open explanation, or null. */
    /** @type {string | null} */
    explain: null,
    /** The workload and GPU before each applied advice, the last first to restore (Undo). */
    /** @type {{workload: {[key: string]: string | boolean}, gpu: {name: string, memory: string}}[]} */
    undo: [],
    /** Workload fields typed by hand since their task was applied: a new task keeps them. */
    /** @type {{[key: string]: boolean}} */
    typed: {},
    /** Engine results kept between renders: the model comparison's rows (insights.js). */
    /** @type {{cnnRows?: object[] | null, llmRows?: {key: string, rows: object[]} | null}} */
    cache: { cnnRows: null, llmRows: null },
  };
}

const state = initialState();

/** The page's state, as initialState() declares it. */
/** @typedef {ReturnType<typeof initialState>} PageState */
/** What update() merges: top-level keys, each nested object merged one level. */
/** @typedef {{[K in keyof PageState]?: PageState[K] extends object ? Partial<PageState[K]> | null : PageState[K]}} StatePatch */

/** @type {Set<(state: PageState) => void>} */
const listeners = new Set();
/** An update made while the subscribers run (a render that corrects the state) is drawn by
 *  one more pass once they return, not by a render nested in a render. */
let notifying = false;
let again = false;

/** The current state: read it, never write it (update() does). @returns {Readonly<PageState>} */
export function getState() {
  return state;
}

/** Merges `patch` and notifies the subscribers (main.js's render) once. A nested object
 *  (workload, gpu, sort, ...) is merged one level into a new object, so a changed part is a
 *  new object and an unchanged one keeps its identity (the render compares them); `model`
 *  is always replaced whole. `replace`: nested objects are replaced too (an undo restores
 *  them as they were).
 *  @param {StatePatch} patch @param {{replace?: boolean}} [opts] */
export function update(patch, { replace = false } = {}) {
  const s = /** @type {{[key: string]: any}} */ (state);
  for (const [key, value] of Object.entries(patch)) {
    const merge = !replace && key !== 'model' && value && typeof value === 'object' && !Array.isArray(value) &&
      s[key] && typeof s[key] === 'object';
    s[key] = merge ? { ...s[key], ...value } : value;
  }
  // Storage is written when a preference changes, not at every keystroke.
  if ('lang' in patch || 'units' in patch) savePrefs(state);
  if (notifying) {
    again = true;
    return;
  }
  notifying = true;
  try {
    do {
      again = false;
      for (const fn of listeners) fn(state);
    } while (again);
  } finally {
    notifying = false;
  }
}

/** @param {(state: PageState) => void} fn @returns {() => boolean} unsubscribe */
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The document the engine estimates: {model, workload}. The workload's fields go to the
 *  engine as the text the user typed and come back as JSON, read by the rule the CLI's flags
 *  follow. `strict`: a field the engine cannot read throws its DlcostError (at
 *  /workload/KEY); otherwise such a field is kept as its text, for links and exports. */
/** The model as the engine reads it: the edited document, or the untouched preset by name.
 *  @param {PageState} [s] */
export function modelDocument(s = state) {
  return s.model.doc ? s.model.doc : { preset: s.model.preset };
}

/** @param {PageState} [s] @param {{strict?: boolean}} [opts]
 *  @returns {{model: object, workload: WorkloadPatch}} */
export function buildDocument(s = state, { strict = false } = {}) {
  const model = modelDocument(s);
  const texts = workloadTexts(s);
  try {
    return { model, workload: dlcost.workloadFromText(texts, s.units) };
  } catch (e) {
    if (strict || !(e instanceof DlcostError)) throw e;
  }
  const workload = {};
  for (const [key, text] of Object.entries(texts)) {
    try {
      Object.assign(workload, dlcost.workloadFromText({ [key]: text }, s.units));
    } catch {
      workload[key] = text;
    }
  }
  return { model, workload };
}
