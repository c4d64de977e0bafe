// The layer editor: one row per item of the model's `layers` list (a layer or a group), with
// its output shape, parameters and MACs filled from the last report, and the engine's error
// shown on the row its JSON path names. Models without a `layers` list (e.g. a transformer
// config) are edited as JSON text.
// The editor keeps no model of its own: it draws the state's document (or the untouched
// preset's, from the engine), and an edit makes a new document from it and hands it to
// onChange (the store). The rows are drawn again only when the document changes from
// elsewhere or the list's structure changes, so typing in a row keeps its focus and caret.
// @ts-check

import { h, replace, setText } from './dom.js';
import { formatFields, parseFields } from './fields_text.js';
import { t } from './i18n.js';
import { formatCount, formatShape } from './units.js';

export const LAYER_TYPES = [
  'conv2d', 'linear', 'maxpool2d', 'avgpool2d', 'adaptive_avgpool2d', 'adaptive_maxpool2d',
  'global_avgpool2d', 'batchnorm2d', 'layernorm', 'relu', 'relu6', 'gelu', 'silu', 'sigmoid',
  'tanh', 'hardswish', 'hardsigmoid', 'dropout', 'flatten', 'add', 'multiply', 'concat',
  'embedding', 'softmax', 'conv_transpose2d', 'upsample', 'leaky_relu', 'permute', 'reshape',
  'matmul', 'select', 'instancenorm2d', 'groupnorm', 'pixel_shuffle', 'pixel_unshuffle',
  'pad', 'narrow', 'mean',
];

/** Required fields filled in when a row switches to a type, so it computes at once. */
const DEFAULT_FIELDS = {
  conv2d: { out_channels: 64, kernel: 3, padding: 1 },
  linear: { out_features: 128 },
  maxpool2d: { kernel: 2 },
  avgpool2d: { kernel: 2 },
  adaptive_avgpool2d: { output_size: 1 },
  adaptive_maxpool2d: { output_size: 1 },
  dropout: { p: 0.5 },
  embedding: { num_embeddings: 1000, embedding_dim: 128 },
  conv_transpose2d: { out_channels: 64, kernel: 2, stride: 2 },
  upsample: { scale_factor: 2 },
  reshape: { shape: [-1] },
  pixel_shuffle: { upscale_factor: 2 },
  pixel_unshuffle: { downscale_factor: 2 },
  pad: { padding: 1 },
  narrow: { length: 1 },
  mean: { dims: [1, 2] },
  groupnorm: { num_groups: 1 },
};

const GROUP = '(group)';

/** The report's layers under each name prefix ("block" holds "block.0", "block.0.conv", ...),
 *  in report order: a group row's layers, found in one pass over the report rather than one
 *  per row (a 600-layer model with 176 rows redraws at every keystroke).
 *  @param {{name: string}[]} layers @returns {Map<string, any[]>} */
function layersWithin(layers) {
  const out = new Map();
  for (const l of layers) {
    for (let dot = l.name.indexOf('.'); dot >= 0; dot = l.name.indexOf('.', dot + 1)) {
      const prefix = l.name.slice(0, dot);
      const list = out.get(prefix);
      if (list) list.push(l);
      else out.set(prefix, [l]);
    }
  }
  return out;
}

/** @typedef {import('./state.js').PageState} PageState */

/** The editor's state, passed to each of its stages.
 *  @typedef {{
 *    root: HTMLElement, onChange: (doc: any) => void, presetDocument: (name: string) => any,
 *    doc: any, shownKey: any, shownLang: string, ownDoc: any, rows: any[], jsonArea: HTMLTextAreaElement | null,
 *    selected: number | null, stopAt: number,
 *  }} Editor */

function itemName(item, i) {
  return typeof item?.name === 'string' ? item.name : String(i);
}

/** A copy of the document on display, to edit. @param {Editor} ed */
const draft = (ed) => structuredClone(ed.doc);

