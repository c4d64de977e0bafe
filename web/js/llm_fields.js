// The workload fields the form shows, from the engine's workload schema (dlcost.workloadSchema(),
// the table `dlcost schema --json` prints): each field's key, control, allowed values, default,
// labels and help in both languages, and when it applies. Nothing here lists a field or a
// value: a new optimizer or a new field in the engine appears on the page without edits.
// A field that does not apply is hidden and not sent; the numbers the user typed go to the
// engine as text, read by the same rule as the CLI's flags.
// @ts-check

/** @typedef {import('./types').SchemaField} SchemaField */
/** @typedef {import('./types').WorkloadSchema} WorkloadSchema */
/** @typedef {import('./types').WorkloadTexts} WorkloadTexts */
/** @typedef {import('./state.js').PageState} PageState */
/** Which of the schema's conditions hold, by name. */
/** @typedef {{[condition: string]: boolean}} FieldContext */

/** @type {SchemaField[]} */
let fields = [];

/** Stores the engine's schema (once, after the engine has loaded). @param {WorkloadSchema} schema */
export function setSchema(schema) {
  fields = schema.fields;
}

/** The GPU picker and the memory box (workload_form.js) stand for these. */
const PICKER_FIELDS = new Set(['gpu', 'memory_gib', 'memory_bytes']);

/** The schema's fields the form renders, in the schema's order. @returns {SchemaField[]} */
export function formFields() {
  return fields.filter((f) => !PICKER_FIELDS.has(f.key));
}

/** The element id of a field's control. @param {string} key */
export const fieldId = (key) => `wl-${key.replace(/_/g, '-')}`;

/** How a field is edited: 'select' (enums, small integer ranges), 'checkbox', or 'text'.
 *  @param {SchemaField} f @returns {string} */
export function controlKind(f) {
  if (f.type === 'enum') return 'select';
  if (f.type === 'boolean') return 'checkbox';
  if (f.type === 'integer' && f.max - f.min <= 7) return 'select';
  return 'text';
}

/** A select's values: the enum's names, or every integer of a small range.
 *  @param {SchemaField} f @returns {string[]} */
export function selectValues(f) {
  if (f.type === 'enum') return f.values.map((v) => v.name);
  return Array.from({ length: f.max - f.min + 1 }, (_, i) => String(f.min + i));
}

/** Fields of the main group start filled (the page's initial workload); the others start
 *  empty, meaning the engine's default, which their placeholder or first option names.
 *  @param {SchemaField} f */
export const isOptional = (f) => f.group !== 'workload';

/** The text of a field's default in `lang`: the value, or the note saying what it follows.
 *  @param {SchemaField} f @param {string} lang @returns {string} */
export function defaultText(f, lang) {
  if (f.default === null || f.default === undefined) return f.default_note?.[lang] ?? f.default_note?.en ?? '';
  return Array.isArray(f.default) ? f.default.join(',') : String(f.default);
}

// Preset names of the transformer families, told by the page once it has the engine's list.
const transformerPresets = new Set();

/** Remembers which presets are transformers: [{name, family}] from dlcost.presets().
 *  @param {{name: string, family: string}[]} presets */
export function setPresetFamilies(presets) {
  transformerPresets.clear();
  for (const p of presets) if (p.family === 'hf' || p.family === 'transformer') transformerPresets.add(p.name);
}

/** Whether the model the state names is read as a transformer (as config_json.cpp does).
 *  @param {PageState} s @returns {boolean} */
export function isTransformerModel(s) {
  const doc = s.model.doc;
  if (!doc) return transformerPresets.has(s.model.preset);
  if (typeof doc !== 'object' || Array.isArray(doc)) return false;
  if ('hf_config' in doc || 'transformer' in doc || 'model_type' in doc || 'architectures' in doc) return true;
  return typeof doc.preset === 'string' && transformerPresets.has(doc.preset);
}

/** Which of the schema's conditions hold for the state. @param {PageState} s @returns {FieldContext} */
export function fieldContext(s) {
  const w = s.workload;
  return {
    transformer: isTransformerModel(s),
    train: w.mode !== 'infer',
    infer: w.mode === 'infer',
    gpu: Boolean(s.gpu.name),
    lora: w.finetune === 'lora' || w.finetune === 'qlora',
    quantized: w.weight_dtype === 'int8' || w.weight_dtype === 'int4',
    serving: Boolean(w.engine) && w.engine !== 'none',
  };
}

/** Whether field `f` applies: every condition the schema lists for it holds.
 *  @param {SchemaField} f @param {FieldContext} ctx @returns {boolean} */
export const applies = (f, ctx) => f.when.every((c) => ctx[c]);

/** The applicable, filled fields as the text the user typed ({key: text}), with the GPU or
 *  the memory size: what the engine reads into the workload (dlcost.workloadFromText).
 *  @param {PageState} s @returns {WorkloadTexts} */
export function workloadTexts(s) {
  const ctx = fieldContext(s);
  /** @type {WorkloadTexts} */
  const out = {};
  for (const f of formFields()) {
    if (!applies(f, ctx)) continue;
    const v = s.workload[f.key];
    if (controlKind(f) === 'checkbox') {
      if (v === true) out[f.key] = 'true';
    } else if (typeof v === 'string' && v.trim() !== '') {
      // A number typed as its default is not sent, so the document stays as short as the
      // CLI's for the same flags.
      if (f.type !== 'integer' && f.type !== 'number') out[f.key] = v;
      else if (v.trim() !== String(f.default)) out[f.key] = v;
    }
  }
  if (s.gpu.name) out.gpu = s.gpu.name;  // a GPU preset: the engine knows its memory and rates
  else if (String(s.gpu.memory ?? '').trim() !== '') out[s.units === 'GiB' ? 'memory_gib' : 'memory_bytes'] = s.gpu.memory;
  return out;
}
