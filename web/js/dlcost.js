// The only module that talks to the WebAssembly engine. It loads the engine once and turns
// the engine's structured errors ({error: {code, path, message}}) into a thrown DlcostError,
// so UI modules never see Embind or raw JSON text.
//
// The engine comes as two modules built from the same core (wasm/CMakeLists.txt): the small
// dlcost_wasm, all the first result needs (ready()), and dlcost_extra, loaded by loadExtra()
// when an explanation, comparison, layout, serving sweep or model file is first asked for.
// The calls EXTRA names go to the second; a caller awaits loadExtra() before making them.
// @ts-check

import { setNumberUnits } from './units.js';

/** @typedef {import('./types').Report} Report */
/** @typedef {import('./types').ReportWithSweep} ReportWithSweep */
/** @typedef {import('./types').Sweep} Sweep */
/** @typedef {import('./types').Comparison} Comparison */
/** @typedef {import('./types').Explain} Explain */
/** @typedef {import('./types').EngineError} EngineError */
/** @typedef {import('./types').Gpu} Gpu */
/** @typedef {import('./types').PresetEntry} PresetEntry */
/** @typedef {import('./types').WorkloadSchema} WorkloadSchema */
/** @typedef {import('./types').WorkloadTexts} WorkloadTexts */
/** @typedef {import('./types').WorkloadPatch} WorkloadPatch */
/** @typedef {import('./types').ComponentCheck} ComponentCheck */
/** @typedef {import('./types').MeasuredTimeline} MeasuredTimeline */
/** @typedef {import('./dlcost_wasm.mjs').EngineModule} EngineModule */
/** A document: a model and its workload, as an object or as JSON text. */
/** @typedef {object | string} Doc */

/** An input error from the engine: `code` (e.g. "missing_field"), `path` (JSON pointer into
 *  the document, "" for the whole document) and a message meant for the user. */
export class DlcostError extends Error {
  /** @param {EngineError} error */
  constructor({ code, path, message, message_zh }) {
    super(message);
    this.name = 'DlcostError';
    this.code = code;
    this.path = path;
    this.message_zh = message_zh;  // the engine's Chinese, where it writes one
  }
}

/** @type {Promise<EngineModule> | null} */
let enginePromise = null;

/** Loads the engine once; every call below awaits nothing after the first load.
 *  @param {object} [options] Emscripten module options (e.g. locateFile)
 *  @returns {Promise<EngineModule>} */
export function load(options = {}) {
  if (!enginePromise) {
    enginePromise = import('./dlcost_wasm.mjs').then(async (m) => m.default(await withCompiled(options)));
  }
  return enginePromise;
}

/** `options` with an instantiateWasm hook that instantiates the module boot.js began
 *  compiling when the page started (so the compile overlaps the page's own scripts); the
 *  options unchanged outside a page, or when that compile failed (the loader then fetches and
 *  compiles the module itself, and reports its own error).
 *  @param {object} options @returns {Promise<object>} */
async function withCompiled(options) {
  if (typeof document === 'undefined' || 'instantiateWasm' in options) return options;
  const compiled = await import('./boot.js').then((m) => m.engineModule).catch(() => null);
  if (!compiled) return options;
  performance.mark('dlcost:compiled');
  /** @type {WebAssembly.Module} */
  const module = compiled;
  return {
    ...options,
    /** @param {WebAssembly.Imports} imports @param {(i: WebAssembly.Instance, m: WebAssembly.Module) => void} done */
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(module, imports).then((instance) => done(instance, module));
      return {};
    },
  };
}

/** @type {EngineModule | null} */
let engine = null;

/** The bindings of the second module (wasm/bindings.cpp). */
const EXTRA = new Set(['explain', 'compare', 'layouts', 'timeline', 'links', 'comparePresets', 'sweepThroughput',
  'measuredTimeline', 'servingSweep', 'serveSim', 'loadTrace', 'inspectModelFile', 'inspectShardedCheckpoint', 'checkComponents', 'isHfConfig']);

/** @type {Promise<typeof api> | null} */
let extraPromise = null;
/** @type {EngineModule | null} */
let extra = null;

/** Loads the second module once (after ready()); resolves when its calls work.
 *  @param {object} [options] Emscripten module options
 *  @returns {Promise<typeof api>} */
export function loadExtra(options = {}) {
  if (!extraPromise) {
    extraPromise = import('./dlcost_extra.mjs')
      .then((m) => m.default(options))
      .then((m) => {
        extra = m;
        return api;
      })
      .catch((e) => {
        extraPromise = null;  // a failed fetch (offline before the first visit) may be retried
        throw e;
      });
  }
  return extraPromise;
}

/** Whether the second module's calls work now (loadExtra() has resolved). */
export const extraLoaded = () => extra !== null;

/** Resolves when the engine is ready; afterwards the synchronous calls below work.
 *  @param {object} [options]
 *  @returns {Promise<typeof api>} */