/** Hands `next` to the store. `redraw`: the list's structure changed (rows added, removed
 *  or moved), so the render draws the rows again; otherwise they already show `next`.
 *  @param {Editor} ed */
function commit(ed, next, redraw = false) {
  ed.ownDoc = next;
  ed.doc = next;
  if (!redraw) ed.shownKey = next;
  ed.onChange(next);
}

/** A row's type picker with its options (the known types and the document's own), built
 *  once per drawing of the list and cloned for each row: a list can be hundreds of rows. */
function typeOptions(doc) {
  const types = new Set(LAYER_TYPES);
  for (const it of doc.layers) if (it && typeof it.type === 'string') types.add(it.type);
  const select = h('select', { class: 'row-type' });
  for (const ty of types) select.append(h('option', { value: ty }, ty));
  return select;
}

/** A row's icon button. @param {string} cls @param {string} key @param {number} i @param {string} text */
const iconButton = (cls, key, i, text) =>
  h('button', { type: 'button', class: cls, 'aria-label': t(key, { n: i }), title: t(key, { n: i }) }, text);

/** The row's elements, not yet wired.
 *  @param {Editor} ed @param {any} item @param {number} i @param {HTMLSelectElement} options typeOptions() */
function buildRow(ed, item, i, options) {
  const isGroup = item && typeof item === 'object' && !('type' in item);
  const typeSelect = /** @type {HTMLSelectElement} */ (options.cloneNode(true));
  typeSelect.setAttribute('aria-label', t('layerType', { n: i }));
  if (isGroup) typeSelect.prepend(h('option', { value: GROUP }, t('group')));
  typeSelect.value = isGroup ? GROUP : item.type;
  typeSelect.disabled = isGroup;

  const nameInput = h('input', {
    class: 'row-name', type: 'text', value: item?.name ?? '', placeholder: String(i),
    'aria-label': t('layerName', { n: i }), autocomplete: 'off', spellcheck: 'false',
  });
  const fieldsInput = h('input', {
    class: 'row-fields', type: 'text', value: item && typeof item === 'object' ? formatFields(item) : '',
    'aria-label': t('layerFields', { n: i }), autocomplete: 'off', spellcheck: 'false', 'aria-invalid': 'false',
  });
  const shape = h('span', { class: 'row-shape num' });
  const params = h('span', { class: 'row-params num' });
  const macs = h('span', { class: 'row-macs num' });
  const error = h('p', { class: 'field-error row-error', role: 'alert', id: `row-error-${i}` });
  fieldsInput.setAttribute('aria-describedby', error.id);

  const up = iconButton('icon', 'moveUp', i, '↑');
  const down = iconButton('icon', 'moveDown', i, '↓');
  const remove = iconButton('icon danger', 'removeLayer', i, '×');
  const dup = iconButton('icon dup', 'duplicateLayer', i, '⊕');
  up.disabled = i === 0;
  down.disabled = i === ed.doc.layers.length - 1;
  remove.disabled = ed.doc.layers.length === 1;

  const li = h('li', {
    class: 'layer-row', dataset: { index: String(i) }, tabindex: '-1',
    'aria-keyshortcuts': 'Enter F2 Escape ArrowUp ArrowDown Home End Alt+ArrowUp Alt+ArrowDown',
  },
    h('span', { class: 'row-index', 'aria-hidden': 'true' }, String(i)),
    typeSelect, nameInput, fieldsInput,
    h('span', { class: 'row-stats' },
      h('span', { class: 'stat-label' }, t('outShape')), shape,
      h('span', { class: 'stat-label' }, t('params')), params,
      h('span', { class: 'stat-label' }, t('macs')), macs),
    h('span', { class: 'row-buttons' }, up, down, dup, remove),
    error);
  return { li, shape, params, macs, error, fieldsInput, typeSelect, nameInput, up, down, remove, dup, localError: '' };
}

