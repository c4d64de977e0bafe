// The Run section shows the engine's multi-GPU step and run cost: a share link carrying GPUs,
// nodes, tokens and a price opens with the step time, MFU and cost the CLI computes for it.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { CLI, runCli } from '../js/native_cli.mjs';
import { openPage, openSession } from './harness.mjs';

const T = { timeout: 90000 };
let session;

before(async () => {
  session = await openSession();
}, T);

after(async () => {
  await session?.close();
});

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
