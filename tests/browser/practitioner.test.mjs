// The page as practitioners use it (issue 15): the two questions of the issue answered from the
// first screen on a laptop (1366 px) and a phone (390 px), the task menu's starting settings,
// "To make it fit" with Apply and Undo, key table columns in view, errors that name their
// field, controls that follow the task, and skip links. Figures are checked against
// `build/dlcost` for the same flags; screenshots go to tests/artifacts/.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runCli } from '../js/native_cli.mjs';
import { groupDigits, lastReport, openPage, screenshot, sessionPerFile } from './harness.mjs';

const T = { timeout: 120000 };
const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const session = sessionPerFile(T.timeout);

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

  for (const [name, viewport] of [
    ['laptop', LAPTOP],
    ['phone', PHONE],
  ]) {
    test(
      `ResNet-50, batch 256, mixed, Adam on a 3090: the CLI's verdict from the first screen (${name})`,
      T,
      async () => {
        const { page, problems } = await openPage(session, { viewport });
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
          if (name === 'laptop') {
            assert.ok(await onFirstScreen(page, '.fit-verdict'));
          } else {
            // The phone's pinned one-line verdict: fits or not and the largest batch, the CLI's.
            assert.ok(await onFirstScreen(page, '#sticky-summary'));
            const summary = await page.innerText('#sticky-summary');
            assert.match(summary, ref.gpu_fit.fits ? /^Fits/ : /^Does not fit/);
            assert.ok(summary.includes(String(ref.gpu_fit.max_batch)), summary);
          }
          await page.evaluate(() => scrollTo(0, 0));
          await screenshot(page, `resnet50-3090-${name}`);
          assert.deepEqual(problems, []);
        } finally {
          await page.close();
        }
      },
    );
  }
});

