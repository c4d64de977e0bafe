// The four everyday questions of issue #27, each driven from the first load on a desktop
// (1366 x 768) and a phone (390 x 844), in English and in Chinese: the verdict card on the
// first screen answers the question asked (QLoRA 8B fits a 24 GB card; the vLLM question gives
// users and tokens/s, no training verdict; the 70B pretraining on 64 GPUs gives a ranked layout
// with the run's time and cost; a serving question after it leaves no 64-GPU layout behind),
// the page never scrolls sideways, and nothing visible is a raw message key or English in zh.
// Screenshots go to /tmp/page-shots/ (PNG).

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { openPage, sessionPerFile } from './harness.mjs';

const T = { timeout: 180000 };
const session = sessionPerFile(T.timeout);
const SHOTS = '/tmp/page-shots';
mkdirSync(SHOTS, { recursive: true });

const DESKTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

/** Chooses a select's value, or fills a text field ("fill:" + selector). */
async function drive(page, steps) {
  for (const [selector, value] of steps) {
    if (selector.startsWith('fill:')) await page.fill(selector.slice(5), value);
    else await page.selectOption(selector, value);
  }
}

const QLORA = [
  ['#preset', 'llama-3.1-8b'],
  ['#wl-task', 'qlora'],
  ['fill:#wl-seq-len', '2048'],
  ['#wl-gpu', 'rtx-4090'],
];
const VLLM = [
  ['#preset', 'qwen2-7b'],
  ['#wl-task', 'infer'],
  ['#wl-gpu', 'l4'],
  ['#wl-engine', 'vllm'],
  ['fill:#wl-context', '4096'],
];
const PRETRAIN = [
  ['#preset', 'llama-3-70b'],
  ['#wl-task', 'pretrain'],
  ['#wl-gpu', 'h100-sxm'],
  ['fill:#wl-gpus', '64'],
];

/** What every question's page must be: no sideways scroll, the verdict card in the first
 *  screen (scrolled to the top), no raw key, no English in Chinese, no page problem. */
async function checkFirstScreen(page, viewport, lang, problems) {
  await page.evaluate(() => window.scrollTo(0, 0));
  const { scroll, top, bottom } = await page.evaluate(() => {
    const r = document.querySelector('#fit').getBoundingClientRect();
    return { scroll: document.documentElement.scrollWidth, top: r.top, bottom: r.bottom };
  });
  assert.ok(scroll <= viewport.width, `document ${scroll} px wide at a ${viewport.width} px viewport`);
  assert.ok(top >= 0 && bottom <= viewport.height, `verdict at ${top}..${bottom} px, screen ${viewport.height}`);
  const text = await page.locator('main').innerText();
  // The details summaries drawn before their chunk loads, and any other key left raw.
  for (const key of ['batchThroughput', 'compareModelsLong', 'compareGpusLong', 'servingFits', 'layoutsBest']) {
    assert.ok(!text.includes(key), `raw key ${key}`);
  }
  if (lang === 'zh') {
    const chrome = await page.evaluate(() =>
      [
        '#fit',
        '#advice',
        '#layouts',
        '.hub-fetch label',
        '#hub-fetch',
        '.hub-fetch .hint',
        'details.insight summary',
        '#wl-task-note',
        '#preset-source',
        'label',
      ]
        .flatMap((sel) => [...document.querySelectorAll(sel)])
        .filter((el) => el.getClientRects().length > 0)
        .map((el) => el.innerText)
        .join('\n'),
    );
    for (const english of [
      'Fits',
      'Does not fit',
      'Users at this context',
      'Tokens/s',
      'Best layout',
      'Layouts of',
      'Fetch from the Hub',
      'Only this button',
      'Throughput and memory',
      'Compare models',
      'Compare GPUs',
      'To make it fit',
      'Starts from',
      // The preset's source line (the engine's source_zh).
      'Source:',
      'config.json of',
      'reconstructed key by key',
      'as transformers writes it',
    ]) {
      assert.ok(!chrome.includes(english), `English "${english}" in zh:\n${chrome}`);
    }
    assert.match(await page.locator('#preset-source').innerText(), /^来源：.*的 config\.json（/);
  }
  assert.deepEqual(problems, []);
}

