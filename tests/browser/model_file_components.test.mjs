// A safetensors checkpoint dropped on the page is checked tensor by tensor against the
// engine's components of the model (the CLI's `estimate --weights` table): rows equal to the
// CLI's, a missing LM head and an extra tensor listed, the tensors' names shown as text; the
// check follows the model chosen after the drop, or a config.json dropped with the file.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LLAMA64_COMPONENTS, LLAMA64_CONFIG, llama64Tensors, safetensorsBytes } from '../js/llama_checkpoint.mjs';
import { runCli } from '../js/native_cli.mjs';
import { ARTIFACTS, lastReport, openPage, screenshot, sessionPerFile } from './harness.mjs';

const T = { timeout: 90000 };
const session = sessionPerFile(T.timeout);
const dir = mkdtempSync(join(tmpdir(), 'dlcost-mfc-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Drops files ({name: bytes or text}) on the paste box at once, as a user's drag would. */
async function drop(page, files) {
  const list = Object.entries(files).map(([name, data]) => ({ name, b64: Buffer.from(data).toString('base64') }));
  await page.evaluate((items) => {
    const dt = new DataTransfer();
    for (const { name, b64 } of items)
      dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name));
    const paste = document.getElementById('paste');
    paste.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, list);
}

/** The component table's rows as shown: [component, tensors, in the file, by dlcost, difference]. */
const tableRows = (page) =>
  page.$$eval('#model-file table.by-component tbody tr', (trs) =>
    trs.map((tr) => [tr.dataset.component, ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]),
  );

const groupDigits = (n) => (n < 0 ? '-' : '') + String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** The CLI's check of the same file and config, as the page's rows (components neither side has left out). */
function cliRows(bytes) {
  const file = join(dir, 'model.safetensors');
  const config = join(dir, 'config.json');
  writeFileSync(file, bytes);
  writeFileSync(config, JSON.stringify(LLAMA64_CONFIG));
  const cli = runCli(['estimate', config, '--weights', file, '--json']);
  assert.equal(cli.status, 0, cli.stderr);
  return cli.json.model_file.components.rows
    .filter((r) => r.engine !== 0 || r.file !== 0)
    .map((r) => [r.component, ...[r.tensors, r.file, r.engine, r.difference].map(groupDigits)]);
}

/** Pastes the Llama config as the page's model and waits for its report. */
async function useLlamaConfig(page) {
  await page.fill('#paste', JSON.stringify(LLAMA64_CONFIG));
  // 106,816 parameters: the sum of LLAMA64_COMPONENTS, the shapes the checkpoint holds.
  await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.params?.total === 106816);
}

