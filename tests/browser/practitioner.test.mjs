// The page as practitioners use it (issue 15): the two questions of the issue answered from the
// first screen on a laptop (1366 px) and a phone (390 px), the task menu's starting settings,
// "To make it fit" with Apply and Undo, key table columns in view, errors that name their
// field, controls that follow the task, and skip links. Figures are checked against
// `build/dlcost` for the same flags; screenshots go to tests/artifacts/.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../js/native_cli.mjs';
import { groupDigits } from '../../web/js/units.js';
import { openPage, openSession, screenshot } from './harness.mjs';

const T = { timeout: 120000 };
const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
let session;

before(async () => {
  session = await openSession();
}, T);

after(async () => {
  await session?.close();
});

const lastReport = (page) => page.evaluate(() => globalThis.dlcostPage.lastReport());

/** The CLI's report for flags. */
const cli = (...args) => runCli(['estimate', ...args, '--json']).json;

/** Whether element `sel` lies inside the viewport's first screen (no scrolling). */
async function onFirstScreen(page, sel) {
  return page.evaluate((s) => {
    const r = document.querySelector(s).getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight && r.width > 0;
  }, sel);
}

/** Llama-3-8B QLoRA, seq 2048, batch 4 on an RTX 4090, chosen as a user would. */
async function askQlora(page) {
  await page.selectOption('#preset', 'llama-3-8b');
  await page.selectOption('#wl-task', 'qlora');
  await page.fill('#wl-seq-len', '2048');
  await page.fill('#wl-batch', '4');
  await page.selectOption('#wl-gpu', 'rtx-4090');
}

