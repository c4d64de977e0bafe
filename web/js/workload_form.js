// The workload form, rendered from the engine's workload schema (llm_fields.js): every field's
// control, its values, default and help in the page's language. Plus the GPU picker, which
// lists the engine's GPU presets (dlcost.gpus()) and a custom memory size.
// The form keeps the text the user typed; the engine reads it (state.js buildDocument).
// Every control writes to the store (update); render(state) writes the state back into the
// controls, so the form never holds a value of its own.
// @ts-check

import dlcost from './dlcost.js';
import { byId, h } from './dom.js';
import { t } from './i18n.js';
import {
  applies, controlKind, defaultText, fieldContext, fieldId, formFields, isOptional, selectValues,
} from './llm_fields.js';
import { currentTask, modelKind, taskEntry, taskTexts, tasksFor } from './tasks.js';

/** @typedef {import('./types').SchemaField} SchemaField */
/** @typedef {import('./types').Gpu} Gpu */
/** @typedef {import('./types').EngineError} EngineError */
/** @typedef {import('./types').WorkloadPatch} WorkloadPatch */
/** @typedef {import('./state.js').PageState} PageState */
/** A form control: a text box, checkbox or select. */
/** @typedef {HTMLInputElement | HTMLSelectElement} Control */

/** The control with element id `id`. @param {string} id */
const controlById = (id) => /** @type {Control} */ (byId(id));

/** The container each schema group renders into. */
const GROUP_CONTAINERS = { workload: 'wl-base', transformer: 'wl-llm', parallel: 'wl-parallel' };

/** Fields outside the form's own controls whose errors show at the memory box. */
const MEMORY_PATHS = ['/workload/memory_gib', '/workload/memory_bytes', '/workload/gpu'];

/** The keys a spinbutton steps by: ArrowUp/ArrowDown one, PageUp/PageDown twice or half. */
const STEPS = /** @type {{[key: string]: (v: number) => number}} */ ({
  ArrowUp: (v) => v + 1,
  ArrowDown: (v) => v - 1,
  PageUp: (v) => v * 2,
  PageDown: (v) => Math.floor(v / 2),
});

/** Steps an integer field's text as a spinbutton does, within the schema's range; an empty
 *  field steps from the engine's default. Text that is not a whole number is left alone.
 *  @param {SchemaField} f @param {HTMLInputElement} input @param {KeyboardEvent} e
 *  @param {(key: string, value: string) => void} onChange */
function stepKey(f, input, e, onChange) {
  const step = STEPS[e.key];
  if (!step || e.altKey || e.ctrlKey || e.metaKey) return;
  const text = input.value.trim();
  const from = text === '' ? Number(f.default ?? f.min ?? 0) : Number(text);
  if (!Number.isInteger(from)) return;
  e.preventDefault();
  let next = step(from);
  if (typeof f.min === 'number') next = Math.max(next, f.min);
  if (typeof f.max === 'number') next = Math.min(next, f.max_exclusive ? f.max - 1 : f.max);
  input.value = String(next);
  onChange(f.key, input.value);
}

/** One field: label (its help as the tooltip), control, unit, error line.
 *  @param {SchemaField} f @param {string} lang
 *  @param {(key: string, value: string | boolean) => void} onChange
 *  @returns {HTMLElement} */
