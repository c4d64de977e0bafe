// Where a model comes from and goes to: the preset picker (grouped by family, listed from the
// engine so new families appear by themselves), a new custom model, paste or drop of a
// Hugging Face config.json or a dlcost document, file import, and export as JSON.
// @ts-check

import { byId, h } from './dom.js';
import { engineText, t } from './i18n.js';
import { mountHubFetch } from './hub_fetch.js';
import { getState, modelDocument } from './state.js';

/** File-input `accept` entries for model files. */
const MODEL_FILE_ACCEPT = '.gguf,.safetensors,.onnx';

/** Files model_file.js reads by their header (a config.json stays with the paste box).
 *  @param {{name: string}} file */
function isModelFile(file) {
  return /\.(gguf|safetensors|onnx)$/i.test(file.name) || /\.index\.json$/i.test(file.name);
}

/** Shows the model files dropped or chosen, their tensors checked against the page's model;
 *  model_file.js is a chunk loaded on the first (docs/benchmarks.md, "Session 5").
 *  @param {File[]} files @param {{onConfig: (doc: unknown) => void}} options */
async function showModelFiles(files, options) {
  const { showModelFiles: show } = await import('./model_file.js');
  return show(byId('model-file'), files, { ...options, modelDocument: () => ({ model: modelDocument(getState()) }) });
}

export const STARTER_MODEL = {
  schema: 1,
  name: 'my_model',
  input: [3, 32, 32],
  layers: [
    { name: 'conv1', type: 'conv2d', out_channels: 16, kernel: 3, padding: 1 },
    { name: 'relu1', type: 'relu', inplace: true },
    { name: 'pool', type: 'global_avgpool2d' },
    { name: 'flatten', type: 'flatten' },
    { name: 'fc', type: 'linear', out_features: 10 },
  ],
};

/** @typedef {import('./state.js').PageState} PageState */

/** Splits a pasted document into the model and an optional workload.
 *  @param {any} doc @returns {{model: any, workload: unknown}} */
export function splitDocument(doc) {
  if (doc && typeof doc === 'object' && !Array.isArray(doc) && doc.model && typeof doc.model === 'object') {
    return { model: doc.model, workload: doc.workload };
  }
  if (doc && typeof doc === 'object' && !Array.isArray(doc) && 'workload' in doc) {
    const { workload, ...model } = doc;
    return { model, workload };
  }
  return { model: doc, workload: undefined };
}

/** @typedef {{onPreset: (name: string) => void, onModel: (model: any, workload: unknown) => void,
 *   getExport: () => {model: any, workload: unknown}, engineTotal?: () => number | null}} IoHandlers */

/** The picker's and paste box's elements, and what the render remembers.
 *  @typedef {{
 *    presets: import('./types').PresetEntry[], handlers: IoHandlers, select: HTMLSelectElement,
 *    source: HTMLElement, paste: HTMLTextAreaElement, pasteError: HTMLElement,
 *    dropped: {refresh: ((doc: object) => void) | null} | null, checkedModel: unknown, shownLang: string,
 *  }} Io */

/** The picker's options, grouped by family, in the page's language. @param {Io} io */
function fillPresets(io) {
  const { select } = io;
  select.replaceChildren();
  select.append(h('option', { value: '' }, t('customModel')));
  const families = new Map();
  for (const p of io.presets) {
    if (!families.has(p.family)) families.set(p.family, []);
    families.get(p.family).push(p);
  }
  for (const [family, list] of families) {
    const group = h('optgroup', { label: t(`family_${family}`, {}, family.toUpperCase()) });
    for (const p of list) group.append(h('option', { value: p.name }, p.name));
    select.append(group);
  }
}

/** The preset's source line in the page's language (the engine writes both). @param {Io} io */
function showSource(io) {
  const p = io.presets.find((x) => x.name === io.select.value);
  io.source.textContent = p ? t('sourceLine', { text: engineText(p.source, p.source_zh) }) : '';
}

/** @param {Io} io @param {string} text */
function loadText(io, text) {
  const { paste, pasteError } = io;
  pasteError.textContent = '';
  paste.removeAttribute('aria-invalid');
  if (text.trim() === '') return;
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    pasteError.textContent = `${t('notJson')}: ${/** @type {Error} */ (e).message}`;
    paste.setAttribute('aria-invalid', 'true');
    return;
  }
  io.select.value = '';
  showSource(io);
  const { model, workload } = splitDocument(doc);
  io.handlers.onModel(model, workload);
}

