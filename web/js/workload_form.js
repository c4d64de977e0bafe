// The workload and GPU fields: mode, batch, precision, optimizer, overhead, and the GPU
// picker. The picker lists the engine's GPU presets when it has them (dlcost.gpus()), plus a
// custom memory size; choosing a GPU fills the memory field with its capacity.

import { byId, h } from './dom.js';
import { t } from './i18n.js';
import { bytesPerUnit } from './units.js';
import { EXTRA_FIELDS, LLM_FIELDS, PARALLEL_FIELDS, fieldContext, fieldId } from './llm_fields.js';

const FIELDS = {
  mode: 'wl-mode',
  batch: 'wl-batch',
  dtype: 'wl-dtype',
  optimizer: 'wl-optimizer',
  overhead: 'wl-overhead',
};

/** Which field shows an error at a given JSON path of the document. */
const ERROR_FIELDS = [
  ['/workload/mode', 'wl-mode'],
  ['/workload/batch', 'wl-batch'],
  ['/workload/dtype', 'wl-dtype'],
  ['/workload/optimizer', 'wl-optimizer'],
  ['/workload/overhead_bytes', 'wl-overhead'],
  ['/workload/memory_gib', 'wl-memory'],
  ['/workload/memory_bytes', 'wl-memory'],
  ['/workload/gpu', 'wl-memory'],
  ...EXTRA_FIELDS.map((f) => [`/workload/${f.key}`, fieldId(f.key)]),
];

/** One transformer / multi-GPU field: label, control, hint of the default, error line. */
function extraField(f) {
  const id = fieldId(f.key);
  const label = h('label', { for: id, 'data-i18n': `f_${f.key}` }, t(`f_${f.key}`));
  const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  let control;
  if (f.kind === 'select') {
    control = h('select', { id, 'aria-describedby': `${id}-error` },
      f.options.map((v) => h('option', v === '' ? { value: '', 'data-i18n': 'engineDefault' } : { value: v },
        v === '' ? t('engineDefault') : v)));
  } else if (f.kind === 'checkbox') {
    control = h('input', { id, type: 'checkbox', 'aria-describedby': `${id}-error` });
    return h('div', { class: 'field check', 'data-field': f.key }, control, label, error);
  } else {
    control = h('input', {
      id, type: 'text', autocomplete: 'off', 'aria-describedby': `${id}-error`,
      inputmode: f.kind === 'number' ? 'decimal' : 'text', 'data-i18n-placeholder': `p_${f.key}`,
      placeholder: t(`p_${f.key}`),
    });
  }
  return h('div', { class: 'field', 'data-field': f.key }, label, control, error);
}

function trimNumber(x) {
  return String(Number(x.toPrecision(6)));
}

/**
 * @param gpus      [{name, memory_bytes, ...}] from the engine (may be empty)
 * @param getState  () => state
 * @param update    (patch) => void
 */