describe('tasks', () => {
  test("each task starts from the engine's settings; inference hides the optimizer", T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'llama-3-8b');
      const tasks = await page.$$eval('#wl-task option', (os) => os.map((o) => o.value));
      // The tasks come from the engine's task table (core), pretraining included.
      assert.deepEqual(tasks, ['train', 'pretrain', 'infer', 'lora', 'qlora']);
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
      // The field's name from the schema, the engine's sentence in Chinese (core writes both).
      assert.match(
        await page.innerText('#wl-batch-error'),
        /^批大小: 必须至少为 1，而不是 0（batch：1 到 \d+ 个样本的整数）$/,
      );
      await page.fill('#wl-batch', '4');
      await page.fill('#wl-memory', '-1');
      assert.match(await page.innerText('#wl-memory-error'), /必须至少为 0，而不是 -1.*GiB/);
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

describe('the layer list is one Tab stop', () => {
  test('Tab passes the list in one press; arrows move between rows; Enter/F2 edit; Escape leaves', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'alexnet');
      const active = () =>
        page.evaluate(() => {
          const el = document.activeElement;
          const row = el.closest('.layer-row');
          return {
            id: el.id,
            row: row ? row.dataset.index : null,
            isRow: el.classList.contains('layer-row'),
            tag: el.tagName,
          };
        });
      const rows = await page.locator('.layer-row').count();
      assert.ok(rows > 10, `${rows} rows`);
      // From the last control before the list to the first after it: one press into the list,
      // one out, whatever the number of rows (AlexNet: 23).
      await page.focus('#model-input');
      let presses = 0;
      while (presses < 40 && (await active()).id !== 'add-type') {
        await page.keyboard.press('Tab');
        presses += 1;
        if (presses === 1) assert.deepEqual(await active(), { id: '', row: '0', isRow: true, tag: 'LI' });
      }
      assert.equal(presses, 2, `${presses} Tab presses across a list of ${rows} rows`);
      await page.keyboard.press('Shift+Tab');
      assert.equal((await active()).row, '0');
      // Arrows, Home and End move between rows; the list keeps one tab stop, on the row in focus.
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      assert.deepEqual(await active(), { id: '', row: '2', isRow: true, tag: 'LI' });
      assert.deepEqual(await page.$$eval('.layer-row[tabindex="0"]', (ls) => ls.map((l) => l.dataset.index)), ['2']);
      assert.equal(
        await page.locator('.layer-list [tabindex="0"]:not(.layer-row)').count(),
        0,
        'no control in the Tab order',
      );
      await page.keyboard.press('End');
      assert.equal((await active()).row, String(rows - 1));
      await page.keyboard.press('Home');
      assert.equal((await active()).row, '0');
      await page.keyboard.press('ArrowDown');
      // Enter edits the row: its fields, then Tab through its controls; Escape returns to the row.
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement.className), 'row-fields');
      assert.equal((await active()).row, '1');
      await page.keyboard.press('Tab');
      assert.deepEqual(await active(), { id: '', row: '1', isRow: false, tag: 'BUTTON' });
      await page.keyboard.press('Escape');
      assert.deepEqual(await active(), { id: '', row: '1', isRow: true, tag: 'LI' });
      await page.keyboard.press('F2');
      assert.equal(await page.evaluate(() => document.activeElement.className), 'row-fields');
      await page.keyboard.press('Escape');
      // Alt+↓ on the row moves it and keeps the focus on it.
      const typeOf = (n) => page.$eval(`.layer-row[data-index="${n}"] .row-type`, (s) => s.value);
      const moving = await typeOf(1);
      await page.keyboard.press('Alt+ArrowDown');
      assert.deepEqual(await active(), { id: '', row: '2', isRow: true, tag: 'LI' });
      assert.equal(await typeOf(2), moving);
      // "Add layer" inserts after the row in focus.
      await page.keyboard.press('Tab');
      assert.equal((await active()).id, 'add-type');
      await page.selectOption('#add-type', 'dropout');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      assert.equal(await typeOf(3), 'dropout');
      assert.equal((await active()).row, '3');
      await screenshot(page, 'layer-list-keyboard');
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

  test('LLM per-layer cells open to the formula the engine computed them by', T, async () => {
    const { page, problems } = await openPage(session, { viewport: LAPTOP });
    try {
      await page.selectOption('#preset', 'llama-3.2-1b');
      await page.fill('#wl-seq-len', '512');
      const report = await lastReport(page);
      const panel = page.locator('#explain-panel');
      const row = (name) => report.layers.findIndex((l) => l.name === name);
      for (const [name, col, formula] of [
        ['layers.0.attention', 'params', '2 × hidden × q_width + hidden × (k_width + v_width) + biases + norms'],
        ['layers.0.attention', 'macs', 'batch × tokens × (projections + keys × core_width)'],
        ['layers.0.mlp', 'macs', 'batch × tokens × matrices × hidden × ffn'],
        ['layers.0.mlp', 'activation_bytes', 'batch × tokens × kept_per_token'],
      ]) {
        const i = row(name);
        const cell = page.locator(`#layers tr[data-index="${i}"] td[data-col="${col}"]`);
        await cell.scrollIntoViewIfNeeded();
        await page.waitForSelector(`#layers tr[data-index="${i}"] td[data-col="${col}"].explainable`, {
          timeout: 10000,
        });
        await cell.click();
        assert.equal(await panel.getAttribute('data-id'), `/layers/${i}/${col}`);
        assert.equal(await panel.locator('.explain-formula').innerText(), formula);
        // The result is the report's own figure.
        assert.ok(
          (await panel.locator('.explain-result').innerText()).includes(groupDigits(report.layers[i][col])),
          `${name} ${col}`,
        );
        if (col === 'params') await screenshot(page, 'explain-llm-row');
        await cell.click(); // closes it
      }
      // Llama-3.2-1B (config.json: hidden 2048, 32 heads of 64, 8 KV heads): q_width 2048,
      // k_width = v_width = 512, no biases; one RMSNorm of 2048 before attention.
      const i = row('layers.0.attention');
      await page.locator(`#layers tr[data-index="${i}"] td[data-col="params"]`).click();
      assert.match(await panel.innerText(), /2 × 2,048 × 2,048 \+ 2,048 × \(512 \+ 512\) \+ 0 \+ 2,048 = 10,487,808/);
      await page.selectOption('#lang', 'zh');
      await page.waitForFunction(() =>
        document.querySelector('#explain-panel .explain-title')?.textContent.includes('参数量'),
      );
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('headroom and the largest batch explain themselves with a custom memory size', T, async () => {
    const { page, problems } = await openPage(session, { viewport: LAPTOP });
    try {
      await page.selectOption('#preset', 'resnet50');
      await page.fill('#wl-memory', '24');
      const report = await lastReport(page);
      assert.equal(report.gpu_fit, undefined, 'no GPU: a custom size');
      const panel = page.locator('#explain-panel');
      for (const [sel, id] of [
        ['#headroom', '/memory_fit/headroom_bytes'],
        ['#max-batch', '/memory_fit/max_batch'],
        ['#totals [data-total="totalFlops"] .card-value', '/flops/total'],
      ]) {
        await page.waitForSelector(`${sel}.explainable`, { timeout: 10000 });
        await page.click(sel);
        assert.equal(await panel.getAttribute('data-id'), id, sel);
        await page.click(sel);
      }
      // The verdict says the custom size is compared as typed (no reserve subtracted).
      assert.match(await page.innerText('#reserve-note'), /as typed/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('details (item 9)', () => {
  test(
    'the breakdown lists its non-zero lines in distinct colours, in Chinese, with no stretched text',
    T,
    async () => {
      const { page, problems } = await openPage(session, { viewport: LAPTOP });
      try {
        await askQlora(page);
        await page.selectOption('#lang', 'zh');
        const lines = await page.$$eval('#breakdown .legend li[data-key]:not(.legend-cap):not(.legend-total)', (ls) =>
          ls.map((l) => ({
            key: l.dataset.key,
            label: l.querySelector('.legend-label').textContent,
            swatch: l.querySelector('.swatch').className,
          })),
        );
        const report = await lastReport(page);
        // The lines of the peak (the engine's in_peak) that hold memory, and no others.
        const held = report.memory.terms
          .filter((term) => term.in_peak !== false && term.bytes > 0)
          .map((term) => term.key);
        assert.deepEqual(
          lines.map((l) => l.key),
          held,
        );
        assert.ok(
          report.memory.terms.some((term) => term.bytes <= 0),
          'the report has zero or negative lines, left out',
        );
        assert.equal(new Set(lines.map((l) => l.swatch)).size, lines.length, 'one colour per line');
        // QLoRA's adapter and quantization lines are translated too.
        for (const l of lines) assert.ok(!/adapter|quantization|weights|optimizer/.test(l.label), l.label);
        assert.ok(lines.some((l) => l.key === 'adapter_weights'));
        // The stretched bar holds no text.
        assert.equal(await page.locator('#breakdown svg.bar-svg text').count(), 0);
        // A GPU preset says what it subtracts.
        assert.match(await page.innerText('#reserve-note'), /GiB/);
        await screenshot(page, 'breakdown-qlora-zh');
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    },
  );

  test('advice reads in Chinese when the page does', T, async () => {
    const { page, problems } = await openPage(session, { viewport: LAPTOP });
    try {
      await askQlora(page);
      await page.fill('#wl-batch', '16');
      await page.selectOption('#lang', 'zh');
      const report = await lastReport(page);
      const items = await page.$$eval('ol.advice .advice-change', (ss) => ss.map((s) => s.textContent));
      assert.deepEqual(
        items,
        report.gpu_fit.advice.map((a) => a.change_zh),
      );
      assert.match(items[0], /梯度累积/);
      await screenshot(page, 'advice-zh');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
