// Where a model comes from and goes to: the preset picker (grouped by family, listed from the
// engine so new families appear by themselves), a new custom model, paste or drop of a
// Hugging Face config.json or a dlcost document, file import, and export as JSON.
// @ts-check

import { byId, h } from './dom.js';
import { t } from './i18n.js';
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

/**
 * @param {import('./types').PresetEntry[]} presets  from the engine
 * @param {{onPreset: (name: string) => void, onModel: (model: any, workload: unknown) => void,
 *   getExport: () => {model: any, workload: unknown}, engineTotal?: () => number | null}} handlers
 *   engineTotal: the engine's parameter count of the model just loaded, or null
 */
export function createModelIo(presets, handlers) {
  const select = /** @type {HTMLSelectElement} */ (byId('preset'));
  const source = byId('preset-source');
  const paste = /** @type {HTMLTextAreaElement} */ (byId('paste'));
  const pasteError = byId('paste-error');

  /** The picker's options, grouped by family, in the page's language. */
  function fillPresets() {
    select.replaceChildren();
    select.append(h('option', { value: '' }, t('customModel')));
    const families = new Map();
    for (const p of presets) {
      if (!families.has(p.family)) families.set(p.family, []);
      families.get(p.family).push(p);
    }
    for (const [family, list] of families) {
      const group = h('optgroup', { label: t(`family_${family}`, {}, family.toUpperCase()) });
      for (const p of list) group.append(h('option', { value: p.name }, p.name));
      select.append(group);
    }
  }

  function showSource() {
    const p = presets.find((x) => x.name === select.value);
    source.textContent = p ? `${t('source')}: ${p.source}` : '';
  }

  select.addEventListener('change', () => {
    showSource();
    if (select.value) handlers.onPreset(select.value);
  });

  byId('new-model').addEventListener('click', () => {
    select.value = '';
    showSource();
    handlers.onModel(structuredClone(STARTER_MODEL), undefined);
  });

  /** @param {string} text */
  function loadText(text) {
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
    select.value = '';
    showSource();
    const { model, workload } = splitDocument(doc);
    handlers.onModel(model, workload);
  }

  /** The file shown last, while its tensors follow the page's model: checked again when the
   *  model changes (by identity: an edit replaces it). */
  /** @type {{refresh: ((doc: object) => void) | null} | null} */
  let dropped = null;
  /** @type {unknown} */
  let checkedModel = null;
  /** @param {File[]} files */
  async function dropFiles(files) {
    checkedModel = getState().model;
    dropped = await showModelFiles(files, { onConfig: useConfig });
  }

  /** A GGUF's architecture as its config.json, with the file's weights, becomes the model,
   *  like a pasted document. */
  /** @param {unknown} doc */
  function useConfig(doc) {
    paste.value = JSON.stringify(doc, null, 2);
    loadText(paste.value);
  }

  paste.addEventListener('input', () => loadText(paste.value));
  // Fetch from the Hub, on a click only; the fetched config goes where a pasted one goes.
  mountHubFetch(pasteError, (doc) => {
    paste.value = JSON.stringify(doc, null, 2);
    loadText(paste.value);
  }, () => handlers.engineTotal?.() ?? null);
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
      dropFiles(files);
    } else if (file) {
      paste.value = await file.text();
      loadText(paste.value);
    }
  });

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
      await dropFiles(files);
      return;
    }
    paste.value = await file.text();
    loadText(paste.value);
    fileInput.value = '';
  });

  byId('export-json').addEventListener('click', () => {
    const doc = handlers.getExport();
    const blob = new Blob([`${JSON.stringify(doc, null, 2)}\n`], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const name = (doc.model?.name || 'model').replace(/[^\w.-]+/g, '_');
    const a = h('a', { href: url, download: `${name}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  });

  let shownLang = '';
  return {
    /** Shows the state's preset (none once the model is edited or custom), with its source.
     *  @param {PageState} s */
    render(s) {
      if (shownLang !== s.lang) {
        fillPresets();
        shownLang = s.lang;
      }
      if (select.value !== (s.model.preset ?? '')) select.value = s.model.preset ?? '';
      showSource();
      if (dropped?.refresh && s.model !== checkedModel) {
        checkedModel = s.model;
        dropped.refresh({ model: modelDocument(s) });
      }
    },
    /** The pasted text's error line also shows engine errors about the whole document.
     *  @param {string} message */
    showPasteError(message) {
      pasteError.textContent = message;
    },
  };
}
