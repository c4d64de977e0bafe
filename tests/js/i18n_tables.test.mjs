// The page's labels exist in both its languages: every key a module adds to i18n.js's
// DICTIONARIES in English has a Chinese text too (and no key is Chinese only), with the same
// {placeholders}, so t() never falls back to English in a Chinese page. The modules that add
// labels are found by a scan of web/js, so a new one is checked without being listed here.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const WEB_JS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'js');
/** Modules that add labels (Object.assign(DICTIONARIES.en, ...) or the like). */
const ADDERS = readdirSync(WEB_JS).filter(
  (f) =>
    f.endsWith('.js') && f !== 'i18n.js' && /DICTIONARIES\.(?:en|zh)\b/.test(readFileSync(join(WEB_JS, f), 'utf8')),
);

let DICTIONARIES;
before(async () => {
  ({ DICTIONARIES } = await import(pathToFileURL(join(WEB_JS, 'i18n.js')).href));
  for (const f of ADDERS) await import(pathToFileURL(join(WEB_JS, f)).href);
});

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('the modules that add labels are found (model_file.js among them)', () => {
  assert.ok(ADDERS.includes('model_file.js'), ADDERS.join(', '));
  assert.ok(ADDERS.includes('page_i18n.js'), ADDERS.join(', '));
});

test('every label has an English and a Chinese text with the same placeholders', () => {
  const en = DICTIONARIES.en;
  const zh = DICTIONARIES.zh;
  assert.ok(Object.keys(en).length > 300);
  assert.deepEqual(
    Object.keys(en).filter((k) => !(typeof zh[k] === 'string' && zh[k] !== '')),
    [],
    'no Chinese text',
  );
  assert.deepEqual(
    Object.keys(zh).filter((k) => !(k in en)),
    [],
    'Chinese only',
  );
  for (const key of Object.keys(en)) assert.deepEqual(placeholders(zh[key]), placeholders(en[key]), key);
});

/** Model-file labels that read the same in both languages: names of file formats. */
const SAME_IN_BOTH = ['mf_format_gguf', 'mf_format_safetensors', 'mf_format_onnx'];

test("the model-file labels (mf_*) are translated, mf_components_failed's included", () => {
  const keys = Object.keys(DICTIONARIES.en).filter((k) => k.startsWith('mf_'));
  assert.ok(keys.includes('mf_components_failed'));
  const same = keys.filter((k) => DICTIONARIES.zh[k] === DICTIONARIES.en[k]);
  assert.deepEqual(same, SAME_IN_BOTH, 'English text in the Chinese table');
});
