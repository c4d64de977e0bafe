// "Layer graph" (issue #28 item 2): a CNN preset's graph with one node per report row and the
// heaviest by saved bytes highlighted, a transformer's block diagram with its decoder blocks
// folded, one pick shared by the graph, the per-layer table and the timeline's slider, arrow
// keys and Enter, en and zh, at 1366 and 390 px; then the draw time of densenet169 and of a
// pasted 1,000-layer document (printed for docs/benchmarks.md). Screenshots go to
// /tmp/page-shots/.

import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import { lastReport, openPage, sessionPerFile } from './harness.mjs';

const T = { timeout: 180000 };
const session = sessionPerFile(T.timeout);
const SHOTS = '/tmp/page-shots';
mkdirSync(SHOTS, { recursive: true });

/** @param {import('playwright-core').Page} page @param {string} name */
const graphData = (page, name) => page.getAttribute('#lg-graph', `data-${name}`);

/** Opens the graph box and waits for the graph of the current report. */
async function openGraph(page) {
  await page.click('#graph-box > summary');
  await page.locator('#lg-graph').waitFor();
}

/** The rows the engine keeps most bytes for, heaviest first (ties by order), as the page's. */
function heaviestRows(report, count) {
  return report.layers
    .map((l, i) => i)
    .filter((i) => report.layers[i].activation_bytes > 0)
    .sort((a, b) => report.layers[b].activation_bytes - report.layers[a].activation_bytes || a - b)
    .slice(0, count);
}

/** Checks the picks of the three views follow each other (resnet18 with the timeline open). */
async function checkPicks(page, report) {
  await page.focus('#lg-graph');
  await page.keyboard.press('ArrowDown');
  assert.equal(await graphData(page, 'focus'), '1');
  assert.match(await page.textContent('#lg-node'), new RegExp(`^${report.layers[1].name} \\(conv2d\\): output `));
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.equal(await graphData(page, 'selected'), '2');
  await page.locator('#layers tr.selected[data-index="2"]').waitFor();
  assert.match(await page.textContent('#tl-event'), new RegExp(`of ${report.layers[2].name.replace('.', '\\.')}`));
  // The table picks for the graph and the timeline.
  await page.click('#layers tr[data-index="5"] td:first-child');
  assert.equal(await graphData(page, 'selected'), '5');
  assert.equal(await graphData(page, 'focus'), '5');
  assert.match(await page.textContent('#tl-event'), new RegExp(report.layers[5].name.replace('.', '\\.')));
  // The timeline picks for the graph and the table.
  await page.focus('#tl-slider');
  await page.keyboard.press('ArrowRight');
  const said = await page.textContent('#tl-event');
  const picked = Number(await graphData(page, 'selected'));
  assert.ok(said.includes(report.layers[picked].name), `${said} vs row ${picked}`);
  await page.locator(`#layers tr.selected[data-index="${picked}"]`).waitFor();
}

