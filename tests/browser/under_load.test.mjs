// The "Under load" section of a serving question (issue #30 item 4): Llama 3 8B served by vLLM
// on an H100 SXM at 10 requests/s with a P99 TTFT objective of 500 ms shows the percentiles and
// the capacity that `build/dlcost serve-sim DOC --json` computes for the page's own document,
// in English and Chinese, on a desktop and a phone; a bad rate is refused at its field.

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../js/native_cli.mjs';
import { openPage, sessionPerFile } from './harness.mjs';
import { formatRate, formatSignificant } from '../../web/js/units.js';

const T = { timeout: 180000 };
const session = sessionPerFile(T.timeout);
const SHOTS = '/tmp/page-shots';
const LOAD_FLAGS = ['--rate', '10', '--requests', '300', '--prompt', '512', '--output', '256', '--slo-ttft-ms', '500'];

/** `dlcost serve-sim DOC --json` with the load flags above, for the page's document. */
function cliServeSim(doc) {
  const dir = mkdtempSync(join(tmpdir(), 'dlcost-load-'));
  try {
    writeFileSync(join(dir, 'doc.json'), JSON.stringify(doc));
    return runCli(['serve-sim', join(dir, 'doc.json'), ...LOAD_FLAGS, '--json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function chooseServing(page) {
  await page.selectOption('#preset', 'llama-3-8b');
  await page.selectOption('#wl-mode', 'infer');
  await page.selectOption('#wl-dtype', 'bf16');
  await page.selectOption('#wl-gpu', 'h100-sxm');
  await page.selectOption('#wl-engine', 'vllm');
  await page.locator('#under-load #ul-run').waitFor();
}

async function fillLoad(page, rate) {
  await page.fill('#ul-rate', rate);
  await page.fill('#ul-requests', '300');
  await page.fill('#ul-prompt-a', '512');
  await page.fill('#ul-output-a', '256');
  await page.fill('#ul-slo-ttft', '500');
}

const VIEWS = [
  ['desktop', { width: 1366, height: 768 }],
  ['phone', { width: 390, height: 844 }],
];

describe('the Under load section', () => {
  for (const lang of ['en', 'zh']) {
    for (const [name, viewport] of VIEWS) {
      test(`vLLM on an H100 at 10 req/s: the CLI's percentiles and capacity (${lang}, ${name})`, T, async () => {
        const { page, problems } = await openPage(session, { viewport, locale: lang });
        try {
          await chooseServing(page);
          await fillLoad(page, '10');
          const doc = await page.evaluate(() => globalThis.dlcostPage.document());
          const cli = cliServeSim(doc);
          assert.equal(cli.status, 0, cli.stderr);
          await page.click('#ul-run');
          await page.locator('#ul-capacity').waitFor({ timeout: 60000 });
          const r = cli.json.result;
          const rows = await page.$$eval('#ul-table tbody tr', (trs) =>
            trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
          );
          const ms = (p) => ['mean', 'p50', 'p90', 'p99'].map((k) => formatSignificant(p[k] * 1000, 3));
          assert.deepEqual(rows, [ms(r.ttft_s), ms(r.itl_s), ms(r.e2e_s), ms(r.queue_s)]);
          const cap = cli.json.capacity;
          const line = await page.locator('#ul-capacity').innerText();
          for (const part of [formatRate(cap.max_rate), String(cap.replicas), `$${formatRate(cap.usd_per_hour)}`]) {
            assert.ok(line.includes(part), `${part} in ${line}`);
          }
          assert.equal(await page.locator('#ul-run').innerText(), lang === 'zh' ? '模拟' : 'Simulate');
          assert.ok(line.includes(lang === 'zh' ? '在目标之内最多每秒' : 'req/s within the objectives'), line);
          const verdict = await page.locator('#verdict-load').innerText();
          assert.ok(verdict.includes(formatRate(cap.max_rate)), verdict);
          const tput = await page.locator('#ul-throughput').innerText();
          assert.ok(tput.includes(formatRate(r.requests_per_s)), tput);
          // The sweep: eight rates, one call each, then the progress line empties.
          await page.waitForFunction(() => document.querySelectorAll('#ul-chart-ttft circle').length === 8, null, {
            timeout: 60000,
          });
          await page.waitForFunction(() => document.querySelector('#ul-progress').textContent === '');
          assert.equal(await page.locator('#ul-chart-kv svg').count(), 1);
          const sideways = await page.evaluate(
            () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
          );
          assert.ok(sideways <= 0, `no sideways scroll: ${sideways} px`);
          mkdirSync(SHOTS, { recursive: true });
          await page.locator('#under-load').screenshot({ path: join(SHOTS, `under-load-${lang}-${name}.png`) });
          assert.deepEqual(problems, []);
        } finally {
          await page.close();
        }
      });
    }
  }

  test('a bad rate shows the engine error next to the rate field', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await chooseServing(page);
      await fillLoad(page, '-1');
      await page.click('#ul-run');
      await page.locator('#ul-rate-error').filter({ hasText: /./ }).waitFor();
      assert.equal(await page.getAttribute('#ul-rate', 'aria-invalid'), 'true');
      assert.equal(await page.locator('#ul-results table').count(), 0);
      await page.fill('#ul-rate', 'fast');
      await page.click('#ul-run');
      await page
        .locator('#ul-rate-error')
        .filter({ hasText: /number/ })
        .waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
