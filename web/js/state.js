// The page's state in one place: what the user chose (model, workload, GPU, units, language)
// and the document the engine sees. Modules change it through update() and re-render from it.
// @ts-check

import dlcost, { DlcostError } from './dlcost.js';
import { workloadTexts } from './llm_fields.js';

/** @typedef {import('./types').WorkloadPatch} WorkloadPatch */

const STORAGE_KEY = 'dlcost.prefs';

function loadPrefs() {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(STORAGE_KEY) || '{}') || {};
  } catch {
    return {};
  }
}

function savePrefs(state) {
  try {
    globalThis.localStorage?.setItem(
      STORAGE_KEY,
      JSON.stringify({ lang: state.lang, units: state.units }),
    );
  } catch {
    // Private mode or storage disabled: preferences simply are not remembered.
  }
}

function defaultLang() {
  const nav = globalThis.navigator?.language || 'en';
  return nav.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

const prefs = loadPrefs();

const state = {
  /** {preset: name} while a preset is untouched; {doc: model document} once edited or custom */
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
  lang: prefs.lang === 'zh' || prefs.lang === 'en' ? prefs.lang : defaultLang(),
  /** @type {{key: string | null, dir: number}} */
  sort: { key: null, dir: 1 },
};

/** The page's state, as `state` above declares it. */
/** @typedef {typeof state} PageState */
/** What update() merges: top-level keys, each nested object merged one level. */
/** @typedef {{[K in keyof PageState]?: Partial<PageState[K]>}} StatePatch */

const listeners = new Set();

export function getState() {
  return state;
}

/** Merges `patch` (top-level keys replaced, nested objects merged one level; `replace`:
 *  nested objects replaced too, as an undo restores them) and notifies. */
/** @param {StatePatch} patch @param {{silent?: boolean, replace?: boolean}} [opts] */
export function update(patch, { silent = false, replace = false } = {}) {
  for (const [key, value] of Object.entries(patch)) {
    if (!replace && value && typeof value === 'object' && !Array.isArray(value) && state[key] &&
        typeof state[key] === 'object' && key !== 'model') {
      state[key] = { ...state[key], ...value };
    } else {
      state[key] = value;
    }
  }
  savePrefs(state);
  if (!silent) for (const fn of listeners) fn(state);
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
/** @param {PageState} [s] @param {{strict?: boolean}} [opts]
 *  @returns {{model: object, workload: WorkloadPatch}} */
export function buildDocument(s = state, { strict = false } = {}) {
  const model = s.model.doc ? s.model.doc : { preset: s.model.preset };
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