function renderField(f, lang, onChange) {
  const id = fieldId(f.key);
  const label = h('label', { for: id, title: f.help[lang] ?? f.help.en }, f.label[lang] ?? f.label.en);
  const error = h('p', { class: 'field-error', id: `${id}-error`, role: 'alert' });
  const kind = controlKind(f);
  const describe = { 'aria-describedby': `${id}-error` };
  if (kind === 'checkbox') {
    const box = h('input', { id, type: 'checkbox', ...describe });
    box.addEventListener('change', () => onChange(f.key, box.checked));
    return h('div', { class: 'field check', 'data-field': f.key }, box, label, error);
  }
  /** @type {Control} */
  let control;
  if (kind === 'select') {
    const labels = new Map((f.values ?? []).map((v) => [v.name, v.label?.[lang] ?? v.label?.en ?? v.name]));
    const options = selectValues(f).map((v) => h('option', { value: v }, labels.get(v) ?? v));
    if (isOptional(f)) {
      const text = defaultText(f, lang);
      options.unshift(h('option', { value: '' }, text ? `${t('engineDefault')} (${text})` : t('engineDefault')));
    }
    control = h('select', { id, ...describe }, options);
    control.addEventListener('change', () => onChange(f.key, control.value));
  } else {
    const numeric = f.type === 'integer' || f.type === 'number';
    control = h('input', {
      id, type: 'text', autocomplete: 'off', ...describe,
      inputmode: numeric ? 'decimal' : 'text',
      placeholder: `${t('engineDefault')}: ${defaultText(f, lang)}`,
    });
    control.addEventListener('input', () => onChange(f.key, control.value));
    if (f.type === 'integer' && f.unit !== 'bytes') {
      control.setAttribute('role', 'spinbutton');
      control.addEventListener('keydown', (e) => stepKey(f, /** @type {HTMLInputElement} */ (control), e, onChange));
    }
  }
  /** @type {HTMLElement[]} */
  const parts = [label];
  if (f.unit === 'bytes') {
    // Sizes are typed in the page's unit (or with their own: "512 MiB"); the engine converts.
    parts.push(h('div', { class: 'with-unit' }, control, h('span', { class: 'unit', 'data-unit-label': '' })));
  } else {
    parts.push(control);
  }
  return h('div', { class: 'field', 'data-field': f.key }, ...parts, error);
}

/** The workload patch that sets the fields of `task` (the engine's starting point for this
 *  kind of model) on the model `s` names; empty when the engine has no such task. `reset`:
 *  every field of the task, typed ones too.
 *  @param {string} task @param {PageState} s @param {{reset?: boolean}} [opts]
 *  @returns {{workload?: PageState['workload'], typed?: {[key: string]: boolean}}} */
export function taskPatch(task, s, { reset = false } = {}) {
  const entry = taskEntry(task, modelKind(s));
  if (!entry) return {};
  const workload = taskTexts(entry, s.units);
  // A field typed by hand keeps its text when the task sets a value of its own (unless the
  // user resets the task); a field the task clears belongs to another question and goes.
  /** @type {{[key: string]: boolean}} */
  const typed = {};
  for (const key of Object.keys(workload)) {
    // The mode is the task's own (training or inference), never kept over it.
    if (!reset && key !== 'mode' && s.typed[key] && workload[key] !== '') delete workload[key];
    else typed[key] = false;
  }
  return { workload, typed };
}

/** The workload texts and memory size of a workload object (an imported document's or a
 *  link's), written back by the engine in `units`: the form's fields keep text.
 *  @param {WorkloadPatch} workload @param {string} units
 *  @returns {{patch: PageState['workload'], memory: string | undefined}} */
function textsOf(workload, units) {
  const texts = dlcost.workloadToText(workload, units);
  /** @type {PageState['workload']} */
  const patch = {};
  for (const f of formFields()) {
    if (!(f.key in texts)) continue;
    patch[f.key] = controlKind(f) === 'checkbox' ? texts[f.key] === 'true' : texts[f.key];
  }
  const mem = texts.memory_bytes ?? texts.memory_gib;
  return { patch, memory: mem };
}

/** The state patch that applies a document's (or a link's) workload object in `units`: its
 *  fields as text, its memory size in the memory box. Empty for anything but an object.
 *  @param {unknown} w @param {string} units
 *  @returns {{workload?: PageState['workload'], gpu?: Partial<PageState['gpu']>}} */
export function workloadPatch(w, units) {
  if (!w || typeof w !== 'object' || Array.isArray(w)) return {};
  const { patch, memory: mem } = textsOf(/** @type {WorkloadPatch} */ (w), units);
  return { workload: patch, gpu: mem === undefined ? {} : { memory: mem } };
}

/** The state patch that converts the memory box and the size fields of `s` from its units
 *  to `to`, keeping the bytes (the units themselves included).
 *  @param {PageState} s @param {string} to
 *  @returns {{units: string, workload: PageState['workload'], gpu: Partial<PageState['gpu']>}} */
