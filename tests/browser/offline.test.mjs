// Offline: after one visit the page works with no network. The service worker (dist/sw.js,
// registered by js/offline.js) caches every file of the build; with the browser context cut
// off the network, a reload still computes the same report (page.test.mjs checks those figures
// against the CLI), and the Under load section simulates in its Web Worker. Also: the
// manifest is linked and names an icon that exists.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DIST, lastReport, openPage, sessionPerFile } from './harness.mjs';

const T = { timeout: 90000 };
const session = sessionPerFile(T.timeout);


describe('offline', () => {
  test('after one visit the page reloads and computes with the network cut', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      // The worker has installed (every file cached) and controls the page.
      await page.evaluate(() => navigator.serviceWorker.ready);
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20000 });
      const online = await lastReport(page);
      assert.ok(online && online.memory.total > 0);

      await page.context().setOffline(true);
      // The network is really gone for this context: a file the build does not have fails.
      const before = problems.length;
      const probe = await page.evaluate(() => fetch('not-in-the-cache.txt').then(() => 'fetched', () => 'failed'));
      assert.equal(probe, 'failed');
      problems.splice(before);  // the probe's own "Failed to load resource"

      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
      const offline = await lastReport(page);
      assert.equal(offline.memory.total, online.memory.total);
      assert.deepEqual(offline.params, online.params);
      // The Under load section's Web Worker (js/serve_sim_worker.js) and the engine module it
      // loads come from the cache as well: a simulation runs offline, in the worker.
      await page.selectOption('#preset', 'llama-3-8b');
      await page.selectOption('#wl-mode', 'infer');
      await page.selectOption('#wl-gpu', 'h100-sxm');
      await page.selectOption('#wl-engine', 'vllm');
      await page.fill('#ul-requests', '200');
      await page.fill('#ul-prompt-a', '512');
      await page.fill('#ul-output-a', '256');
      await page.click('#ul-run');
      await page.locator('#ul-results[data-via="worker"] #ul-table').waitFor({ timeout: 60000 });
      await page.context().setOffline(false);
      assert.deepEqual(problems.filter((p) => !/Failed to (update|register) a ServiceWorker|ERR_INTERNET_DISCONNECTED/.test(p)), []);
    } finally {
      await page.close();
    }
  });

  test('the web app manifest is linked and its icon is in dist/', () => {
    const html = readFileSync(join(DIST, 'index.html'), 'utf8');
    assert.match(html, /<link rel="manifest" href="manifest.webmanifest">/);
    const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.webmanifest'), 'utf8'));
    assert.equal(manifest.start_url, 'index.html');
    for (const icon of manifest.icons) assert.ok(existsSync(join(DIST, icon.src)), icon.src);
    // The worker lists every file of the build but itself.
    const sw = readFileSync(join(DIST, 'sw.js'), 'utf8');
    for (const f of ['index.html', 'js/dlcost_wasm.wasm', 'js/main.js', 'manifest.webmanifest']) assert.ok(sw.includes(`"${f}"`), f);
  });
});
