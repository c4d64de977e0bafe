// The binding checkComponents (the page's check of a dropped checkpoint) against
// `dlcost estimate CONFIG --weights FILE --json`: the same model_file.components for the same
// file and config, both from dlcost::componentCheck; null where no check applies; a bad
// document is a structured error.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LLAMA64_COMPONENTS, LLAMA64_CONFIG, llama64Tensors, safetensorsBytes } from './llama_checkpoint.mjs';
import { cliEstimate, runCli, WASM_MODULE } from './native_cli.mjs';

let engine;
const dir = mkdtempSync(join(tmpdir(), 'dlcost-cc-'));
before(async () => {
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});
after(() => rmSync(dir, { recursive: true, force: true }));

const call = (name, ...args) => JSON.parse(engine[name](...args));

/** The summary the page gets for `bytes` (the whole file: these are small). */
const inspect = (bytes) => call('inspectModelFile', bytes, bytes.length);

/** The page's check and the CLI's for the same file and config. */
function both(tensors) {
  const bytes = safetensorsBytes(tensors);
  const file = join(dir, 'model.safetensors');
  const config = join(dir, 'config.json');
  writeFileSync(file, bytes);
  writeFileSync(config, JSON.stringify(LLAMA64_CONFIG));
  const page = call(
    'checkComponents',
    JSON.stringify(inspect(bytes)),
    JSON.stringify({ model: { hf_config: LLAMA64_CONFIG } }),
  );
  const cli = runCli(['estimate', config, '--weights', file, '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  return { page, cli: cli.json.model_file.components };
}

const byComponent = (check, key) => Object.fromEntries(check.rows.map((r) => [r.component, r[key]]));

describe('checkComponents', () => {
  test('a checkpoint that matches its config: each component equals the shapes it holds', () => {
    const { page, cli } = both(llama64Tensors());
    assert.deepEqual(page, cli);
    assert.equal(page.matches, true);
    // Each component's elements from the shapes written (llama_checkpoint.mjs), and dlcost's count.
    assert.deepEqual(byComponent(page, 'file'), { ...LLAMA64_COMPONENTS, other: 0 });
    assert.deepEqual(byComponent(page, 'engine'), { ...LLAMA64_COMPONENTS, other: 0 });
    assert.deepEqual(byComponent(page, 'tensors'), {
      embeddings: 1,
      attention: 8,
      mlp: 6,
      norms: 5,
      lm_head: 1,
      other: 0,
    });
    assert.deepEqual(page.unplaced, { count: 0, parameters: 0, names: [] });
  });

  test('a missing LM head and an extra tensor are listed', () => {
    const tensors = llama64Tensors();
    delete tensors['lm_head.weight'];
    tensors['vision_tower.patch_embed.<b>weight</b>'] = [16, 8];
    const { page, cli } = both(tensors);
    assert.deepEqual(page, cli);
    assert.equal(page.matches, false);
    assert.deepEqual(byComponent(page, 'difference'), {
      embeddings: 0,
      attention: 0,
      mlp: 0,
      norms: 0,
      lm_head: -16384, // 256 x 64 the config declares (untied) and the file lacks
      other: 0,
    });
    assert.deepEqual(page.unplaced, { count: 1, parameters: 128, names: ['vision_tower.patch_embed.<b>weight</b>'] });
  });

  test('many unplaced tensors: all counted, the first 16 named', () => {
    const tensors = llama64Tensors();
    for (let i = 0; i < 20; i += 1) tensors[`adapter.${i}.weight`] = [4];
    const { page, cli } = both(tensors);
    assert.deepEqual(page, cli);
    assert.equal(page.unplaced.count, 20);
    assert.equal(page.unplaced.parameters, 80);
    assert.equal(page.unplaced.names.length, 16);
  });

  test('no check where none applies: a layer-graph model, a GGUF, an index without its shards', () => {
    const summary = JSON.stringify(inspect(safetensorsBytes(llama64Tensors())));
    assert.equal(call('checkComponents', summary, JSON.stringify({ model: { preset: 'resnet18' } })), null);
    const gguf = JSON.stringify({ format: 'gguf', tensors: [] });
    assert.equal(call('checkComponents', gguf, JSON.stringify({ model: { hf_config: LLAMA64_CONFIG } })), null);
    const index = JSON.stringify({ format: 'safetensors_index', parameters: null });
    assert.equal(call('checkComponents', index, JSON.stringify({ model: { hf_config: LLAMA64_CONFIG } })), null);
  });

  test('a bad model or summary is a structured error naming the field', () => {
    const summary = JSON.stringify(inspect(safetensorsBytes(llama64Tensors())));
    const bad = call(
      'checkComponents',
      summary,
      JSON.stringify({ model: { hf_config: { ...LLAMA64_CONFIG, hidden_size: -1 } } }),
    );
    assert.match(bad.error.path, /^\/model\/hf_config\/hidden_size/);
    const notJson = call('checkComponents', '{', JSON.stringify({ model: { hf_config: LLAMA64_CONFIG } }));
    assert.equal(notJson.error.code, 'parse');
    const badTensor = call(
      'checkComponents',
      JSON.stringify({ format: 'safetensors', tensors: [{ name: 'x', parameters: -1 }] }),
      JSON.stringify({ model: { hf_config: LLAMA64_CONFIG } }),
    );
    assert.equal(badTensor.error.path, '/tensors/0/parameters');
  });
});

// The page offers a config.json dropped with a checkpoint as the model when the engine reads it
// as a Hugging Face config (model_file.js); the CLI wraps such a file with its flags' workload.
describe('isHfConfig', () => {
  test("is the engine's test: model_type or architectures at the top level", () => {
    assert.equal(call('isHfConfig', JSON.stringify(LLAMA64_CONFIG)), true);
    assert.equal(call('isHfConfig', JSON.stringify({ architectures: ['LlamaForCausalLM'] })), true);
    assert.equal(call('isHfConfig', JSON.stringify({ model: { hf_config: LLAMA64_CONFIG } })), false);
    assert.equal(call('isHfConfig', JSON.stringify({ model: { preset: 'resnet18' } })), false);
    assert.equal(call('isHfConfig', '[]'), false);
    assert.equal(call('isHfConfig', '{').error.code, 'parse');
  });

  test('a file it calls a config.json the CLI reads as one: the same model as given as hf_config', () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify(LLAMA64_CONFIG));
    const whole = runCli(['estimate', config, '--json']);
    const wrapped = cliEstimate({ model: { hf_config: LLAMA64_CONFIG } });
    assert.equal(whole.status, 0, whole.stderr);
    assert.deepEqual(whole.json, wrapped.json);
  });
});
