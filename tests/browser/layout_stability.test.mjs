// The page and the widget appear without moving what is already on screen: the layout shifts
// (Layout Instability API, the entries Core Web Vitals' CLS sums) from navigation until the
// page is ready add up to nothing. index.html and embed.html keep their contents hidden
// (body[data-starting]) until the first result is drawn, so the form, the result and what
// follows appear together in one frame. Before that, the first frame with a result moved the
// results and the form by 20 to 40 px (CLS 0.27 at 1280 x 720, "poor" above 0.25).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sessionPerFile } from './harness.mjs';

const session = sessionPerFile(60000);

/** The layout shifts of one visit to `path`, each with the elements that moved. */
async function shiftsOf(path, viewport, ready) {
  const context = await session.browser.newContext({ viewport });
  try {
    await context.addInitScript(() => {
      globalThis.dlcostShifts = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          const moved = (e.sources ?? []).map((s) => s.node?.id || s.node?.className || s.node?.nodeName);
          globalThis.dlcostShifts.push({ value: e.value, moved });
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const page = await context.newPage();
    await page.goto(`${session.url}${path}`, { waitUntil: 'load', timeout: 20000 });
    await page.waitForSelector(ready, { timeout: 20000 });
    // Two frames after ready: a shift of the last drawing is reported by then.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    return await page.evaluate(() => globalThis.dlcostShifts);
  } finally {
    await context.close();
  }
}

const total = (shifts) => shifts.reduce((sum, s) => sum + s.value, 0);

describe('layout stability while the page starts', () => {
  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 720 }],
    ['phone', { width: 390, height: 844 }],
  ]) {
    test(`index.html on a ${name} screen: nothing moves until the page is ready`, async () => {
      const shifts = await shiftsOf('', viewport, 'body[data-ready="true"]');
      assert.ok(total(shifts) < 0.001, `layout shift ${total(shifts)}: ${JSON.stringify(shifts)}`);
    });
  }

  test('embed.html (a share link): nothing moves until the widget shows its result', async () => {
    // The link the page's Embed button makes for its default view, from the same engine.
    const dlcost = await (await import('../../dist/js/dlcost.js')).ready();
    const fragment = dlcost.encodeLink({
      doc: { model: { preset: 'alexnet' }, workload: { mode: 'train', batch: 32, memory_gib: 24 } },
      ui: { units: 'binary', lang: 'en' },
    });
    const shifts = await shiftsOf(`embed.html${fragment}`, { width: 600, height: 420 }, 'body[data-ready="true"]');
    assert.ok(total(shifts) < 0.001, `layout shift ${total(shifts)}: ${JSON.stringify(shifts)}`);
  });
});