describe('layer graph', () => {
  for (const [device, viewport] of [
    ['desktop', { width: 1366, height: 768 }],
    ['phone', { width: 390, height: 844 }],
  ]) {
    test(`resnet18: nodes, heaviest, picks shared, keys, en and zh (${device})`, T, async () => {
      const { page, problems } = await openPage(session, { viewport });
      try {
        await page.selectOption('#preset', 'resnet18');
        await page.click('#timeline-box > summary');
        await page.locator('#tl-peak').waitFor();
        await openGraph(page);
        const report = await lastReport(page);
        assert.equal(await graphData(page, 'kind'), 'graph');
        assert.equal(Number(await graphData(page, 'nodes')), report.layers.length);
        const heavy = heaviestRows(report, 5);
        assert.equal(await graphData(page, 'heavy'), heavy.join(','));
        assert.equal(await page.locator('#lg-heavy li').count(), 5);
        assert.match(await page.textContent('#lg-heavy li'), new RegExp(`^${report.layers[heavy[0]].name} · `));
        await checkPicks(page, report);
        await page.locator('#graph-box').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/layer-graph-${device}-en.png` });
        await page.selectOption('#lang', 'zh');
        await page.locator('#graph-box > summary', { hasText: '层结构图' }).waitFor();
        await page.locator('#lg-node', { hasText: '输出' }).waitFor();
        assert.equal(await graphData(page, 'focus'), String(await graphData(page, 'selected')), 'focus kept');
        assert.match(await page.getAttribute('#lg-graph', 'aria-label'), /层的结构图/);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `document ${width} px wide`);
        await page.locator('#graph-box').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/layer-graph-${device}-zh.png` });
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }

  test('llama-3.1-8b: a block diagram, 32 decoder blocks drawn once (× 32), picks by row', T, async () => {
    const { page, problems } = await openPage(session, { viewport: { width: 1366, height: 768 } });
    try {
      await page.selectOption('#preset', 'llama-3.1-8b');
      await openGraph(page);
      const report = await lastReport(page);
      assert.equal(await graphData(page, 'kind'), 'blocks');
      const nodes = Number(await graphData(page, 'nodes'));
      assert.ok(nodes > 1 && nodes < report.layers.length / 8, `${nodes} nodes for ${report.layers.length} rows`);
      // A fifth of a small diagram's nodes is marked heaviest: one of five.
      assert.equal((await graphData(page, 'heavy')).split(',').length, Math.ceil(nodes / 5));
      const row = report.layers.findIndex((l) => /^layers\.7\./.test(l.name));
      assert.ok(row > 0);
      await page.evaluate((i) => {
        const wrap = document.getElementById('layers');
        wrap.scrollTop = Math.max(0, (i - 3) * 26);
      }, row);
      await page.locator(`#layers tr[data-index="${row}"]`).click();
      assert.equal(await graphData(page, 'selected'), String(row));
      // The folded block shows block 0's row: the same part of every block.
      const shown = Number(await graphData(page, 'focus'));
      assert.equal(report.layers[shown].name, report.layers[row].name.replace('layers.7.', 'layers.0.'));
      await page.focus('#lg-graph');
      await page.keyboard.press('End');
      assert.match(await page.textContent('#lg-node'), /^lm_head/);
      await page.locator('#graph-box').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/layer-graph-llama-desktop-en.png` });
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('draw time: densenet169 and a pasted 1,000-layer document, median recorded', T, async () => {
    const { page, problems } = await openPage(session, { viewport: { width: 1366, height: 768 } });
    try {
      await page.selectOption('#preset', 'densenet169');
      await openGraph(page);
      const dense = await medianDraw(page);
      await page.fill('#paste', JSON.stringify(chainDocument(1000)));
      await page.locator('#lg-graph[data-nodes="1001"]').waitFor();
      const chain = await medianDraw(page);
      console.log(
        `layer graph draw, median ms: densenet169 ${dense.ms} (${dense.nodes} nodes), 1000 layers ${chain.ms}`,
      );
      // A figure for docs/benchmarks.md, not a pass mark: speed is measured in benchmarks,
      // not asserted in timed tests (a loaded CI machine draws slower).
      for (const ms of [dense.ms, chain.ms]) assert.ok(Number.isFinite(ms) && ms > 0, `${dense.ms} ms, ${chain.ms} ms`);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

/** Draws the open graph 21 times, scrolled from top to bottom; the median milliseconds. */
async function medianDraw(page) {
  return page.evaluate(() => {
    const scroller = document.getElementById('lg-graph');
    const times = [];
    for (let k = 0; k <= 20; k += 1) {
      scroller.scrollTop = ((scroller.scrollHeight - scroller.clientHeight) * k) / 20;
      times.push(globalThis.dlcostPage.redrawLayerGraph());
    }
    times.sort((a, b) => a - b);
    return { ms: Math.round(times[10] * 100) / 100, nodes: Number(scroller.dataset.nodes) };
  });
}

/** A model document of `n` layers: linear and relu, a residual add every fourth layer. */
function chainDocument(n) {
  const layers = [];
  for (let i = 0; i < n; i += 1) {
    if (i % 4 === 3) layers.push({ name: `l${i}`, type: 'add', inputs: [`l${i - 3}`, `l${i - 1}`] });
    else if (i % 2 === 0) layers.push({ name: `l${i}`, type: 'linear', out_features: 64 });
    else layers.push({ name: `l${i}`, type: 'relu' });
  }
  return { name: 'chain_1000', input: [64], layers };
}
