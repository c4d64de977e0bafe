// Explanations and comparisons on the page in headless Chromium: an opened explanation shows
// the report's own numbers, switching language translates it, a bubble of the model chart
// loads that model, the GPU table sorts, and the batch chart marks where throughput
// saturates. Screenshots of each chart go to tests/artifacts/.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, groupDigits, lastReport, openPage, sessionPerFile } from './harness.mjs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const T = { timeout: 120000 };
const session = sessionPerFile(T.timeout);

const generation = (page) => page.evaluate(() => Number(document.body.dataset.insights || 0));

/** Runs `action` and waits until the insights (explanations, comparisons) have caught up. */
async function settled(page, action) {
  const before = await generation(page);
  await action();
  // A finished update may be the one scheduled for the report before the action: wait until
  // none is pending as well.
  await page.waitForFunction(
    (n) => Number(document.body.dataset.insights || 0) > n && document.body.dataset.insightsPending !== 'true',
    before,
    { timeout: 30000 },
  );
}

async function shoot(page, selector, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.locator(selector).screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

describe('explanations and comparisons', () => {
  test('an opened explanation shows the numbers of the report, and follows the language', T, async () => {
    const { page, problems } = await openPage(session, { viewport: { width: 1600, height: 1000 } });
    try {
      await settled(page, () => page.selectOption('#preset', 'resnet50'));
      const report = await lastReport(page);

      // A total, by mouse.
      const params = page.locator('#totals [data-total="totalParams"] .card-value');
      assert.equal(await params.getAttribute('aria-expanded'), 'false');
      await params.click();
      assert.equal(await params.getAttribute('aria-expanded'), 'true');
      const panel = page.locator('#explain-panel');
      assert.equal(await panel.getAttribute('data-id'), '/params/total');
      // The open explanation is the store's.
      assert.equal(await page.evaluate(() => globalThis.dlcostPage.getState().explain), '/params/total');
      assert.ok((await panel.innerText()).includes(groupDigits(report.params.total)));

      // A memory line, by keyboard (focus + Enter): its result is the report's byte count.
      const opt = page.locator('#breakdown li[data-key="optimizer_states"] .legend-value');
      await opt.focus();
      await page.keyboard.press('Enter');
      const optIndex = report.memory.terms.findIndex((term) => term.key === 'optimizer_states');
      const optId = `/memory/terms/${optIndex}/bytes`;
      const optBytes = report.memory.terms[optIndex].bytes;
      assert.equal(await panel.getAttribute('data-id'), optId);
      assert.ok((await panel.locator('.explain-result').innerText()).includes(groupDigits(optBytes)));
      assert.equal(await params.getAttribute('aria-expanded'), 'false');

      await shoot(page, '#results', 'explain-open');

      // A per-layer cell, with Space.
      const cell = page.locator('#layers td[data-col="macs"]').nth(1);
      await cell.focus();
      await page.keyboard.press(' ');
      const id = await panel.getAttribute('data-id');
      const m = /^\/layers\/(\d+)\/macs$/.exec(id);
      assert.ok(m, id);
      assert.ok((await panel.innerText()).includes(groupDigits(report.layers[Number(m[1])].macs)), await panel.innerText());
      assert.equal(await cell.getAttribute('aria-expanded'), 'true');

      // The dominant terms are computed: conv layers do ResNet-50's MACs.
      const dominant = await page.locator('#dominant').innerText();
      assert.match(dominant, /conv2d layers do 99\.\d % of the MACs/);
      assert.equal(await page.locator('#breakdown li.dominant').count(), 1);
      assert.ok(await page.locator('#layers tr[data-dominant]').count() > 0);

      // Switching language re-requests the open explanation in Chinese.
      await opt.click();
      await settled(page, () => page.selectOption('#lang', 'zh'));
      assert.equal(await panel.getAttribute('data-id'), optId);
      assert.ok((await panel.innerText()).includes('优化器状态'), await panel.innerText());
      assert.ok((await panel.innerText()).includes(groupDigits(optBytes)));
      assert.equal(await page.locator('#learn-h').innerText(), '显存是怎样算的');
      await shoot(page, '#learn', 'learn-panel-zh');

      // A learn-panel link focuses the live figure it explains and opens its explanation.
      const gradId = `/memory/terms/${report.memory.terms.findIndex((term) => term.key === 'gradients')}/bytes`;
      await page.locator('#learn li[data-point="learn_terms"] button[data-target="term:gradients"]').click();
      assert.equal(await panel.getAttribute('data-id'), gradId);
      assert.equal(await page.evaluate(() => document.activeElement.dataset.explain), gradId);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('clicking a bubble of the model chart loads that model; LLM presets get their own chart', T, async () => {
    const { page, problems } = await openPage(session, { viewport: { width: 1600, height: 1000 } });
    try {
      await settled(page, () => page.selectOption('#preset', 'resnet50'));
      // The comparisons are drawn while their section is open.
      assert.equal(await page.locator('#compare-models .bubble').count(), 0);
      await settled(page, () => page.click('#models-box > summary'));
      assert.equal(await page.locator('#compare-models .bubble.current').getAttribute('data-name'), 'resnet50');
      // Every CNN preset with a published top-1 is a bubble (mlp_mnist has none).
      assert.ok(await page.locator('#compare-models .bubble').count() >= 27);
      await shoot(page, '#compare-models', 'chart-models-cnn');
      await settled(page, () => page.locator('#compare-models .bubble[data-name="mobilenet_v2"]').click());
      assert.equal((await lastReport(page)).model.name, 'mobilenet_v2');
      assert.equal(await page.locator('#preset').inputValue(), 'mobilenet_v2');
      assert.equal(await page.locator('#compare-models .bubble.current').getAttribute('data-name'), 'mobilenet_v2');
      // By keyboard.
      await page.locator('#compare-models .bubble[data-name="vgg16"]').focus();
      await settled(page, () => page.keyboard.press('Enter'));
      assert.equal((await lastReport(page)).model.name, 'vgg16');

      await settled(page, () => page.selectOption('#preset', 'gpt2'));
      assert.ok(await page.locator('#compare-models .bubble').count() >= 10);
      assert.equal(await page.locator('#compare-models .bubble.current').getAttribute('data-name'), 'gpt2');
      await shoot(page, '#compare-models', 'chart-models-llm');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('the GPU table sorts by a clicked header, and the batch chart shows saturation', T, async () => {
    const { page, problems } = await openPage(session, { viewport: { width: 1600, height: 1000 } });
    try {
      await settled(page, () => page.selectOption('#preset', 'resnet50'));
      await settled(page, () => page.selectOption('#wl-gpu', 'a100-sxm4-80gb'));
      await settled(page, () => page.click('#gpus-box > summary'));
      await settled(page, () => page.click('#batch-box > summary'));
      const rows = page.locator('#compare-gpus tbody tr');
      assert.ok(await rows.count() >= 10);
      const seconds = (text) => {
        const m = /([\d.]+) (ms|s)/.exec(text);
        return m ? Number(m[1]) * (m[2] === 'ms' ? 1e-3 : 1) : Infinity;
      };
      const column = async (key) => {
        const idx = await page.locator('#compare-gpus thead th').evaluateAll(
          (ths, k) => ths.findIndex((th) => th.querySelector(`button[data-key="${k}"]`)), key);
        return page.locator('#compare-gpus tbody tr').evaluateAll((trs, i) => trs.map((tr) => tr.children[i].textContent), idx);
      };
      await page.locator('#compare-gpus button[data-key="step_time_s"]').click();
      assert.equal(await page.locator('#compare-gpus th[aria-sort="ascending"] button').getAttribute('data-key'), 'step_time_s');
      const up = (await column('step_time_s')).map(seconds);
      for (let i = 1; i < up.length; i += 1) assert.ok(up[i - 1] <= up[i], `ascending at ${i}: ${up}`);
      // Keyboard: Enter on the focused header reverses it.
      await page.locator('#compare-gpus button[data-key="step_time_s"]').focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('#compare-gpus th[aria-sort="descending"] button').getAttribute('data-key'), 'step_time_s');
      // The sort is the store's (one update, one render), and the redrawn header keeps the focus.
      assert.deepEqual(await page.evaluate(() => globalThis.dlcostPage.getState().gpuSort), { key: 'step_time_s', dir: -1 });
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.key), 'step_time_s');
      const down = (await column('step_time_s')).map(seconds).filter(Number.isFinite);
      for (let i = 1; i < down.length; i += 1) assert.ok(down[i - 1] >= down[i], `descending at ${i}: ${down}`);
      assert.ok((await page.locator('#compare-gpus .best-buy').innerText()).length > 0);
      await shoot(page, '#compare-gpus', 'chart-gpu-table');
      await shoot(page, '#gpu-chart', 'chart-gpu-price');

      // Batch chart: the saturation point lies before the largest batch that fits.
      const sat = page.locator('#batch-chart .saturation');
      assert.equal(await sat.count(), 1);
      const satBatch = Number(await sat.getAttribute('data-batch'));
      const report = await lastReport(page);
      const maxBatch = (report.gpu_fit ?? report.memory_fit).max_batch;
      assert.ok(satBatch >= 1 && satBatch < maxBatch, `${satBatch} < ${maxBatch}`);
      assert.ok((await page.locator('#batch-chart .batch-summary').innerText()).includes(String(maxBatch)));
      await shoot(page, '#batch-chart', 'chart-batch');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
