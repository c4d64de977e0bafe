// The workload form is rendered from the engine's schema: a link carrying adam8bit opens with
// it selected, every schema value is on offer, and text the engine cannot read shows the
// CLI's message for the same flag next to its field.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { CLI, runCli } from '../js/native_cli.mjs';
import { lastReport, openPage, sessionPerFile } from './harness.mjs';

const T = { timeout: 90000 };
const session = sessionPerFile(T.timeout);

const optionValues = (page, id) => page.$$eval(`#${id} option`, (os) => os.map((o) => o.value));

describe('the workload form from the engine\'s schema', () => {
  test('a link carrying adam8bit opens with it selected, and every optimizer is offered', T, async () => {
    const link = spawnSync(CLI, ['link', '--preset', 'mlp_mnist', '--optimizer', 'adam8bit', '--batch', '16'], {
      encoding: 'utf8',
    });
    assert.equal(link.status, 0, link.stderr);
    const fragment = link.stdout.trim();
    const { page, problems } = await openPage(session, { path: fragment });
    try {
      await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.workload.optimizer === 'adam8bit');
      assert.equal(await page.locator('#wl-optimizer').inputValue(), 'adam8bit');
      assert.equal(await page.locator('#wl-batch').inputValue(), '16');
      const schema = runCli(['schema', '--json']).json;
      const optimizers = schema.fields.find((f) => f.key === 'optimizer').values.map((v) => v.name);
      assert.deepEqual(await optionValues(page, 'wl-optimizer'), optimizers);
      const report = await lastReport(page);
      const cli = runCli(['estimate', '--link', fragment, '--json']);
      assert.deepEqual(report, cli.json);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('the page reads typed numbers as the CLI reads flags, and shows errors at the field', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'mlp_mnist');
      // Accepted: the same batch as `--batch 1e3`.
      await page.fill('#wl-batch', '1e3');
      await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.workload.batch === 1000);
      assert.equal(await page.locator('#wl-batch-error').innerText(), '');
      // Refused: the CLI's message for `--batch 2.5`, naming the field and its unit.
      await page.fill('#wl-batch', '2.5');
      const cli = runCli(['estimate', '--preset', 'mlp_mnist', '--batch', '2.5', '--json']);
      assert.equal(cli.status, 2);
      const shown = await page.locator('#wl-batch-error').innerText();
      // The field's label (in the page's language) leads the CLI's own words.
      assert.equal(shown, `${await page.locator('label[for="wl-batch"]').innerText()}: ${cli.json.error.message}`);
      assert.match(shown, /batch: an integer from 1 to \d+ samples/);
      assert.equal(await page.locator('#wl-batch').getAttribute('aria-invalid'), 'true');
      await page.fill('#wl-batch', '8');
      assert.equal(await page.locator('#wl-batch-error').innerText(), '');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('labels and help come from the schema in the page\'s language', T, async () => {
    const { page, problems } = await openPage(session, { locale: 'zh' });
    try {
      const schema = runCli(['schema', '--json']).json;
      const batch = schema.fields.find((f) => f.key === 'batch');
      assert.equal(await page.locator('label[for="wl-batch"]').innerText(), batch.label.zh);
      assert.equal(await page.locator('label[for="wl-batch"]').getAttribute('title'), batch.help.zh);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