export function unitsPatch(s, to) {
  /** @type {{[key: string]: string}} */
  const sizes = {};
  for (const f of formFields()) {
    const v = s.workload[f.key];
    if (f.unit === 'bytes' && typeof v === 'string' && v.trim() !== '') sizes[f.key] = v;
  }
  // The memory box converts as a size in bytes (its bare number is in the page's unit).
  if (String(s.gpu.memory ?? '').trim() !== '') sizes.memory_bytes = s.gpu.memory;
  /** @type {{units: string, workload: PageState['workload'], gpu: Partial<PageState['gpu']>}} */
  const patch = { units: to, workload: {}, gpu: {} };
  for (const [key, text] of Object.entries(sizes)) {
    try {
      const out = textsOf(dlcost.workloadFromText({ [key]: text }, s.units), to);
      if (key.startsWith('memory_')) patch.gpu.memory = out.memory;
      else patch.workload[key] = out.patch[key];
    } catch {
      // Text the engine cannot read stays as typed; its error shows next to the field.
    }
  }
  return patch;
}

/** The form's state: its inputs from the page, the GPU picker and memory box, and what the
 *  render remembers (the language the fields were built in; whether the picker lists the GPUs).
 *  @typedef {{
 *    gpus: () => Gpu[], getState: () => Readonly<PageState>, update: typeof import('./state.js').update,
 *    gpuSelect: HTMLSelectElement, memory: HTMLInputElement, builtLang: string, gpusWanted: boolean,
 *  }} Form */

/** Applies a task's settings. @param {Form} form @param {string} task */
const applyTask = (form, task) => form.update(taskPatch(task, form.getState()));

/** A field's change: switching between training and inference starts from that task's
 *  settings. @param {Form} form @param {string} key @param {string | boolean} value */
function onFieldChange(form, key, value) {
  if (key === 'mode' && value !== form.getState().workload.mode) applyTask(form, value === 'infer' ? 'infer' : 'train');
  else form.update({ workload: { [key]: value }, typed: { [key]: true } });
}

/** The task menu: the engine's tasks for this kind of model, with the recipe's note. @param {Form} form */
function renderTask(form) {
  const select = h('select', { id: 'wl-task', 'aria-describedby': 'wl-task-note' });
  select.addEventListener('change', () => applyTask(form, select.value));
  const reset = h('button', { type: 'button', id: 'wl-task-reset', hidden: true }, t('taskReset'));
  reset.addEventListener('click', () => form.update(taskPatch(select.value, form.getState(), { reset: true })));
  return h('div', { class: 'field task', 'data-field': 'task' },
    h('label', { for: 'wl-task' }, t('task')), select,
    h('p', { class: 'hint', id: 'wl-task-note' }), reset);
}

/** Marks each field whose text is the task's own (its label says so) and shows the reset
 *  button while a typed field differs from what the task sets.
 *  @param {PageState} s @param {import('./types').TaskDefaults | null} entry */
function markTaskFields(s, entry) {
  const texts = entry ? taskTexts(entry, s.units) : {};
  let differs = false;
  for (const f of formFields()) {
    const label = document.querySelector(`[data-field="${f.key}"] > label`);
    if (!label) continue;
    const set = f.key in texts && texts[f.key] !== '';
    const fromTask = set && !s.typed[f.key] && String(s.workload[f.key] ?? '') === texts[f.key];
    differs ||= set && String(s.workload[f.key] ?? '') !== texts[f.key];
    const mark = fromTask ? t('taskMark') : '';
    if ((label.getAttribute('data-task-mark') ?? '') !== mark) {
      if (mark) label.setAttribute('data-task-mark', mark);
      else label.removeAttribute('data-task-mark');
    }
  }
  const reset = byId('wl-task-reset');
  if (reset.hidden === differs) reset.hidden = !differs;
  if (reset.textContent !== t('taskReset')) reset.textContent = t('taskReset');
}

