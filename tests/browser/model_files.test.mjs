// Dropping model files on the page: GGUF, safetensors and index.json summaries equal
// `dlcost inspect FILE --json`; only the header is read (File.slice), even of a 20 GiB file;
// a bad file shows the engine's error as text.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, runCli } from '../js/native_cli.mjs';
import { openPage, openSession, screenshot } from './harness.mjs';

const T = { timeout: 90000 };
let session;
const dir = mkdtempSync(join(tmpdir(), 'dlcost-mf-'));

before(async () => {
  const made = spawnSync('python3', [join(ROOT, 'tests', 'model_files', 'make_model_files.py'), dir]);
  assert.equal(made.status, 0, String(made.stderr));
  session = await openSession();
}, T);

after(async () => {
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Drops the bytes on the paste box as a file called `name`, as a user's drag would. */
async function drop(page, name, bytes) {
  await page.evaluate(({ name, b64 }) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([data], name));
    document.getElementById('paste').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { name, b64: Buffer.from(bytes).toString('base64') });
}

const panelText = (page) => page.locator('#model-file').textContent();
const groupDigits = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

describe('model files dropped on the page', () => {
  test('a GGUF picked with the file input shows the CLI\'s figures', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const file = join(dir, 'tiny-llama-q4km.gguf');
      const cli = runCli(['inspect', file, '--json']).json;
      await page.setInputFiles('#import-file', file);
      await page.waitForSelector('#model-file .model-file-summary');
      const text = await panelText(page);
      assert.match(text, new RegExp(groupDigits(cli.parameters)));
      assert.match(text, new RegExp(groupDigits(cli.weight_bytes)));
      assert.match(text, /Q4_K/);
      assert.match(text, /KV heads2/);
      const rows = await page.$$eval('#model-file tbody tr', (trs) => trs.map((tr) => tr.firstChild.textContent));
      assert.deepEqual(rows, cli.by_dtype.map((r) => r.dtype));
      await screenshot(page, 'model-file-gguf');
      // The architecture as its config.json becomes the model: the engine counts exactly the
      // file's tensors (the generator writes every tensor of a llama layer).
      assert.match(text, /difference 0/);
      await page.click('#model-file button.use-config');
      await page.waitForFunction((n) => globalThis.dlcostPage.lastReport()?.params?.total === n, cli.parameters);
      assert.match(await page.inputValue('#paste'), /"model_type": "llama"/);
      // With the file's weights: the weights line is the file's bytes (Q4_K, Q6_K and F32 as
      // stored), and its formula names the file.
      const weights = await page.evaluate(() => globalThis.dlcostPage.lastReport().memory.terms.find((x) => x.key === 'weights'));
      assert.equal(weights.bytes, cli.weight_bytes);
      assert.match(weights.formula, /gguf file/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('safetensors and an index dropped on the paste box', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const st = join(dir, 'tiny-bf16.safetensors');
      await drop(page, 'tiny-bf16.safetensors', readFileSync(st));
      await page.waitForSelector('#model-file .model-file-summary');
      assert.match(await panelText(page), new RegExp(groupDigits(runCli(['inspect', st, '--json']).json.parameters)));
      assert.match(await panelText(page), /F8_E4M3/);
      await drop(page, 'model.safetensors.index.json', readFileSync(join(dir, 'model.safetensors.index.json')));
      await page.waitForFunction(() => document.querySelector('#model-file').textContent.includes('model-00002-of-00002'));
      assert.equal(await page.inputValue('#paste'), '', 'a model file does not go into the paste box');
      await screenshot(page, 'model-file-index');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('an index picked with its shards is summarised exactly over all of them', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const sharded = join(dir, 'sharded');
      const index = join(sharded, 'model.safetensors.index.json');
      const cli = runCli(['inspect', index, '--json']).json;
      await page.setInputFiles('#import-file', [index, join(sharded, 'model-00001-of-00002.safetensors'),
        join(sharded, 'model-00002-of-00002.safetensors')]);
      await page.waitForSelector('#model-file tbody tr');
      const text = await panelText(page);
      assert.match(text, new RegExp(groupDigits(cli.parameters)));
      assert.match(text, new RegExp(groupDigits(cli.weight_bytes)));
      await page.setInputFiles('#import-file', [index, join(sharded, 'model-00001-of-00002.safetensors')]);
      await page.waitForFunction(() => document.querySelector('#model-file').textContent.includes('Not dropped with the index'));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('an ONNX export shows its initializers and operators, as the CLI', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const file = join(ROOT, 'tests', 'fixtures', 'onnx', 'tiny_cnn.onnx');
      const cli = runCli(['inspect', file, '--json']).json;
      await drop(page, 'tiny_cnn.onnx', readFileSync(file));
      await page.waitForSelector('#model-file .model-file-summary');
      const text = await panelText(page);
      assert.match(text, /tiny_cnn\.onnx: ONNX/);
      assert.match(text, new RegExp(groupDigits(cli.parameters)));
      assert.match(text, new RegExp(groupDigits(cli.weight_bytes)));
      assert.match(text, /BatchNormalization 1, Conv 1, Flatten 1, Gemm 1, Relu 1/);
      await screenshot(page, 'model-file-onnx');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('an ONNX export becomes the same report as its preset', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      // resnet18 exported by tests/model_files/make_onnx_graphs.py (weights stripped):
      // torchvision ResNet18_Weights num_params 11,689,512, _ops 1.814 GMACs.
      const file = join(ROOT, 'tests', 'fixtures', 'onnx', 'resnet18.onnx');
      await drop(page, 'resnet18.onnx', readFileSync(file));
      await page.waitForSelector('#model-file .layer-graph');
      assert.match(await panelText(page), /69 of 69 nodes understood, 69 layers, 11,689,512 parameters, 1,814,073,344 MACs/);
      await page.click('#model-file button.use-config');
      await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.params?.total === 11689512);
      const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
      // The CLI at the page's workload (its batch, mode and precision).
      const flags = ['--batch', String(report.workload.batch), '--mode', report.workload.mode,
        '--dtype', report.workload.dtype, '--json'];
      const cli = runCli(['estimate', '--onnx', file, ...flags]).json;
      const preset = runCli(['estimate', '--preset', 'resnet18', ...flags]).json;
      assert.equal(report.macs.forward, preset.macs.forward);
      assert.equal(report.params.buffers, preset.params.buffers);
      assert.deepEqual(report.macs, cli.macs);
      assert.deepEqual(report.layers.map((l) => l.output_shape), cli.layers.map((l) => l.output_shape));
      assert.match(await page.inputValue('#paste'), /"type": "conv2d"/);
      await screenshot(page, 'model-file-onnx-graph');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('an ONNX graph with operators dlcost does not model lists them and estimates nothing', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const file = join(ROOT, 'tests', 'fixtures', 'onnx', 'tiny_refused.onnx');
      await drop(page, 'tiny_refused.onnx', readFileSync(file));
      await page.waitForSelector('#model-file ul.unmodelled');
      const items = await page.$$eval('#model-file ul.unmodelled li', (lis) => lis.map((li) => li.textContent));
      assert.ok(items.some((x) => /^Softplus ×1/.test(x)), items.join('|'));
      assert.ok(items.some((x) => /^Einsum ×1/.test(x)), items.join('|'));
      assert.match(await panelText(page), /No layer graph: dlcost understands 1 of 3 nodes/);
      assert.equal(await page.$('#model-file button.use-config'), null);
      await screenshot(page, 'model-file-onnx-unmodelled');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('a 20 GiB GGUF is summarised from its first megabyte', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const bytes = readFileSync(join(dir, 'tiny-moe.gguf'));
      const result = await page.evaluate(async (b64) => {
        const { inspectFile } = globalThis.dlcostPage;
        const head = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        // 20 GiB made of references to one 1 MiB blob: nothing that size is allocated.
        const mib = new Blob([new Uint8Array(1 << 20)]);
        const big = new Blob([head, ...Array(20 * 1024).fill(mib)]);
        const reads = [];
        const summary = await inspectFile(big, (n) => reads.push(n));
        return { size: big.size, reads, summary };
      }, bytes.toString('base64'));
      assert.equal(result.size, bytes.length + 20 * 2 ** 30);
      assert.deepEqual(result.reads, [2 ** 20], 'one read of the first MiB');
      assert.equal(result.summary.file_size, result.size);
      assert.equal(result.summary.parameters, runCli(['inspect', join(dir, 'tiny-moe.gguf'), '--json']).json.parameters);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('a truncated GGUF shows the engine\'s error as text', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const bytes = readFileSync(join(dir, 'tiny-llama-q4km.gguf')).subarray(0, 5000);
      await drop(page, 'cut<b>.gguf', bytes);
      await page.waitForSelector('#model-file [role="alert"]');
      const text = await panelText(page);
      assert.match(text, /cut<b>\.gguf/, 'the name is text, not markup');
      assert.match(text, /the file ends at byte 5000/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