for (const [device, viewport] of [
  ['desktop', DESKTOP],
  ['phone', PHONE],
]) {
  for (const lang of ['en', 'zh']) {
    describe(`the four questions, ${device}, ${lang}`, () => {
      test('QLoRA: Llama-3.1-8B at sequence 2048 fits an RTX 4090 from the first screen', T, async () => {
        const { page, problems } = await openPage(session, { viewport, locale: lang });
        try {
          await drive(page, QLORA);
          const verdict = page.locator('#fit .fit-verdict');
          assert.equal(await verdict.getAttribute('data-fits'), 'true', await page.locator('#fit').innerText());
          await checkFirstScreen(page, viewport, lang, problems);
          await page.screenshot({ path: `${SHOTS}/qlora-${device}-${lang}.png` });
        } finally {
          await page.close();
        }
      });

      test('serving: Qwen2-7B on an L4 with vLLM at 4096 is answered by the serving plan', T, async () => {
        const { page, problems } = await openPage(session, { viewport, locale: lang });
        try {
          await drive(page, VLLM);
          const verdict = page.locator('#fit .fit-verdict');
          assert.equal(await verdict.getAttribute('data-answered-by'), 'serving');
          const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
          assert.equal(await verdict.getAttribute('data-fits'), String(report.serving.fits));
          assert.equal(await page.locator('#serving-max-users').innerText(), String(report.serving.max_users));
          assert.ok((await page.locator('#serving-per-user').innerText()).length > 0);
          assert.ok((await page.locator('#serving-in-all').innerText()).length > 0);
          // No training verdict: no largest batch, no step or prefill time, no data parallelism.
          assert.equal(await page.locator('#max-batch, #step-time').count(), 0);
          assert.ok(!(await page.locator('#advice').innerText()).includes('data parallel'));
          await checkFirstScreen(page, viewport, lang, problems);
          await page.screenshot({ path: `${SHOTS}/vllm-${device}-${lang}.png` });
        } finally {
          await page.close();
        }
      });

      test('pretraining: Llama-3-70B on 64 H100s shows the ranked layouts and the run', T, async () => {
        const { page, problems } = await openPage(session, { viewport, locale: lang });
        try {
          await drive(page, PRETRAIN);
          await page.locator('#layouts-table tbody tr').first().waitFor({ timeout: 60000 });
          const rows = await page.locator('#layouts-table tbody tr').count();
          assert.ok(rows >= 2, `${rows} layouts`);
          const run = await page.locator('#layouts-run').innerText();
          assert.match(run, /\$[\d,]+/, run);
          // A click applies a layout: the workload takes its tp and pp.
          const button = page.locator('#layouts-table tbody button.apply').first();
          await button.click();
          await page.locator('#layouts-table tbody tr[data-current="true"]').first().waitFor({ timeout: 60000 });
          await checkFirstScreen(page, viewport, lang, problems);
          await page.screenshot({ path: `${SHOTS}/pretrain-${device}-${lang}.png` });
        } finally {
          await page.close();
        }
      });

      test('state: a one-GPU serving question after the 64-GPU run keeps no layout of it', T, async () => {
        const { page, problems } = await openPage(session, { viewport, locale: lang });
        try {
          await drive(page, PRETRAIN);
          await page.locator('#layouts-table tbody tr').first().waitFor({ timeout: 60000 });
          await drive(page, VLLM);
          const w = await page.evaluate(() => globalThis.dlcostPage.getState().workload);
          for (const key of ['gpus', 'tp', 'pp']) assert.ok(!w[key], `${key} = ${w[key]}`);
          assert.equal(await page.locator('#fit .fit-verdict').getAttribute('data-answered-by'), 'serving');
          assert.equal(await page.locator('#layouts').isVisible(), false);
          // A field the engine refuses is said at the verdict, not only beside the field.
          await page.fill('#wl-context', '0');
          await page.locator('#verdict-error').waitFor();
          assert.match(await page.locator('#verdict-error').innerText(), /context/);
          await page.fill('#wl-context', '4096');
          await page.locator('#fit .fit-verdict[data-answered-by="serving"]').waitFor();
          await checkFirstScreen(page, viewport, lang, problems);
          await page.screenshot({ path: `${SHOTS}/state-${device}-${lang}.png` });
        } finally {
          await page.close();
        }
      });
    });
  }
}

describe('number fields step as spinbuttons', () => {
  test('ArrowUp/ArrowDown step the batch by one, PageUp/PageDown double and halve it', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const batch = page.locator('#wl-batch');
      await batch.fill('8');
      await batch.press('ArrowUp');
      assert.equal(await batch.inputValue(), '9');
      await batch.press('ArrowDown');
      await batch.press('ArrowDown');
      assert.equal(await batch.inputValue(), '7');
      await batch.press('PageUp');
      assert.equal(await batch.inputValue(), '14');
      await batch.press('PageDown');
      assert.equal(await batch.inputValue(), '7');
      const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
      assert.equal(report.workload.batch, 7);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('a task and the fields typed by hand', () => {
  test('a new task keeps typed fields, marks its own, and resets on request (en, zh)', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await drive(page, [['#preset', 'llama-3.1-8b']]);
      await page.fill('#wl-batch', '4');
      await page.selectOption('#wl-task', 'qlora');
      // The typed batch stays; QLoRA's accumulation (qlora.py: 16) is set and marked as the task's.
      assert.equal(await page.inputValue('#wl-batch'), '4');
      assert.equal(await page.inputValue('#wl-grad-accum'), '16');
      const mark = (key) => page.getAttribute(`[data-field="${key}"] > label`, 'data-task-mark');
      assert.equal(await mark('grad_accum'), 'task');
      assert.equal(await mark('batch'), null);
      assert.equal(await page.isVisible('#wl-task-reset'), true);
      await page.selectOption('#lang', 'zh');
      assert.equal(await mark('grad_accum'), '任务设定');
      await page.click('#wl-task-reset');
      assert.equal(await page.inputValue('#wl-batch'), '1');
      assert.equal(await mark('batch'), '任务设定');
      assert.equal(await page.isVisible('#wl-task-reset'), false);
      const report = await page.evaluate(() => globalThis.dlcostPage.lastReport());
      assert.equal(report.workload.batch, 1);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('every task on a phone', () => {
  test('no task state scrolls sideways at 390 px, and its verdict is on the first screen', T, async () => {
    const { page, problems } = await openPage(session, { viewport: PHONE });
    try {
      await drive(page, [
        ['#preset', 'llama-3.1-8b'],
        ['#wl-gpu', 'h100-sxm'],
      ]);
      const tasks = await page.locator('#wl-task option').evaluateAll((o) => o.map((x) => x.value));
      assert.ok(tasks.length >= 5, tasks.join());
      for (const task of tasks) {
        await page.selectOption('#wl-task', task);
        if (task === 'infer') await page.selectOption('#wl-engine', 'vllm');
        if (task === 'pretrain') await page.fill('#wl-gpus', '8');
        await page.evaluate(() => window.scrollTo(0, 0));
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= PHONE.width, `${task}: document ${width} px wide`);
        const bottom = await page.evaluate(() => document.querySelector('#fit').getBoundingClientRect().bottom);
        assert.ok(bottom <= PHONE.height, `${task}: verdict ends at ${bottom} px`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
