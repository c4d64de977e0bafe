// The wasm binding inspectModelFile against `dlcost inspect --json`: the same summary for each
// generated file, reached by the same need_bytes rounds the page makes; bad files come back as
// structured errors.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, runCli, WASM_MODULE } from './native_cli.mjs';

let engine;
const dir = mkdtempSync(join(tmpdir(), 'dlcost-mfw-'));
before(async () => {
  const made = spawnSync('python3', [join(ROOT, 'tests', 'model_files', 'make_model_files.py'), dir]);
  assert.equal(made.status, 0, String(made.stderr));
  const { default: createDlcostModule } = await import(WASM_MODULE);
  engine = await createDlcostModule();
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** What the page does: start with no bytes, read what the engine asks for. */
function inspect(bytes) {
  let prefix = new Uint8Array(0);
  const reads = [];
  for (;;) {
    const out = JSON.parse(engine.inspectModelFile(prefix, bytes.length));
    if (out.need_bytes === undefined) return { out, reads };
    assert.ok(out.need_bytes > prefix.length && out.need_bytes <= bytes.length);
    prefix = bytes.subarray(0, out.need_bytes);
    reads.push(out.need_bytes);
  }
}

for (const name of ['tiny-llama-q4km.gguf', 'tiny-moe.gguf', 'tiny-bf16.safetensors', 'model.safetensors.index.json']) {
  test(`${name}: wasm equals the CLI`, () => {
    const file = join(dir, name);
    const { out, reads } = inspect(new Uint8Array(readFileSync(file)));
    const cli = runCli(['inspect', file, '--json']).json;
    // The CLI completes an index from shards next to it; these are not there.
    delete cli.shards_not_found;
    assert.deepEqual(out, cli);
    assert.ok(reads.length <= 2, `reads: ${reads}`);
  });
}

test('a truncated GGUF is a structured error', () => {
  const bytes = new Uint8Array(readFileSync(join(dir, 'tiny-llama-q4km.gguf'))).subarray(0, 5000);
  const { out } = inspect(bytes);
  assert.equal(out.error.code, 'value');
  assert.match(out.error.path, /^\/metadata\//);
});

test('an ONNX graph becomes the same layer graph in the page as in the CLI', () => {
  // Torchvision exports of tests/fixtures/onnx (make_onnx_graphs.py), the tiny U-Net and ViT,
  // and the graph dlcost refuses: the wasm summary's layer_graph equals `dlcost inspect --json`'s.
  for (const name of [
    'resnet18',
    'mobilenet_v3_small',
    'densenet121',
    'tiny_unet',
    'tiny_vit',
    'tiny_style',
    'tiny_groupnorm',
    'tiny_refused',
  ]) {
    const file = join(ROOT, 'tests', 'fixtures', 'onnx', `${name}.onnx`);
    const { out } = inspect(readFileSync(file));
    assert.deepEqual(out.layer_graph, runCli(['inspect', file, '--json']).json.layer_graph, name);
  }
});