/** What the row says when it has focus: its index, type and name. @param {number} i */
function labelRow(row, i) {
  row.li.setAttribute('aria-label', t('layerRow', {
    n: i, type: row.typeSelect.value === GROUP ? t('group') : row.typeSelect.value, name: row.nameInput.value.trim(),
  }));
}

/** Reads the row's controls into a new document and commits it. @param {Editor} ed @param {number} i */
function readRow(ed, row, i) {
  labelRow(row, i);
  const next = draft(ed);
  try {
    const fields = parseFields(row.fieldsInput.value);
    const item = {};
    if (row.typeSelect.value !== GROUP) item.type = row.typeSelect.value;
    if (row.nameInput.value.trim() !== '') item.name = row.nameInput.value.trim();
    Object.assign(item, fields);
    next.layers[i] = item;
    row.localError = '';
  } catch (e) {
    // The row keeps its last readable item; the estimate runs again to show the error.
    row.localError = `${t('cannotRead')}: ${/** @type {Error} */ (e).message}`;
  }
  commit(ed, next);
}

/** A row's keys: Enter or F2 edits it, Escape returns to it, Home/End and the arrows move
 *  between rows, Alt+arrows move the row. @param {Editor} ed @param {number} i @param {KeyboardEvent} e */
function rowKeydown(ed, row, i, e) {
  const { li, fieldsInput } = row;
  const onRow = e.target === li;
  if (onRow && (e.key === 'Enter' || e.key === 'F2')) {
    e.preventDefault();
    fieldsInput.focus();
    return;
  }
  if (!onRow && e.key === 'Escape') {
    e.preventDefault();
    li.focus();
    return;
  }
  if (onRow && (e.key === 'Home' || e.key === 'End')) {
    e.preventDefault();
    ed.rows[e.key === 'Home' ? 0 : ed.rows.length - 1]?.li.focus();
    return;
  }
  if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
  const delta = e.key === 'ArrowUp' ? -1 : 1;
  if (e.altKey) {
    e.preventDefault();
    move(ed, i, delta, onRow ? 'row' : e.key === 'ArrowUp' ? 'up' : 'down');
    return;
  }
  const next = ed.rows[i + delta];
  if (onRow) {
    e.preventDefault();
    next?.li.focus();
    return;
  }
  // While editing, plain arrows go to the same control of the next row (a select keeps
  // its own arrows).
  if (/** @type {Element} */ (e.target).tagName === 'SELECT') return;
  if (!next) return;
  e.preventDefault();
  const k = controlsOf(li).indexOf(e.target);
  const target = controlsOf(next.li)[k];
  (target && !target.disabled ? target : next.fieldsInput).focus();
}

/** The row's listeners. @param {Editor} ed @param {number} i */
function wireRow(ed, row, i) {
  const { li, typeSelect, nameInput, fieldsInput } = row;
  typeSelect.addEventListener('change', () => {
    const keep = {};
    const old = ed.doc.layers[i];
    if (old && old.inputs !== undefined) keep.inputs = old.inputs;
    fieldsInput.value = formatFields({ ...keep, ...(DEFAULT_FIELDS[typeSelect.value] || {}) });
    readRow(ed, row, i);
  });
  nameInput.addEventListener('input', () => readRow(ed, row, i));
  fieldsInput.addEventListener('input', () => readRow(ed, row, i));
  // The row last worked in is where "Add layer" inserts. The list is one Tab stop: the row
  // itself; Enter or F2 edits it (its controls join the Tab order), Escape returns to it.
  li.addEventListener('focusin', (e) => {
    ed.selected = i;
    rove(ed, i, e.target !== li);
  });
  li.addEventListener('focusout', (e) => {
    if (!li.contains(/** @type {Node | null} */ (e.relatedTarget))) rove(ed, i, false);
  });
  li.addEventListener('keydown', (e) => rowKeydown(ed, row, i, e));
  row.dup.addEventListener('click', () => {
    const next = draft(ed);
    const copy = structuredClone(next.layers[i]);
    if (copy && typeof copy === 'object') delete copy.name;  // names must stay unique
    next.layers.splice(i + 1, 0, copy);
    ed.selected = i + 1;
    commit(ed, next, true);
    ed.rows[i + 1]?.fieldsInput.focus();
  });
  row.up.addEventListener('click', () => move(ed, i, -1, 'up'));
  row.down.addEventListener('click', () => move(ed, i, 1, 'down'));
  row.remove.addEventListener('click', () => {
    const next = draft(ed);
    next.layers.splice(i, 1);
    commit(ed, next, true);
    ed.rows[Math.min(i, ed.rows.length - 1)]?.fieldsInput.focus();
  });
}