describe('the question first', () => {
  for (const [name, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ]) {
    test(`Llama-3-8B with QLoRA fits a 24 GB card, verdict in view (${name})`, T, async () => {
      const { page, problems } = await openPage(session, { viewport });
      try {
        await askQlora(page);
        // The task's settings are the engine's QLoRA recipe (core/src/task_defaults.cpp:
        // qlora.py's bf16 compute, gradient checkpointing, 32-bit AdamW, rank-64 adapters on
        // every linear layer); the same flags on the CLI give the same verdict.
        assert.equal(await page.inputValue('#wl-dtype'), 'bf16');
        assert.equal(await page.inputValue('#wl-recompute'), 'full');
        assert.equal(await page.inputValue('#wl-finetune'), 'qlora');
        const ref = cli(
          '--preset',
          'llama-3-8b',
          '--mode',
          'train',
          '--finetune',
          'qlora',
          '--weight-dtype',
          'int4',
          '--dtype',
          'bf16',
          '--optimizer',
          'adamw',
          '--recompute',
          'full',
          '--lora-rank',
          '64',
          '--lora-alpha',
          '16',
          '--lora-targets',
          'all-linear',
          '--seq-len',
          '2048',
          '--batch',
          '4',
          '--gpu',
          'rtx-4090',
        );
        const report = await lastReport(page);
        assert.equal(report.memory.total, ref.memory.total);
        assert.equal(ref.gpu_fit.fits, true, 'QLoRA (Dettmers et al. 2023) fine-tunes 7-8B models on one 24 GB card');
        assert.equal(await page.getAttribute('.fit-verdict', 'data-fits'), 'true');
        assert.equal(await page.innerText('#max-batch'), groupDigits(ref.gpu_fit.max_batch));
        if (name === 'laptop') {
          assert.ok(await onFirstScreen(page, '.fit-verdict'), 'the verdict sits beside the question');
        } else {
          // The phone keeps a compact verdict in view while the form scrolls.
          assert.ok(await onFirstScreen(page, '#sticky-summary'));
          assert.match(await page.innerText('#sticky-summary'), /Fits/);
        }
        await page.evaluate(() => scrollTo(0, 0));
        await screenshot(page, `qlora-llama3-8b-4090-${name}`);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }

  test("ResNet-50, batch 256, mixed, Adam on a 3090: the CLI's verdict from the first screen", T, async () => {
    const { page, problems } = await openPage(session, { viewport: LAPTOP });
    try {
      await page.selectOption('#preset', 'resnet50');
      await page.fill('#wl-batch', '256');
      await page.selectOption('#wl-dtype', 'mixed');
      await page.selectOption('#wl-optimizer', 'adam');
      await page.selectOption('#wl-gpu', 'rtx-3090');
      const ref = cli(
        '--preset',
        'resnet50',
        '--mode',
        'train',
        '--batch',
        '256',
        '--dtype',
        'mixed',
        '--optimizer',
        'adam',
        '--gpu',
        'rtx-3090',
      );
      const report = await lastReport(page);
      assert.equal(report.memory.total, ref.memory.total);
      assert.equal(await page.getAttribute('.fit-verdict', 'data-fits'), String(ref.gpu_fit.fits));
      assert.equal(await page.innerText('#max-batch'), groupDigits(ref.gpu_fit.max_batch));
      assert.ok(await onFirstScreen(page, '.fit-verdict'));
      await screenshot(page, 'resnet50-3090-laptop');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('tasks', () => {
  test("each task starts from the engine's settings; inference hides the optimizer", T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'llama-3-8b');
      const tasks = await page.$$eval('#wl-task option', (os) => os.map((o) => o.value));
      assert.deepEqual(tasks, ['train', 'infer', 'lora', 'qlora']);
      await page.selectOption('#wl-task', 'infer');
      assert.equal(await page.inputValue('#wl-mode'), 'infer');
      assert.equal(await page.locator('#wl-optimizer').isVisible(), false, 'no optimizer in inference');
      await page.selectOption('#wl-task', 'lora');
      assert.equal(await page.inputValue('#wl-finetune'), 'lora');
      assert.equal(await page.locator('#wl-optimizer').isVisible(), true);
      // 8-bit Adam comes from the schema's enum.
      const optimizers = await page.$$eval('#wl-optimizer option', (os) => os.map((o) => o.value));
      assert.ok(optimizers.includes('adam8bit'), optimizers.join(','));
      // A CNN has no LoRA task.
      await page.selectOption('#preset', 'resnet50');
      const cnnTasks = await page.$$eval('#wl-task option', (os) => os.map((o) => o.value));
      assert.deepEqual(cnnTasks, ['train', 'infer']);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('To make it fit', () => {
  test("Apply merges the advisor's patch; Undo restores the workload", T, async () => {
    const { page, problems } = await openPage(session, { viewport: LAPTOP });
    try {
      // QLoRA at batch 16: past the card's largest batch, so the advisor proposes changes.
      await askQlora(page);
      await page.fill('#wl-batch', '16');
      const before = await lastReport(page);
      assert.equal(before.gpu_fit.fits, false, 'QLoRA of 8B at batch 16 x 2048 tokens does not fit 24 GB');
      const advice = before.gpu_fit.advice;
      assert.ok(advice.length > 0);
      assert.equal(await page.locator('ol.advice li').count(), advice.length);
      assert.ok(await onFirstScreen(page, '#advice-h'), '"To make it fit" is in view');
      await screenshot(page, 'advice-before');
      const workloadBefore = await page.evaluate(() => ({ ...globalThis.dlcostPage.getState().workload }));
      await page.click('ol.advice li:first-child button.apply');
      const after = await lastReport(page);
      assert.equal(after.gpu_fit.fits, true, `applied: ${advice[0].change}`);
      // Every key the advice sets now has the advised value in the report's workload.
      for (const [key, value] of Object.entries(advice[0].set)) {
        if (key in after.workload) assert.deepEqual(after.workload[key], value, key);
      }
      assert.equal(after.gpu_fit.per_gpu.total, advice[0].per_gpu_bytes);
      await screenshot(page, 'advice-applied');
      await page.click('#advice-undo');
      const undone = await lastReport(page);
      assert.equal(undone.memory.total, before.memory.total);
      assert.deepEqual(await page.evaluate(() => ({ ...globalThis.dlcostPage.getState().workload })), workloadBefore);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('tables', () => {
  for (const [name, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ]) {
    test(`the per-layer table shows its figures at ${viewport.width} px`, T, async () => {
      const { page, problems } = await openPage(session, { viewport });
      try {
        await page.selectOption('#preset', 'resnet50');
        const inView = await page.evaluate(() => {
          const wrap = document.getElementById('layers').getBoundingClientRect();
          const out = {};
          for (const th of document.querySelectorAll('table.layers thead th')) {
            const r = th.getBoundingClientRect();
            out[th.querySelector('button').dataset.key] =
              r.width > 0 && r.left >= wrap.left - 1 && r.right <= wrap.right + 1;
          }
          return out;
        });
        for (const key of ['name', 'params', 'macs', 'activation_bytes'])
          assert.equal(inView[key], true, `${key} at ${name}`);
        await page.locator('#layers').scrollIntoViewIfNeeded();
        await screenshot(page, `layers-table-${name}`);
        // The GPU comparison keeps its point in view: fits, samples/s and the value columns.
        await page.click('#gpus-box summary');
        await page.waitForSelector('.gpu-table');
        const gpuCols = await page.evaluate(() => {
          const wrap = document.querySelector('#compare-gpus .table-scroll').getBoundingClientRect();
          const out = {};
          for (const th of document.querySelectorAll('.gpu-table thead th')) {
            const r = th.getBoundingClientRect();
            out[th.querySelector('button').dataset.key] =
              r.width > 0 && r.left >= wrap.left - 1 && r.right <= wrap.right + 1;
          }
          return out;
        });
        await page.locator('#compare-gpus').scrollIntoViewIfNeeded();
        await screenshot(page, `gpu-table-${name}`);
        for (const key of ['name', 'fits', 'samples_per_s', 'samples_per_s_per_1000usd', 'samples_per_s_per_watt']) {
          assert.equal(gpuCols[key], true, `GPU table ${key} at ${name}: ${JSON.stringify(gpuCols)}`);
        }

        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }
});

describe('errors name their field', () => {
  test("in the page's language, with the unit", T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.fill('#wl-memory', '-1');
      assert.match(await page.innerText('#wl-memory-error'), /^GPU memory \(GiB\): .*GiB/);
      await page.fill('#wl-memory', '24');
      await page.fill('#wl-batch', '0');
      assert.match(await page.innerText('#wl-batch-error'), /^Batch size: .*samples/);
      await page.selectOption('#lang', 'zh');
      assert.match(await page.innerText('#wl-batch-error'), /^批大小: /);
      await screenshot(page, 'error-named-zh');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('keyboard', () => {
  test('skip links reach model, workload, GPU and results; few Tab presses to the batch', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const targets = await page.$$eval('.skips a', (as) => as.map((a) => a.getAttribute('href')));
      assert.deepEqual(targets, ['#model-h', '#workload-h', '#gpu-h', '#results']);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement.getAttribute('href')), '#gpu-h');
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement.id), 'gpu-h');
      await page.focus('#preset');
      let presses = 0;
      while (presses < 40 && (await page.evaluate(() => document.activeElement.id)) !== 'wl-batch') {
        await page.keyboard.press('Tab');
        presses += 1;
      }
      assert.ok(presses < 12, `${presses} Tab presses from the preset to the batch size`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('the layer editor', () => {
  test('Add layer inserts after the selected row; a row duplicates; Alt+arrow moves it', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'alexnet');
      const names = () => page.evaluate(() => globalThis.dlcostPage.lastReport().layers.map((l) => l.name));
      const count = await page.locator('.layer-row').count();
      await page.focus('.layer-row[data-index="1"] .row-fields');
      await page.selectOption('#add-type', 'relu');
      await page.click('#add-layer');
      const types = await page.$$eval('.layer-row .row-type', (ss) => ss.map((s) => s.value));
      assert.equal(types.length, count + 1);
      assert.equal(types[2], 'relu', 'inserted after row 1, not at the end');
      await page.click('.layer-row[data-index="2"] .dup');
      const afterDup = await page.$$eval('.layer-row .row-type', (ss) => ss.map((s) => s.value));
      assert.equal(afterDup.length, count + 2);
      assert.equal(afterDup[3], 'relu');
      await page.focus('.layer-row[data-index="3"] .row-fields');
      await page.keyboard.press('Alt+ArrowUp');
      assert.equal(await page.evaluate(() => document.activeElement.closest('.layer-row').dataset.index), '2');
      assert.ok((await names()).length > 0);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('figures open to their formula', () => {
  test('LLM inference: prefill and decode are labelled, and each verdict figure explains itself', T, async () => {
    const { page, problems } = await openPage(session, { viewport: LAPTOP });
    try {
      await page.selectOption('#preset', 'llama-3.2-1b');
      await page.selectOption('#wl-task', 'infer');
      await page.fill('#wl-generated-tokens', '128');
      await page.selectOption('#wl-gpu', 'rtx-4090');
      const extras = await page.innerText('#extras');
      assert.match(extras, /Prefill time/);
      assert.match(extras, /Decode speed/);
      assert.match(await page.innerText('#totals [data-total="totalFlops"]'), /forward pass/);
      const panel = page.locator('#explain-panel');
      for (const [sel, id] of [
        ['#max-batch', '/gpu_fit/max_batch'],
        ['#step-time', '/gpu_fit/step_time_s'],
        ['#extras dd[data-key="tokens_per_s"]', '/gpu_fit/tokens_per_s'],
        ['#extras dd[data-key="bound"]', '/gpu_fit/roofline/bound'],
        ['#extras dd[data-key="samples_per_s"]', '/gpu_fit/samples_per_s'],
        ['#totals [data-total="totalFlops"] .card-value', '/flops/total'],
      ]) {
        await page.waitForSelector(`${sel}.explainable`, { timeout: 10000 });
        await page.click(sel);
        assert.equal(await panel.getAttribute('data-id'), id, sel);
        assert.ok((await panel.innerText()).includes('='), `${sel}: a formula`);
        await page.click(sel); // closes it again
      }
      await page.click('#extras dd[data-key="tokens_per_s"]');
      await screenshot(page, 'explain-decode');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