/** Fills the task menu and its note for the current model and workload. @param {PageState} s */
function refreshTask(s) {
  const select = /** @type {HTMLSelectElement | null} */ (byId('wl-task'));
  if (!select) return;
  const kind = modelKind(s);
  const list = tasksFor(kind);
  const key = list.map((d) => d.task).join(',') + s.lang;
  if (select.dataset.key !== key) {
    select.replaceChildren(...list.map((d) => h('option', { value: d.task }, d.label[s.lang] ?? d.label.en)));
    select.dataset.key = key;
  }
  const task = currentTask(s);
  select.value = task;
  const entry = taskEntry(task, kind);
  const note = byId('wl-task-note');
  const text = entry ? `${t('taskStartsFrom')}: ${entry.note[s.lang] ?? entry.note.en}` : '';
  const title = entry ? entry.sources.join('\n') : '';
  if (note.textContent !== text) note.textContent = text;
  if (note.title !== title) note.title = title;
  markTaskFields(s, entry);
}

/** Writes the state's values into the controls; a control that already shows its value is
 *  not written (writing would move the caret of the field being typed in).
 *  @param {PageState} s */
function syncValues(s) {
  for (const f of formFields()) {
    const el = controlById(fieldId(f.key));
    if (controlKind(f) === 'checkbox') {
      const box = /** @type {HTMLInputElement} */ (el);
      if (box.checked !== (s.workload[f.key] === true)) box.checked = s.workload[f.key] === true;
    } else if (el.value !== String(s.workload[f.key] ?? '')) {
      el.value = String(s.workload[f.key] ?? '');
    }
  }
}

/** Builds every schema field in the page's language (again after a language change).
 *  @param {Form} form @param {string} lang */
function build(form, lang) {
  /** @param {string} key @param {string | boolean} value */
  const onChange = (key, value) => onFieldChange(form, key, value);
  const groups = Object.fromEntries(Object.keys(GROUP_CONTAINERS).map((g) => [g, []]));
  groups.workload.push(renderTask(form));
  for (const f of formFields()) (groups[f.group] ?? groups.workload).push(renderField(f, lang, onChange));
  for (const [group, id] of Object.entries(GROUP_CONTAINERS)) byId(id).replaceChildren(...groups[group]);
}

/** Shows the fields that apply to the model, mode and GPU; hides (and stops sending) the rest.
 *  @param {PageState} s */
function refresh(s) {
  const ctx = fieldContext(s);
  for (const f of formFields()) {
    const field = /** @type {HTMLElement} */ (byId(fieldId(f.key)).closest('.field'));
    const hide = !applies(f, ctx);
    if (field.hidden !== hide) field.hidden = hide;  // a write costs style work at every keystroke
  }
  refreshTask(s);
}

/** The GPU picker's options (its first, "custom", in the page's language): the GPUs only once
 *  they are wanted (the list is the engine's largest table, and the first result does not
 *  need it). @param {Form} form */
function fillGpus(form) {
  form.gpuSelect.replaceChildren(h('option', { value: '' }, t('customMemory')));
  if (!form.gpusWanted) return;
  for (const g of form.gpus()) form.gpuSelect.append(h('option', { value: g.id ?? g.name }, g.name ?? g.id));
}

/** A size in bytes as the memory box shows it, in the page's unit (the engine formats it).
 *  @param {Form} form @param {number} bytes @returns {string} */
const sizeText = (form, bytes) =>
  dlcost.workloadToText({ memory_bytes: bytes }, form.getState().units).memory_bytes ?? '';

/** The GPU picker and the memory box write to the store. @param {Form} form */
function wireGpu(form) {
  const { gpuSelect, memory, update } = form;
  gpuSelect.addEventListener('change', () => {
    const g = form.gpus().find((x) => (x.id ?? x.name) === gpuSelect.value);
    if (g) {
      // The engine applies the GPU's own capacity, reserves and rates (workload.gpu); the
      // memory field shows its marketed size until the user types a custom one.
      const text = Number.isFinite(g.memory_bytes) ? sizeText(form, g.memory_bytes) : '';
      update({ gpu: { name: g.id ?? g.name, memory: text } });
    } else {
      update({ gpu: { name: '' } });
    }
  });
  memory.addEventListener('input', () => update({ gpu: { memory: memory.value, name: '' } }));
}