export function createWorkloadForm(gpus, getState, update) {
  const gpuSelect = byId('wl-gpu');
  const memory = byId('wl-memory');

  byId('wl-llm').replaceChildren(...LLM_FIELDS.map(extraField));
  byId('wl-parallel').replaceChildren(...PARALLEL_FIELDS.map(extraField));
  for (const f of EXTRA_FIELDS) {
    const el = byId(fieldId(f.key));
    if (f.kind === 'checkbox') el.addEventListener('change', () => update({ workload: { [f.key]: el.checked } }));
    else el.addEventListener(f.kind === 'select' ? 'change' : 'input', () => update({ workload: { [f.key]: el.value } }));
  }

  /** Shows the fields that apply to the model, mode and GPU; hides (and stops sending) the rest. */
  function refresh() {
    const ctx = fieldContext(getState());
    for (const f of EXTRA_FIELDS) byId(fieldId(f.key)).closest('.field').hidden = !f.when(ctx);
  }

  for (const [key, id] of Object.entries(FIELDS)) {
    const el = byId(id);
    const event = el.tagName === 'SELECT' ? 'change' : 'input';
    el.addEventListener(event, () => update({ workload: { [key]: el.value } }));
  }

  function fillGpus() {
    const current = getState().gpu.name;
    gpuSelect.replaceChildren(h('option', { value: '' }, t('customMemory')));
    for (const g of gpus) gpuSelect.append(h('option', { value: g.id ?? g.name }, g.name ?? g.id));
    gpuSelect.value = gpus.some((g) => (g.id ?? g.name) === current) ? current : '';
  }

  gpuSelect.addEventListener('change', () => {
    const g = gpus.find((x) => (x.id ?? x.name) === gpuSelect.value);
    if (g) {
      // The engine applies the GPU's own capacity, reserves and rates (workload.gpu); the
      // memory field shows its marketed size until the user types a custom one.
      const text = Number.isFinite(g.memory_bytes) ? trimNumber(g.memory_bytes / bytesPerUnit(getState().units)) : '';
      memory.value = text;
      update({ gpu: { name: g.id ?? g.name, memory: text } });
    } else {
      update({ gpu: { name: '' } });
    }
  });
  memory.addEventListener('input', () => {
    update({ gpu: { memory: memory.value, name: '' } });
    gpuSelect.value = '';
  });

  return {
    fillGpus,
    refresh,
    /** Writes the state into the fields (after a language/units change or an import). */
    sync() {
      const s = getState();
      for (const [key, id] of Object.entries(FIELDS)) byId(id).value = s.workload[key];
      for (const f of EXTRA_FIELDS) {
        const el = byId(fieldId(f.key));
        if (f.kind === 'checkbox') el.checked = s.workload[f.key] === true;
        else el.value = s.workload[f.key];
      }
      refresh();
      memory.value = s.gpu.memory;
      for (const el of document.querySelectorAll('[data-unit-label]')) el.textContent = s.units;
    },
    /** Converts the memory and overhead fields when the units change, keeping the bytes. */
    convertUnits(from, to) {
      const s = getState();
      const convert = (text) => {
        const v = Number(text);
        return text.trim() !== '' && Number.isFinite(v) ? trimNumber((v * bytesPerUnit(from)) / bytesPerUnit(to)) : text;
      };
      update({ gpu: { memory: convert(s.gpu.memory) }, workload: { overhead: convert(s.workload.overhead) } }, { silent: true });
    },
    /** Shows `error` next to the field its path names; returns whether one did. */
    showError(error) {
      const match = error && ERROR_FIELDS.find(([path]) => error.path === path || error.path.startsWith(`${path}/`));
      const target = match ? match[1] : null;
      for (const id of new Set(ERROR_FIELDS.map(([, id]) => id))) {
        byId(`${id}-error`).textContent = id === target ? error.message : '';
        byId(id).setAttribute('aria-invalid', id === target ? 'true' : 'false');
      }
      return target !== null;
    },
    /** Applies an imported document's workload to the fields. */
    applyWorkload(w) {
      if (!w || typeof w !== 'object') return;
      const patch = {};
      for (const key of ['mode', 'dtype', 'optimizer']) if (typeof w[key] === 'string') patch[key] = w[key];
      if (w.batch !== undefined) patch.batch = String(w.batch);
      for (const f of EXTRA_FIELDS) {
        if (!(f.key in w)) continue;
        const v = w[f.key];
        if (f.kind === 'checkbox') patch[f.key] = v === true;
        else patch[f.key] = Array.isArray(v) ? v.join(',') : String(v);
      }
      const units = getState().units;
      if (Number.isFinite(w.overhead_bytes)) patch.overhead = trimNumber(w.overhead_bytes / bytesPerUnit(units));
      const gpu = {};
      if (Number.isFinite(w.memory_gib)) gpu.memory = trimNumber((w.memory_gib * 1073741824) / bytesPerUnit(units));
      if (Number.isFinite(w.memory_bytes)) gpu.memory = trimNumber(w.memory_bytes / bytesPerUnit(units));
      update({ workload: patch, gpu }, { silent: true });
    },
  };
}