/** A GGUF's architecture as its config.json, with the file's weights, becomes the model,
 *  like a pasted document. @param {Io} io @param {unknown} doc */
function useConfig(io, doc) {
  io.paste.value = JSON.stringify(doc, null, 2);
  loadText(io, io.paste.value);
}

/** Shows the model files; the file shown last follows the page's model: checked again when
 *  the model changes (by identity: an edit replaces it). @param {Io} io @param {File[]} files */
async function dropFiles(io, files) {
  io.checkedModel = getState().model;
  io.dropped = await showModelFiles(files, { onConfig: (doc) => useConfig(io, doc) });
}

/** The preset picker and "New model". @param {Io} io */
function wirePicker(io) {
  const { select, handlers } = io;
  select.addEventListener('change', () => {
    showSource(io);
    if (select.value) handlers.onPreset(select.value);
  });

  byId('new-model').addEventListener('click', () => {
    select.value = '';
    showSource(io);
    handlers.onModel(structuredClone(STARTER_MODEL), undefined);
  });
}

/** The paste box: typing, the Hub fetch and dropped files. @param {Io} io */
function wirePaste(io) {
  const { paste } = io;
  paste.addEventListener('input', () => loadText(io, paste.value));
  // Fetch from the Hub, on a click only; the fetched config goes where a pasted one goes.
  mountHubFetch(io.pasteError, (doc) => {
    paste.value = JSON.stringify(doc, null, 2);
    loadText(io, paste.value);
  }, () => io.handlers.engineTotal?.() ?? null);
  paste.addEventListener('dragover', (e) => {
    e.preventDefault();
    paste.classList.add('drop');
  });
  paste.addEventListener('dragleave', () => paste.classList.remove('drop'));
  paste.addEventListener('drop', async (e) => {
    e.preventDefault();
    paste.classList.remove('drop');
    const files = [...(e.dataTransfer?.files ?? [])];
    const file = files[0];
    if (file && (files.length > 1 || isModelFile(file))) {
      dropFiles(io, files);
    } else if (file) {
      paste.value = await file.text();
      loadText(io, paste.value);
    }
  });
}

/** "Import" (a document, or model files) and "Export" (the page's document as JSON). @param {Io} io */
function wireFiles(io) {
  const fileInput = /** @type {HTMLInputElement} */ (byId('import-file'));
  fileInput.accept = `${fileInput.accept},${MODEL_FILE_ACCEPT}`;
  fileInput.multiple = true;  // an index with its shards
  byId('import-json').addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', async () => {
    const files = [...(fileInput.files ?? [])];
    const file = files[0];
    if (!file) return;
    if (files.length > 1 || isModelFile(file)) {
      fileInput.value = '';
      await dropFiles(io, files);
      return;
    }
    io.paste.value = await file.text();
    loadText(io, io.paste.value);
    fileInput.value = '';
  });

  byId('export-json').addEventListener('click', () => {
    const doc = io.handlers.getExport();
    const blob = new Blob([`${JSON.stringify(doc, null, 2)}\n`], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const name = (doc.model?.name || 'model').replace(/[^\w.-]+/g, '_');
    const a = h('a', { href: url, download: `${name}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  });
}

/**
 * @param {import('./types').PresetEntry[]} presets  from the engine
 * @param {IoHandlers} handlers
 *   engineTotal: the engine's parameter count of the model just loaded, or null
 */
export function createModelIo(presets, handlers) {
  /** @type {Io} */
  const io = {
    presets, handlers,
    select: /** @type {HTMLSelectElement} */ (byId('preset')),
    source: byId('preset-source'),
    paste: /** @type {HTMLTextAreaElement} */ (byId('paste')),
    pasteError: byId('paste-error'),
    dropped: null,
    checkedModel: null,
    shownLang: '',
  };
  wirePicker(io);
  wirePaste(io);
  wireFiles(io);

  return {
    /** Shows the state's preset (none once the model is edited or custom), with its source.
     *  @param {PageState} s */
    render(s) {
      if (io.shownLang !== s.lang) {
        fillPresets(io);
        io.shownLang = s.lang;
      }
      if (io.select.value !== (s.model.preset ?? '')) io.select.value = s.model.preset ?? '';
      showSource(io);
      if (io.dropped?.refresh && s.model !== io.checkedModel) {
        io.checkedModel = s.model;
        io.dropped.refresh({ model: modelDocument(s) });
      }
    },
    /** The pasted text's error line also shows engine errors about the whole document.
     *  @param {string} message */
    showPasteError(message) {
      io.pasteError.textContent = message;
    },
  };
}