/** Draws the form from `s`: the fields (built again in a new language), their values,
 *  which of them apply, the task, the GPU picker and the memory box.
 *  @param {Form} form @param {PageState} s */
function renderForm(form, s) {
  const { gpuSelect, memory } = form;
  const listGpus = !form.gpusWanted && s.gpu.name !== '';
  if (listGpus) form.gpusWanted = true;
  if (form.builtLang !== s.lang) {
    build(form, s.lang);
    fillGpus(form);
    form.builtLang = s.lang;
  } else if (listGpus) {
    fillGpus(form);
  }
  syncValues(s);
  refresh(s);
  const gpu = form.gpusWanted && form.gpus().some((g) => (g.id ?? g.name) === s.gpu.name) ? s.gpu.name : '';
  if (gpuSelect.value !== gpu) gpuSelect.value = gpu;
  if (memory.value !== String(s.gpu.memory ?? '')) memory.value = String(s.gpu.memory ?? '');
  for (const el of document.querySelectorAll('[data-unit-label]')) {
    if (el.textContent !== s.units) el.textContent = s.units;
  }
}

/** Shows `error` next to the field its path names; returns whether one did.
 *  @param {Form} form @param {EngineError | null} error @returns {boolean} */
function showFormError(form, error) {
  const paths = [...formFields().map((f) => [`/workload/${f.key}`, fieldId(f.key)]), ...MEMORY_PATHS.map((p) => [p, 'wl-memory'])];
  const match = error && paths.find(([path]) => error.path === path || error.path.startsWith(`${path}/`));
  const target = match ? match[1] : null;
  // The field's name in the page's language leads the engine's message (which says the
  // range and its unit), so the message reads on its own, in a summary or a screen reader.
  const { lang } = form.getState();
  const field = match && formFields().find((f) => `/workload/${f.key}` === match[0]);
  const name = field ? (field.label[lang] ?? field.label.en) : `${t('gpuMemory')} (${form.getState().units})`;
  for (const id of new Set(paths.map(([, id]) => id))) {
    const text = id === target ? `${name}: ${error.message}` : '';
    const invalid = id === target ? 'true' : 'false';
    const message = byId(`${id}-error`);
    if (message.textContent !== text) message.textContent = text;
    if (byId(id).getAttribute('aria-invalid') !== invalid) byId(id).setAttribute('aria-invalid', invalid);
  }
  return target !== null;
}

/**
 * @param {() => Gpu[]} gpus the engine's GPU presets (may be empty), asked for when the picker
 *   is filled: after the first result (fillGpus), or at once when the state names a GPU
 * @param {() => Readonly<PageState>} getState
 * @param {typeof import('./state.js').update} update
 */
export function createWorkloadForm(gpus, getState, update) {
  /** @type {Form} */
  const form = {
    gpus, getState, update,
    gpuSelect: /** @type {HTMLSelectElement} */ (byId('wl-gpu')),
    memory: /** @type {HTMLInputElement} */ (byId('wl-memory')),
    /** What the fields were last built for: rebuilt when the language changes. */
    builtLang: '',
    /** Whether the picker lists the GPUs: not before the first result unless the state names
     *  one (the list is the engine's largest table, and the first result does not need it). */
    gpusWanted: false,
  };
  wireGpu(form);

  return {
    /** Draws the form from `s`: the fields (built again in a new language), their values,
     *  which of them apply, the task, the GPU picker and the memory box. @param {PageState} s */
    render: (s) => renderForm(form, s),
    /** Lists the GPUs in the picker (the page calls it once its first result is drawn). */
    listGpus() {
      if (form.gpusWanted) return;
      form.gpusWanted = true;
      fillGpus(form);
      const { name } = getState().gpu;
      form.gpuSelect.value = gpus().some((g) => (g.id ?? g.name) === name) ? name : '';
    },
    /** Shows `error` next to the field its path names; returns whether one did.
     *  @param {EngineError | null} error @returns {boolean} */
    showError: (error) => showFormError(form, error),
  };
}
