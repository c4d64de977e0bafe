// The transformer and multi-GPU workload fields (docs/transformers.md, docs/gpu-fit.md): one
// table says each field's workload key, control, and when it applies. A field that does not
// apply is hidden and not sent, so the document holds exactly what the CLI's flags would put
// in it: numbers as numbers, `sp` as true, `lora_targets` as the comma-separated text.

const DTYPES = ['fp32', 'fp16', 'bf16', 'fp8', 'int8', 'int4'];

/**
 * key: the workload field; kind: number | select | text | checkbox; options: select values
 * ('' = the engine's default, not sent); when(ctx): whether it applies, where ctx is
 * {transformer, train, infer, gpu, lora, quantized}.
 */
export const LLM_FIELDS = [
  { key: 'seq_len', kind: 'number', when: (c) => c.transformer },
  { key: 'prompt_tokens', kind: 'number', when: (c) => c.transformer && c.infer },
  { key: 'generated_tokens', kind: 'number', when: (c) => c.transformer && c.infer },
  { key: 'weight_dtype', kind: 'select', options: ['', ...DTYPES], when: (c) => c.transformer },
  { key: 'quant_group_size', kind: 'number', when: (c) => c.transformer && c.quantized },
  { key: 'kv_dtype', kind: 'select', options: ['', ...DTYPES], when: (c) => c.transformer && c.infer },
  { key: 'attention', kind: 'select', options: ['', 'flash', 'eager'], when: (c) => c.transformer },
  { key: 'recompute', kind: 'select', options: ['', 'none', 'selective', 'full'], when: (c) => c.transformer && c.train },
  { key: 'finetune', kind: 'select', options: ['', 'none', 'full', 'lora', 'qlora'], when: (c) => c.transformer && c.train },
  { key: 'lora_rank', kind: 'number', when: (c) => c.transformer && c.train && c.lora },
  { key: 'lora_alpha', kind: 'number', when: (c) => c.transformer && c.train && c.lora },
  { key: 'lora_targets', kind: 'text', when: (c) => c.transformer && c.train && c.lora },
  { key: 'grad_accum', kind: 'number', when: (c) => c.transformer && c.train },
];

export const PARALLEL_FIELDS = [
  { key: 'gpus', kind: 'number', when: (c) => c.gpu },
  { key: 'zero', kind: 'select', options: ['', '0', '1', '2', '3'], when: (c) => c.gpu && c.train },
  { key: 'tp', kind: 'number', when: (c) => c.gpu },
  { key: 'pp', kind: 'number', when: (c) => c.gpu },
  { key: 'sp', kind: 'checkbox', when: (c) => c.gpu },
  { key: 'microbatches', kind: 'number', when: (c) => c.gpu },
  { key: 'utilization', kind: 'number', when: (c) => c.gpu },
];

export const EXTRA_FIELDS = [...LLM_FIELDS, ...PARALLEL_FIELDS];

/** The element id of a field's control. */
export const fieldId = (key) => `wl-${key.replace(/_/g, '-')}`;

/** State defaults: empty = the engine's default (not sent). */
export const EXTRA_DEFAULTS = Object.fromEntries(EXTRA_FIELDS.map((f) => [f.key, f.kind === 'checkbox' ? false : '']));

// Preset names of the transformer families, told by the page once it has the engine's list.
const transformerPresets = new Set();

/** Remembers which presets are transformers: [{name, family}] from dlcost.presets(). */
export function setPresetFamilies(presets) {
  transformerPresets.clear();
  for (const p of presets) if (p.family === 'hf' || p.family === 'transformer') transformerPresets.add(p.name);
}

/** Whether the model the state names is read as a transformer (as config_json.cpp does). */
export function isTransformerModel(s) {
  const doc = s.model.doc;
  if (!doc) return transformerPresets.has(s.model.preset);
  if (typeof doc !== 'object' || Array.isArray(doc)) return false;
  if ('hf_config' in doc || 'transformer' in doc || 'model_type' in doc || 'architectures' in doc) return true;
  return typeof doc.preset === 'string' && transformerPresets.has(doc.preset);
}

/** When each field applies, from the state. */
export function fieldContext(s) {
  const w = s.workload;
  return {
    transformer: isTransformerModel(s),
    train: w.mode !== 'infer',
    infer: w.mode === 'infer',
    gpu: Boolean(s.gpu.name),
    lora: w.finetune === 'lora' || w.finetune === 'qlora',
    quantized: w.weight_dtype === 'int8' || w.weight_dtype === 'int4',
  };
}

/** The applicable, filled fields as workload JSON, as the CLI's flags would give them. */
export function extraWorkload(s, toValue) {
  const ctx = fieldContext(s);
  const out = {};
  for (const f of EXTRA_FIELDS) {
    if (!f.when(ctx)) continue;
    const v = s.workload[f.key];
    if (f.kind === 'checkbox') {
      if (v === true) out[f.key] = true;
    } else if (typeof v === 'string' && v.trim() !== '') {
      // Selects and lora_targets are text; number fields go through the page's number rule so
      // the engine, not the page, names what is wrong with text typed into them.
      out[f.key] = f.kind === 'number' || f.key === 'zero' ? toValue(v) : v.trim();
    }
  }
  return out;
}