/** @param {Editor} ed @param {any} item @param {number} i @param {HTMLSelectElement} options typeOptions() */
function rowFor(ed, item, i, options) {
  const row = buildRow(ed, item, i, options);
  labelRow(row, i);
  wireRow(ed, row, i);
  return row;
}

/** The focusable controls of a row, in order. */
function controlsOf(li) {
  return [...li.querySelectorAll('select, input, button')];
}

/** Puts a row in the Tab order (`stop`) or not, with its controls (`edit`) or not. */
function tabStops(row, stop, edit) {
  if (!row) return;
  if (row.li.tabIndex !== (stop ? 0 : -1)) row.li.tabIndex = stop ? 0 : -1;
  for (const c of controlsOf(row.li)) if (c.tabIndex !== (edit ? 0 : -1)) c.tabIndex = edit ? 0 : -1;
}

/** Roving tab stop: the row last worked in is the list's one place in the Tab order; its
 *  controls join it while it is edited. The arrow keys move between rows. Only the rows
 *  that change are touched, except after a render (`all`). @param {Editor} ed */
function rove(ed, current, edit, all = false) {
  if (all) ed.rows.forEach((row, k) => tabStops(row, k === current, false));
  else if (ed.stopAt !== current) tabStops(ed.rows[ed.stopAt], false, false);
  tabStops(ed.rows[current], true, edit);
  ed.stopAt = current;
}

/** @param {Editor} ed */
function move(ed, i, delta, which) {
  const j = i + delta;
  if (j < 0 || j >= ed.doc.layers.length) return;
  const next = draft(ed);
  [next.layers[i], next.layers[j]] = [next.layers[j], next.layers[i]];
  ed.selected = j;
  commit(ed, next, true);
  if (which === 'row') {
    ed.rows[j]?.li.focus();
    return;
  }
  const button = ed.rows[j]?.li.querySelector(which === 'up' ? '.icon:nth-child(1)' : '.icon:nth-child(2)');
  (button && !button.disabled ? button : ed.rows[j]?.fieldsInput)?.focus();
}

/** @param {Editor} ed */
function renderHeader(ed) {
  const { doc } = ed;
  const name = h('input', { id: 'model-name', type: 'text', value: doc.name ?? '', autocomplete: 'off' });
  const input = h('input', {
    id: 'model-input', type: 'text', value: Array.isArray(doc.input) ? doc.input.join(', ') : '',
    autocomplete: 'off', 'aria-describedby': 'model-input-error', spellcheck: 'false',
  });
  name.addEventListener('input', () => {
    const next = draft(ed);
    next.name = name.value;
    commit(ed, next);
  });
  input.addEventListener('input', () => {
    const parts = input.value.split(/[\s,×x]+/).filter((p) => p !== '');
    const next = draft(ed);
    next.input = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    commit(ed, next);
  });
  return h('div', { class: 'grid2' },
    h('div', { class: 'field' }, h('label', { for: 'model-name' }, t('modelName')), name),
    h('div', { class: 'field' }, h('label', { for: 'model-input' }, t('inputShape')), input,
      h('p', { class: 'field-error', id: 'model-input-error', role: 'alert' })));
}

