// The Run section shows the engine's multi-GPU step and run cost: a share link carrying GPUs,
// nodes, tokens and a price opens with the step time, MFU and cost the CLI computes for it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { CLI, runCli } from '../js/native_cli.mjs';
import { openPage, sessionPerFile } from './harness.mjs';

const T = { timeout: 90000 };
const session = sessionPerFile(T.timeout);

test("the Run section shows the CLI's step time, MFU and run cost for a share link", T, async () => {
  const flags = ['--preset', 'llama-2-7b', '--batch', '32', '--dtype', 'bf16', '--gpu', 'h100-sxm'];
  flags.push('--gpus', '16', '--tp', '2', '--zero', '1', '--tokens', '1e12', '--price', '2.5');
  const link = spawnSync(CLI, ['link', ...flags], { encoding: 'utf8' });
  assert.equal(link.status, 0, link.stderr);
  const fragment = link.stdout.trim();
  const { page, problems } = await openPage(session, { path: fragment });
  try {
    await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.gpu_fit?.run);
    const cli = runCli(['estimate', '--link', fragment, '--json']).json;
    const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
    assert.deepEqual(report.gpu_fit.step_time, cli.gpu_fit.step_time);
    assert.deepEqual(report.gpu_fit.run, cli.gpu_fit.run);
    assert.equal(await page.locator('#run').isVisible(), true);
    const total = await page.locator('#run-total').textContent();
    assert.match(total, /\$[\d,]+ @ \$2\.5/);
    assert.equal((await page.locator('#run .run-bar rect').count()) > 0, true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

test('the Run section names expert parallelism and the interleaved schedule when a layout has them', T, async () => {
  const moe = 'tests/fixtures/hf-configs/qwen3-30b-a3b.json';
  const flags = [moe, '--batch', '32', '--seq-len', '4096', '--dtype', 'bf16', '--gpu', 'h100-sxm'];
  flags.push('--gpus', '16', '--pp', '2', '--ep', '8', '--virtual-stages', '2', '--microbatches', '4');
  const link = spawnSync(CLI, ['link', ...flags], { encoding: 'utf8' });
  assert.equal(link.status, 0, link.stderr);
  const fragment = link.stdout.trim();
  const { page, problems } = await openPage(session, { path: fragment });
  try {
    await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.gpu_fit?.step_time);
    const cli = runCli(['estimate', '--link', fragment, '--json']).json;
    const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
    assert.deepEqual(report.gpu_fit.step_time, cli.gpu_fit.step_time);
    assert.equal(report.gpu_fit.parallel.ep, 8);
    const layout = await page.locator('#run-layout').textContent();
    assert.match(layout, /expert parallel 8/);
    assert.match(layout, /interleaved pipeline, chunks per GPU 2/);
    const keys = await page.locator('#run .legend li').evaluateAll((items) => items.map((li) => li.dataset.key));
    assert.equal(keys.includes('ep_comm'), true);
    assert.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});