export async function ready(options) {
  engine = await load(options);
  setNumberUnits(call('numberUnits'));  // the formatter's unit tables are the engine's
  return api;
}

const utf8 = new TextDecoder();

/** Calls the binding `name` and parses its JSON; throws DlcostError for an engine error.
 *  @param {string} name
 *  @param {...unknown} args
 *  @returns {any} the parsed JSON (each api entry below names its type) */
function call(name, ...args) {
  const module = EXTRA.has(name) ? extra : engine;
  if (!module) throw new Error(`dlcost: call ${EXTRA.has(name) ? 'loadExtra' : 'ready'}() first`);
  const out = module[name](...args);
  // Hot-path calls return UTF-8 bytes (a view into wasm memory, decoded at once).
  const value = JSON.parse(typeof out === 'string' ? out : utf8.decode(out));
  if (value && typeof value === 'object' && !Array.isArray(value) && value.error) {
    throw new DlcostError(value.error);
  }
  return value;
}

/** @param {Doc} doc @returns {string} */
const toText = (doc) => (typeof doc === 'string' ? doc : JSON.stringify(doc));

const api = {
  /** The report for a document (object or JSON text): the CLI's --json for the same input.
   *  @param {Doc} doc @returns {Report} */
  estimate: (doc) => call('estimate', toText(doc)),
  /** Memory at each batch size from one estimate: {fixed, per_sample, points: [{batch, total}]}.
   *  @param {Doc} doc @param {number[]} batches @returns {Sweep} */
  sweepBatch: (doc, batches) => call('sweepBatch', toText(doc), JSON.stringify(batches)),
  /** One page update: {report, sweep} from one estimate; the sweep spans the chart's range
   *  (`points` batch sizes past the largest batch that fits, plus the marked ones).
   *  @param {Doc} doc @param {number} [points] @returns {ReportWithSweep} */
  estimateWithSweep: (doc, points = 25) => call('estimateWithSweep', toText(doc), points),
  /** [{name, family, source, source_zh}] @returns {PresetEntry[]} */
  presets: () => call('presets'),
  /** A preset's model document. @param {string} name @returns {object} */
  preset: (name) => call('preset', name),
  /** GPU presets once the engine provides them ([{name, memory_bytes, ...}]), else [].
   *  @returns {Gpu[]} */
  gpus: () => (engine && typeof engine.gpus === 'function' ? call('gpus') : []),
  /** The share-link fragment ("#d1....") for a state {doc, ui: {units, lang}}.
   *  @param {object} state @returns {string} */
  encodeLink: (state) => call('shareLinkEncode', JSON.stringify(state)).fragment,
  /** The state a fragment carries; throws DlcostError for a foreign, truncated or altered one.
   *  @param {string} fragment @returns {any} the state as it was encoded */
  decodeLink: (fragment) => call('shareLinkDecode', String(fragment)).state,
  /** {state, has_document}: the state and whether it carries a model document to open.
   *  @param {string} fragment @returns {{state: any, has_document: boolean}} */
  readLink: (fragment) => call('shareLinkDecode', String(fragment)),
  /** How each figure was computed: {explanations: [{id, title, formula, inputs, result, text}],
   *  dominant: [{quantity, layer_type, layers, share, names, text}]}; ids are JSON pointers
   *  into the report. lang "en" | "zh", units "binary" | "decimal".
   *  @param {Doc} doc @param {string} [lang] @param {string} [units] @returns {Explain} */
  explain: (doc, lang = 'en', units = 'binary') => call('explain', toText(doc), lang, units),
  /** Every GPU preset for the document's model and workload: {rows: [{gpu, name, fits, ...}]}.
   *  @param {Doc} doc @param {string} [sort] @returns {Comparison} */
  compare: (doc, sort = 'samples_per_s') => call('compare', toText(doc), sort),
  /** Every data x tensor x pipeline split of the document's GPUs, ranked by step time:
   *  {rows: [{dp, tp, pp, fits, per_gpu_bytes, step_s, mfu, step_time, run}], refused}.
   *  @param {Doc} doc @returns {any} */
  layouts: (doc) => call('layouts', toText(doc)),
  /** The step's memory over time (schema dlcost.timeline/1): {terms, points: [{op, phase,
   *  bytes}], peak: {index, op, phase, total, where}}, as `dlcost timeline --json`.
   *  @param {Doc} doc @returns {any} */
  timeline: (doc) => call('timeline', toText(doc)),
  /** The predicted timeline beside a PyTorch CUDA memory snapshot, as `dlcost timeline
   *  --measured FILE --json`: {...timeline, measured, comparison, not_modelled}. Call first
   *  with no bytes and the file's size: a file past the engine's limit throws DlcostError
   *  (too_large) before it is read; else the answer is {need_bytes}: read the whole file and
   *  call again with its bytes. device -1: the one with the most trace events.
   *  @param {Doc} doc @param {Uint8Array} bytes @param {number} fileSize @param {number} [device]
   *  @returns {MeasuredTimeline | {need_bytes: number}} */
  measuredTimeline: (doc, bytes, fileSize, device = -1) =>
    call('measuredTimeline', toText(doc), bytes, fileSize, device),
  /** The links between GPUs and nodes and the dated list prices: {links, prices}.
   *  @returns {any} */
  links: () => call('links'),
  /** Memory with samples_per_s and step_time_s at each batch on the chosen GPU.
   *  @param {Doc} doc @param {number[]} batches @returns {Sweep} */
  sweepThroughput: (doc, batches) => call('sweepThroughput', toText(doc), JSON.stringify(batches)),
  /** The workload schema (`dlcost schema --json`): {version, number_text, conditions,
   *  fields: [{key, type, flag, group, when, label, help, accepts, default, default_note?,
   *  min?, max?, max_exclusive?, unit?, values?: [{name, label?}]}]}. Constant: read once.
   *  @returns {WorkloadSchema} */
  workloadSchema: () => call('workloadSchema'),
  /** The unit tables of the engine's number formatting ({bytes: {GiB, GB}, count}); ready()
   *  hands them to units.js. @returns {any} */
  numberUnits: () => call('numberUnits'),
  /** Workload fields typed as text ({key: text}) as the workload object, read by the engine's
   *  one rule for text (the CLI's flags use it); a bare number in a byte field is in
   *  `byteUnit` ("GiB", "GB", "B"). Throws DlcostError at /workload/KEY.
   *  @param {WorkloadTexts} fields @param {string} [byteUnit] @returns {WorkloadPatch} */
  workloadFromText: (fields, byteUnit = 'B') =>
    call('workloadFromText', JSON.stringify({ fields, byte_unit: byteUnit })),
  /** The inverse, for a form: {key: text} with byte fields in `byteUnit`.
   *  @param {WorkloadPatch} workload @param {string} [byteUnit] @returns {WorkloadTexts} */
  workloadToText: (workload, byteUnit = 'B') =>
    call('workloadToText', JSON.stringify({ workload, byte_unit: byteUnit })),
  /** The serving plan at each (users, context): {engine, points: [{users, context, fits,
   *  max_users, device_bytes, host_bytes, speed?}]}; null keeps the workload's own.
   *  "auto" contexts: the engine's powers of two up to the model's context.
   *  @param {Doc} doc @param {number[] | null} [users] @param {number[] | 'auto' | null} [contexts]
   *  @returns {any} */
  servingSweep: (doc, users = null, contexts = null) =>
    call('servingSweep', toText(doc), JSON.stringify(users), JSON.stringify(contexts)),
  /** The engine under load (`dlcost serve-sim --json`): the document's "load" (rate,
   *  concurrency or trace; lengths; objectives) simulated request by request: {result: {ttft_s,
   *  itl_s, e2e_s: {mean, p50, p90, p99}, timeline, ...}, steady_state, capacity?}.
   *  @param {Doc} doc @returns {any} */
  serveSim: (doc) => call('serveSim', toText(doc)),
  /** A dropped trace file's text (CSV or JSON Lines) as {trace: [[arrival_s, prompt_tokens,
   *  output_tokens], ...]} for the document's "load"; bad rows throw DlcostError naming the row.
   *  @param {string} text @returns {any} */
  loadTrace: (text) => call('loadTrace', text),
  /** Each preset of `family` estimated with `workload`: {rows: [{name, params, macs_forward,
   *  memory_total, metrics?, error?}]}.
   *  @param {string} family @param {WorkloadPatch} [workload] @returns {any} */
  comparePresets: (family, workload = {}) => call('comparePresets', JSON.stringify({ family, workload })),
  /** A model file's summary from its first bytes (Uint8Array), or {need_bytes: N}: read the
   *  file's first N bytes and call again (see model_file.js).
   *  @param {Uint8Array} bytes @param {number} fileSize @returns {any} */
  inspectModelFile: (bytes, fileSize) => call('inspectModelFile', bytes, fileSize),
  /** A sharded checkpoint's exact summary from its index (text) and each shard's summary
   *  ({file: summary}).
   *  @param {string} indexText @param {object} shards @returns {any} */
  inspectShardedCheckpoint: (indexText, shards) =>
    call('inspectShardedCheckpoint', indexText, JSON.stringify(shards)),
  /** A checkpoint's tensors (a summary from inspectModelFile or inspectShardedCheckpoint)
   *  against the engine's components of the document's model, or null where no check applies
   *  (not a transformer, or no Hugging Face tensor sizes in the file). Only the document's
   *  model is read.
   *  @param {object} summary @param {Doc} doc @returns {ComponentCheck | null} */
  checkComponents: (summary, doc) => call('checkComponents', JSON.stringify(summary), toText(doc)),
  /** Whether the document is a Hugging Face config.json as a whole (model_type or
   *  architectures: dlcost::isHfConfig, the engine's and the CLI's test); text that is not JSON
   *  throws DlcostError. @param {Doc} doc @returns {boolean} */
  isHfConfig: (doc) => call('isHfConfig', toText(doc)),
};

export default api;
