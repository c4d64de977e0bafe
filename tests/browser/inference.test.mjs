// The Inference panel: choosing a serving engine shows the engine's plan (users, KV blocks,
// speed, launch command) exactly as `build/dlcost estimate ... --json` computes it, and its
// users-and-speed table from one servingSweep call when opened.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliEstimate } from '../js/native_cli.mjs';
import { openPage, screenshot, sessionPerFile } from './harness.mjs';

const T = { timeout: 120000 };
const session = sessionPerFile(T.timeout);

describe('the Inference panel', () => {
  test("vLLM on an H100 shows the CLI's plan and its sweep", T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'llama-3.1-8b');
      await page.selectOption('#wl-mode', 'infer');
      await page.selectOption('#wl-dtype', 'bf16');
      await page.selectOption('#wl-gpu', 'h100-sxm');
      assert.equal(await page.locator('#inference').isVisible(), false, 'no engine, no panel');
      await page.selectOption('#wl-engine', 'vllm');
      await page.fill('#wl-context', '8192');
      await page.fill('#wl-users', '32');
      const cli = cliEstimate({
        model: { preset: 'llama-3.1-8b' },
        workload: {
          mode: 'infer',
          dtype: 'bf16',
          optimizer: 'adam',
          gpu: 'h100-sxm',
          engine: 'vllm',
          context: 8192,
          users: 32,
        },
      });
      assert.equal(cli.status, 0, cli.stderr);
      const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
      assert.deepEqual(report.serving, cli.json.serving);
      const text = await page.locator('#inference').innerText();
      assert.ok(text.includes(cli.json.serving.command), `command in ${text}`);
      assert.ok(text.includes(String(cli.json.serving.paged.num_blocks)), `blocks in ${text}`);
      await page.locator('#inference summary').click();
      // The sweep is computed when the section opens, by the engine's second module (loaded
      // on demand): wait for its table rather than reading it at once.
      await page.locator('#inference table.inference-sweep tbody tr').nth(1).waitFor();
      const rows = await page.locator('#inference table.inference-sweep tbody tr').count();
      assert.ok(rows >= 2, `sweep rows: ${rows}`);
      // Tokens/s and memory against users and against context: four charts, the context
      // points the engine's own (powers of two up to Llama 3.1's 131072).
      assert.equal(await page.locator('#inference svg.inference-chart').count(), 4);
      const byContext = await page.evaluate(
        () =>
          globalThis.dlcostPage.lastReport() &&
          document.querySelectorAll('#inference table.inference-sweep')[1].innerText,
      );
      assert.ok(byContext.includes('131072'), byContext);
      await screenshot(page, 'inference-vllm-h100');
      // The panel in Chinese.
      await page.selectOption('#lang', 'zh');
      const zh = await page.locator('#inference').innerText();
      assert.ok(zh.includes('推理') && zh.includes('首 token 时间'), zh);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('a CPU from the device picker: llama.cpp in system RAM, its size a field of its own', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'llama-3.1-8b');
      await page.selectOption('#wl-mode', 'infer');
      await page.selectOption('#wl-dtype', 'fp16');
      await page.selectOption('#wl-gpu', 'amd-epyc-9654');
      await page.selectOption('#wl-engine', 'llamacpp');
      await page.selectOption('#wl-quant', 'gguf');
      await page.fill('#wl-context', '4096');
      await page.fill('#wl-system-ram-gib', '64');
      const cli = cliEstimate({
        model: { preset: 'llama-3.1-8b' },
        workload: {
          mode: 'infer',
          dtype: 'fp16',
          optimizer: 'adam',
          gpu: 'amd-epyc-9654',
          engine: 'llamacpp',
          quant: 'gguf',
          context: 4096,
          system_ram_gib: 64,
        },
      });
      assert.equal(cli.status, 0, cli.stderr);
      const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
      assert.deepEqual(report.serving, cli.json.serving);
      const text = await page.locator('#inference').innerText();
      assert.ok(text.includes('In system RAM (the CPU is the device)'), text);
      assert.ok(text.includes('-ngl 0'), text);
      // A RAM size of 0 is refused at its own field.
      await page.fill('#wl-system-ram-gib', '0');
      await page.locator('#wl-system-ram-gib-error').filter({ hasText: /./ }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