describe("a dropped checkpoint against the model's components", () => {
  test('a checkpoint that matches its config: each row equals the shapes it holds and the CLI', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await useLlamaConfig(page);
      const bytes = safetensorsBytes(llama64Tensors());
      await drop(page, { 'model.safetensors': bytes });
      await page.waitForSelector('#model-file table.by-component');
      const rows = await tableRows(page);
      assert.deepEqual(rows, cliRows(bytes));
      // The elements each component's shapes hold (llama_checkpoint.mjs), in the file and by dlcost.
      for (const [component, , file, engine, difference] of rows) {
        assert.equal(file, groupDigits(LLAMA64_COMPONENTS[component]), component);
        assert.equal(engine, file, component);
        assert.equal(difference, '0', component);
      }
      assert.ok(await page.$('#model-file .components-match'));
      assert.equal(await page.$('#model-file tr.differs'), null);
      assert.equal((await lastReport(page)).params.total, 106816, 'the drop does not change the model');
      await screenshot(page, 'model-file-components');
      await page.locator('#model-file').screenshot({ path: join(ARTIFACTS, 'model-file-components-panel.png') });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('a missing LM head and an extra tensor are listed, names as text', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await useLlamaConfig(page);
      const tensors = llama64Tensors();
      delete tensors['lm_head.weight'];
      const extra = 'vision_tower.<img src=x onerror="window.pwned=1">.weight';
      tensors[extra] = [16, 8];
      const bytes = safetensorsBytes(tensors);
      await drop(page, { 'model.safetensors': bytes });
      await page.waitForSelector('#model-file table.by-component');
      const rows = await tableRows(page);
      assert.deepEqual(rows, cliRows(bytes));
      // The config declares an untied head of 256 x 64 the file lacks.
      assert.deepEqual(
        rows.find((r) => r[0] === 'lm_head'),
        ['lm_head', '0', '0', '16,384', '-16,384'],
      );
      const differs = await page.$$eval('#model-file tr.differs', (trs) => trs.map((tr) => tr.dataset.component));
      assert.deepEqual(differs, ['lm_head']);
      assert.ok(await page.$('#model-file .components-differ'));
      const unplaced = await page.$$eval('#model-file ul.unplaced li', (lis) => lis.map((li) => li.textContent));
      assert.deepEqual(unplaced, [extra]);
      assert.match(
        await page.locator('#model-file').textContent(),
        /Tensors whose names match no component: 1, 128 parameters/,
      );
      assert.equal(await page.$('#model-file img'), null, 'a tensor name is text, not markup');
      assert.equal(await page.evaluate(() => window.pwned), undefined);
      await page.locator('#model-file').screenshot({ path: join(ARTIFACTS, 'model-file-components-differ.png') });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('the check follows the model chosen after the drop, or a config.json dropped with the file', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      // The page opens on a CNN preset: no check, a hint to choose the transformer.
      const bytes = safetensorsBytes(llama64Tensors());
      await drop(page, { 'model.safetensors': bytes });
      await page.waitForSelector('#model-file .model-file-summary');
      assert.equal(await page.$('#model-file table.by-component'), null);
      assert.match(await page.locator('#model-file').textContent(), /paste its config\.json, to check its tensors/);
      await useLlamaConfig(page);
      await page.waitForSelector('#model-file table.by-component');
      assert.deepEqual(await tableRows(page), cliRows(bytes));
      // A config.json dropped with the checkpoint is the model its tensors are checked against,
      // whatever the page's model.
      await page.selectOption('#preset', 'resnet18');
      await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.params?.total === 11689512);
      await page.waitForFunction(() => !document.querySelector('#model-file table.by-component'));
      await drop(page, { 'config.json': JSON.stringify(LLAMA64_CONFIG), 'model.safetensors': bytes });
      await page.waitForSelector('#model-file table.by-component');
      assert.deepEqual(await tableRows(page), cliRows(bytes));
      assert.equal((await lastReport(page)).params.total, 11689512, 'the page keeps its model');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test(
    "a Hugging Face config.json dropped with the checkpoint is offered as the model, with the file's weights",
    T,
    async () => {
      const { page, problems } = await openPage(session);
      try {
        const bytes = safetensorsBytes(llama64Tensors());
        // A dlcost document named config.json is checked against, not offered (isHfConfig: no).
        await drop(page, {
          'config.json': JSON.stringify({ model: { preset: 'resnet18' } }),
          'model.safetensors': bytes,
        });
        await page.waitForSelector('#model-file .model-file-summary');
        assert.equal(await page.$('#model-file button.use-config'), null);
        await drop(page, { 'config.json': JSON.stringify(LLAMA64_CONFIG), 'model.safetensors': bytes });
        await page.waitForSelector('#model-file button.use-config');
        await page.click('#model-file button.use-config');
        // 106,816 parameters: the sum of LLAMA64_COMPONENTS, the shapes the checkpoint holds.
        await page.waitForFunction(() => globalThis.dlcostPage.lastReport()?.params?.total === 106816);
        // The weights term is the file's tensor bytes, as `dlcost estimate config.json --weights FILE` has it.
        writeFileSync(join(dir, 'model.safetensors'), bytes);
        writeFileSync(join(dir, 'config.json'), JSON.stringify(LLAMA64_CONFIG));
        const cli = runCli([
          'estimate',
          join(dir, 'config.json'),
          '--weights',
          join(dir, 'model.safetensors'),
          '--json',
        ]);
        assert.equal(cli.status, 0, cli.stderr);
        const weights = (r) => r.memory.terms.find((x) => x.key === 'weights').bytes;
        assert.equal(weights(await lastReport(page)), weights(cli.json));
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    },
  );

  test("a model that cannot be read is named in the page's language, the engine's Chinese included", T, async () => {
    for (const [locale, expected] of [
      ['en', /^The tensors are checked once the model reads without error: unknown field 'bogus' \(allowed here: /],
      // json_reader.cpp writes this error in both languages (InputError's Text).
      ['zh', /^模型读取无误后再核对张量：未知字段 'bogus'（此处允许：/],
    ]) {
      const { page, problems } = await openPage(session, { locale });
      try {
        const config = JSON.stringify({ model: { preset: 'resnet18', bogus: 1 } });
        await drop(page, { 'config.json': config, 'model.safetensors': safetensorsBytes(llama64Tensors()) });
        await page.waitForSelector('#model-file .components p.hint');
        assert.match(await page.locator('#model-file .components p.hint').textContent(), expected);
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    }
  });

  test('the table in Chinese', T, async () => {
    const { page, problems } = await openPage(session, { locale: 'zh' });
    try {
      await useLlamaConfig(page);
      await drop(page, { 'model.safetensors': safetensorsBytes(llama64Tensors()) });
      await page.waitForSelector('#model-file table.by-component');
      const caption = await page.locator('#model-file table.by-component caption').textContent();
      assert.match(caption, /文件中的张量按组件/);
      const heads = await page.$$eval('#model-file table.by-component tbody th', (ths) =>
        ths.map((th) => th.textContent),
      );
      assert.deepEqual(heads, ['嵌入', '注意力', 'MLP 与专家', '归一化', '语言模型头']);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});