/** @param {Editor} ed */
function renderJsonEditor(ed) {
  const jsonArea = h('textarea', { id: 'model-json', rows: '12', spellcheck: 'false', 'aria-describedby': 'model-json-error' });
  ed.jsonArea = jsonArea;
  jsonArea.value = JSON.stringify(ed.doc, null, 2);
  const err = h('p', { class: 'field-error', id: 'model-json-error', role: 'alert' });
  jsonArea.addEventListener('input', () => {
    try {
      const next = JSON.parse(jsonArea.value);
      err.textContent = '';
      commit(ed, next);
    } catch (e) {
      err.textContent = `${t('cannotRead')}: ${/** @type {Error} */ (e).message}`;
    }
  });
  replace(ed.root, h('div', { class: 'field' }, h('label', { for: 'model-json' }, t('modelJson')), jsonArea, err));
}

/** The "Add layer" picker and button. @param {Editor} ed */
function renderAddLayer(ed) {
  const addType = h('select', { id: 'add-type', 'aria-label': t('addType') });
  for (const ty of LAYER_TYPES) addType.append(h('option', { value: ty }, ty));
  addType.value = 'linear';
  const add = h('button', { type: 'button', id: 'add-layer' }, t('addLayer'));
  add.addEventListener('click', () => {
    // After the selected row (a conv after the final linear would break every shape).
    const at = ed.selected !== null && ed.selected < ed.doc.layers.length ? ed.selected + 1 : ed.doc.layers.length;
    const next = draft(ed);
    next.layers.splice(at, 0, { type: addType.value, ...(DEFAULT_FIELDS[addType.value] || {}) });
    ed.selected = at;
    commit(ed, next, true);
    ed.rows[at]?.fieldsInput.focus();
  });
  return h('div', { class: 'row-actions' }, addType, add);
}

/** @param {Editor} ed */
function renderEditor(ed) {
  ed.rows = [];
  ed.jsonArea = null;
  const { doc, root } = ed;
  if (!doc) {
    replace(root);
    return;
  }
  if (!Array.isArray(doc.layers)) {
    renderJsonEditor(ed);
    return;
  }
  const list = h('ol', { class: 'layer-list', 'aria-label': t('layers'), 'aria-describedby': 'layer-keys' });
  const options = typeOptions(doc);
  doc.layers.forEach((item, i) => {
    const row = rowFor(ed, item, i, options);
    ed.rows.push(row);
    list.append(row.li);
  });
  rove(ed, ed.selected !== null && ed.selected < ed.rows.length ? ed.selected : 0, false, true);
  const actions = renderAddLayer(ed);
  const hasBlocks = doc.blocks && typeof doc.blocks === 'object';
  replace(root,
    renderHeader(ed),
    h('div', { class: 'layer-head', 'aria-hidden': 'true' },
      h('span', {}, '#'), h('span', {}, t('type')), h('span', {}, t('name')), h('span', {}, t('fields'))),
    list,
    h('p', { class: 'hint', id: 'layer-keys' }, t('layerKeys')),
    actions,
    hasBlocks ? h('p', { class: 'hint' }, t('blocksHint', { names: Object.keys(doc.blocks).join(', ') })) : null);
}

/** Fills each row's shape, params and MACs from a report. @param {Editor} ed */
function showReport(ed, report) {
  if (!ed.rows.length) return;
  const byName = new Map(report.layers.map((l) => [l.name, l]));
  const within = layersWithin(report.layers);
  ed.rows.forEach((row, i) => {
    const name = itemName(ed.doc.layers[i], i);
    let layer = byName.get(name);
    let p = layer ? layer.params : 0;
    let m = layer ? layer.macs : 0;
    if (!layer) {
      for (const l of within.get(name) ?? []) {
        layer = l;
        p += l.params;
        m += l.macs;
      }
    }
    // Only changed text is written: each write costs layout in a long list.
    setText(row.shape, layer ? formatShape(layer.output_shape) : '–');
    setText(row.params, layer ? formatCount(p) : '–');
    setText(row.macs, layer ? formatCount(m) : '–');
  });
}

