// The page's state in one place: what the user chose (model, workload, GPU, units, language)
// and the document the engine sees. Modules change it through update() and re-render from it.

import { EXTRA_DEFAULTS, extraWorkload } from './llm_fields.js';

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
  workload: {
    mode: 'train',
    batch: '32',
    dtype: 'fp32',
    optimizer: 'adam',
    overhead: '0',
    ...EXTRA_DEFAULTS,  // transformer and multi-GPU fields (llm_fields.js)
  },
  gpu: { name: '', memory: '24' },
  units: prefs.units === 'GB' ? 'GB' : 'GiB',
  lang: prefs.lang === 'zh' || prefs.lang === 'en' ? prefs.lang : defaultLang(),
  sort: { key: null, dir: 1 },
};

const listeners = new Set();

export function getState() {
  return state;
}

/** Merges `patch` (top-level keys replaced, nested objects merged one level) and notifies. */
export function update(patch, { silent = false } = {}) {
  for (const [key, value] of Object.entries(patch)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && state[key] &&
        typeof state[key] === 'object' && key !== 'model') {
      state[key] = { ...state[key], ...value };
    } else {
      state[key] = value;
    }
  }
  savePrefs(state);
  if (!silent) for (const fn of listeners) fn(state);
}

export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** A field's text as the JSON value the engine reads: a number when it is one, else the text
 *  itself, so that the engine (not the page) names what is wrong with it. */
export function numberOrText(text) {
  const trimmed = String(text).trim();
  if (trimmed !== '' && /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) {
    return Number(trimmed);
  }
  return trimmed;
}

/** The document the engine estimates: {model, workload}. */
export function buildDocument(s = state) {
  const model = s.model.doc ? s.model.doc : { preset: s.model.preset };
  const w = s.workload;
  const workload = {
    mode: w.mode,
    batch: numberOrText(w.batch),
    dtype: w.dtype,
    optimizer: w.optimizer,
  };
  const unitBytes = s.units === 'GB' ? 1e9 : 1073741824;
  const overhead = numberOrText(w.overhead);
  if (overhead !== '' && overhead !== 0) {
    workload.overhead_bytes = typeof overhead === 'number' ? Math.round(overhead * unitBytes) : overhead;
  }
  const memory = numberOrText(s.gpu.memory);
  if (s.gpu.name) {
    workload.gpu = s.gpu.name;  // a GPU preset: the engine knows its memory and rates
  } else if (memory !== '') {
    // GiB goes in as the CLI's --memory-gib does; GB as exact bytes.
    if (s.units === 'GiB') workload.memory_gib = memory;
    else workload.memory_bytes = typeof memory === 'number' ? Math.round(memory * 1e9) : memory;
  }
  // Transformer and multi-GPU fields, only those that apply to this model and GPU.
  Object.assign(workload, extraWorkload(s, numberOrText));
  return { model, workload };
}
