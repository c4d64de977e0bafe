// The workload form's transformer and multi-GPU fields: they appear only when they apply, and
// the page's report equals `build/dlcost estimate ... --json` for the document the same flags
// would make. An engine error on one of them appears next to that field.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliEstimate, runCli } from '../js/native_cli.mjs';
import { formatBytes, groupDigits, lastError, lastReport, openPage, screenshot, sessionPerFile } from './harness.mjs';

const T = { timeout: 90000 };
const session = sessionPerFile(T.timeout);

const visible = (page, id) => page.locator(`#${id}`).isVisible();

describe('the transformer and multi-GPU fields', () => {
  test('are hidden for a CNN and shown for a transformer, inference ones only in inference', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'resnet50');
      assert.equal(await visible(page, 'wl-seq-len'), false);
      assert.equal(await visible(page, 'wl-gpus'), false, 'multi-GPU fields need a GPU');
      await page.selectOption('#preset', 'llama-2-7b');
      await page.selectOption('#wl-mode', 'train');
      assert.equal(await visible(page, 'wl-seq-len'), true);
      assert.equal(await visible(page, 'wl-finetune'), true);
      assert.equal(await visible(page, 'wl-prompt-tokens'), false, 'prompt tokens are inference only');
      assert.equal(await visible(page, 'wl-lora-rank'), false, 'LoRA fields need finetune lora');
      await page.selectOption('#wl-finetune', 'lora');
      assert.equal(await visible(page, 'wl-lora-rank'), true);
      await page.selectOption('#wl-finetune', '');
      await page.selectOption('#wl-mode', 'infer');
      assert.equal(await visible(page, 'wl-prompt-tokens'), true);
      assert.equal(await visible(page, 'wl-finetune'), false);
      // The optgroup labels name the families.
      const labels = await page.$$eval('#preset optgroup', (gs) => gs.map((g) => g.label));
      assert.deepEqual(labels, ['CNNs and MLPs', 'Transformers (Hugging Face configs)']);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('llama-2-7b inference with int4 weights on an RTX 4090 shows the CLI\'s figures', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'llama-2-7b');
      await page.selectOption('#wl-mode', 'infer');
      await page.fill('#wl-batch', '4');
      await page.selectOption('#wl-dtype', 'fp16');
      await page.selectOption('#wl-gpu', 'rtx-4090');
      // Keyboard use: focus the field and type, as a keyboard user would.
      await page.focus('#wl-prompt-tokens');
      await page.keyboard.type('1024');
      await page.fill('#wl-generated-tokens', '256');
      await page.focus('#wl-weight-dtype');
      await page.selectOption('#wl-weight-dtype', 'int4');
      assert.equal(await visible(page, 'wl-quant-group-size'), true, 'int4 shows the group size');
      await page.fill('#wl-quant-group-size', '64');
      // What `dlcost estimate --preset llama-2-7b --mode infer --batch 4 --dtype fp16
      // --gpu rtx-4090 --prompt-tokens 1024 --generated-tokens 256 --weight-dtype int4
      // --quant-group-size 64 --json` reads.
      const cli = cliEstimate({
        model: { preset: 'llama-2-7b' },
        workload: {
          mode: 'infer', batch: 4, dtype: 'fp16', optimizer: 'adam', gpu: 'rtx-4090',
          prompt_tokens: 1024, generated_tokens: 256, weight_dtype: 'int4', quant_group_size: 64,
        },
      });
      assert.equal(cli.status, 0, cli.stderr);
      const report = await lastReport(page);
      assert.deepEqual(report, cli.json);
      const totals = await page.locator('#totals').innerText();
      assert.ok(totals.includes(groupDigits(cli.json.params.total)), `params in ${totals}`);
      assert.ok(totals.includes(formatBytes(cli.json.memory.total, 'GiB')), `memory in ${totals}`);
      assert.equal(await page.locator('.fit-verdict').getAttribute('data-fits'), String(cli.json.gpu_fit.fits));
      await screenshot(page, 'llm-int4-rtx4090');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('ZeRO-3 training on 8 H100 SXM shows the CLI\'s per-GPU figures', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'llama-2-7b');
      await page.selectOption('#wl-mode', 'train');
      await page.fill('#wl-batch', '16');
      await page.selectOption('#wl-dtype', 'mixed');
      // The training task starts from AdamW (core/src/task_defaults.cpp); this run uses Adam.
      await page.selectOption('#wl-optimizer', 'adam');
      await page.selectOption('#wl-gpu', 'h100-sxm');
      await page.fill('#wl-gpus', '8');
      await page.selectOption('#wl-zero', '3');
      await page.fill('#wl-seq-len', '4096');
      await page.selectOption('#wl-recompute', 'selective');
      await page.fill('#wl-grad-accum', '2');
      await page.fill('#wl-utilization', '0.4');
      const cli = cliEstimate({
        model: { preset: 'llama-2-7b' },
        workload: {
          mode: 'train', batch: 16, dtype: 'mixed', optimizer: 'adam', gpu: 'h100-sxm', gpus: 8,
          zero: 3, seq_len: 4096, recompute: 'selective', grad_accum: 2, utilization: 0.4,
        },
      });
      assert.equal(cli.status, 0, cli.stderr);
      assert.deepEqual(await lastReport(page), cli.json);
      assert.equal(await page.locator('.fit-verdict').getAttribute('data-fits'), String(cli.json.gpu_fit.fits));
      await screenshot(page, 'llm-zero3-8xh100');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('an engine error on one of the fields appears next to it, as the CLI words it', T, async () => {
    const { page } = await openPage(session);
    try {
      await page.selectOption('#preset', 'llama-2-7b');
      await page.selectOption('#wl-mode', 'infer');
      // The page reads the typed text as the CLI reads the same flag (the workload schema's rule).
      for (const [id, key, value, flag] of [
        ['wl-prompt-tokens', 'prompt_tokens', 'many', '--prompt-tokens'],
        ['wl-generated-tokens', 'generated_tokens', '-1', '--generated-tokens'],
      ]) {
        await page.fill(`#${id}`, value);
        const err = await lastError(page);
        assert.equal(err.path, `/workload/${key}`);
        const cli = runCli(['estimate', '--preset', 'llama-2-7b', '--mode', 'infer', '--batch', '32', '--memory-gib', '24', flag, value, '--json']);
        assert.equal(cli.status, 2);
        // The field's name (the schema's label) leads the engine's message.
        const label = await page.locator(`label[for="${id}"]`).innerText();
        assert.equal(await page.locator(`#${id}-error`).innerText(), `${label}: ${err.message}`);
        assert.equal(await page.locator(`#${id}`).getAttribute('aria-invalid'), 'true');
        const said = cli.stderr + JSON.stringify(cli.json ?? {});
        assert.ok(said.includes(JSON.stringify(err.message).slice(1, -1)), `${said} has ${err.message}`);
        await page.fill(`#${id}`, '');
        assert.equal(await lastError(page), null);
      }
    } finally {
      await page.close();
    }
  });
});