/** Shows `error` on the rows; returns whether one of them is the one it names. @param {Editor} ed */
function showRowErrors(ed, error) {
  let shown = false;
  ed.rows.forEach((row, i) => {
    const local = row.localError;
    const prefix = `/model/layers/${i}`;
    const mine = error && (error.path === prefix || error.path.startsWith(`${prefix}/`));
    // The engine's path names the field (/model/layers/3/out_channels): say which.
    const field = mine ? error.path.slice(prefix.length + 1).split('/')[0] : '';
    const text = local || (mine ? (field ? `${field}: ${error.message}` : error.message) : '');
    // Only a change is written: each write costs style and layout in a long list.
    if (row.error.textContent !== text) {
      row.error.textContent = text;
      row.li.classList.toggle('has-error', text !== '');
      row.fieldsInput.setAttribute('aria-invalid', text ? 'true' : 'false');
    }
    shown = shown || mine;
  });
  return shown;
}

/** Shows `error` ({path, message}) on the row or field it names; returns whether it did.
 *  @param {Editor} ed */
function showError(ed, error) {
  const { root } = ed;
  let shown = showRowErrors(ed, error);
  const inputErr = root.querySelector('#model-input-error');
  if (inputErr) {
    const mine = error && error.path.startsWith('/model/input');
    inputErr.textContent = mine ? error.message : '';
    root.querySelector('#model-input')?.setAttribute('aria-invalid', mine ? 'true' : 'false');
    shown = shown || mine;
  }
  const jsonErr = root.querySelector('#model-json-error');
  if (jsonErr && error && error.path.startsWith('/model')) {
    jsonErr.textContent = `${error.path}: ${error.message}`;
    shown = true;
  } else if (jsonErr && !error && ed.jsonArea) {
    jsonErr.textContent = '';
  }
  return shown;
}

/**
 * @param {HTMLElement} root  container element
 * @param {(doc: any) => void} onChange  called with the new model document after every edit
 * @param {(name: string) => any} presetDocument  the engine's document of a preset
 */
export function createModelEditor(root, onChange, presetDocument) {
  /** @type {Editor} */
  const ed = {
    root, onChange, presetDocument,
    /** The document on display: the state's, or the untouched preset's (read, never written). */
    doc: null,
    /** What the rows were drawn for: the state's document (or "preset:NAME") and language. */
    shownKey: null,
    shownLang: '',
    /** The document this editor handed to the store last: its rows are already on the page. */
    ownDoc: null,
    rows: [],
    jsonArea: null,
    selected: null,  // index of the row last focused: "Add layer" inserts after it
    stopAt: 0,  // index of the row in the Tab order
  };
  return {
    /** Draws the model `s` names: the rows again when its document is not the one on display
     *  (a preset, an import, a link, a structural edit) or the language changed.
     *  @param {PageState} s */
    render(s) {
      const key = s.model.doc ?? `preset:${s.model.preset}`;
      if (key === ed.shownKey && s.lang === ed.shownLang) return;
      if (key !== ed.shownKey) {
        // A model from elsewhere starts without a selected row; an edit here keeps its own.
        if (s.model.doc === null || s.model.doc !== ed.ownDoc) ed.selected = null;
        const model = s.model.doc ?? (s.model.preset ? presetDocument(s.model.preset) : null);
        ed.doc = model && typeof model === 'object' ? model : null;
      }
      ed.shownKey = key;
      ed.shownLang = s.lang;
      renderEditor(ed);
    },
    /** Fills each row's shape, params and MACs from a report. */
    showReport: (report) => showReport(ed, report),
    /** Shows `error` ({path, message}) on the row or field it names; returns whether it did. */
    showError: (error) => showError(ed, error),
    hasLocalError: () => ed.rows.some((r) => r.localError !== ''),
  };
}
