// The page in headless Chromium (the browser tests' server and flags): bytes transferred for
// the main page and embed.html (when dist/ has one), raw and gzipped, both for the files
// fetched before the first result shows (what the transfer targets count) and for all
// files fetched until the network is idle (the engine's second module, loaded after the first
// result for the explanations, included); time from navigation to
// the first correct result (the default preset's report equal to the CLI's); and the median
// time from an input change to the redrawn result for the largest preset.
//
//   node bench/page_bench.mjs [--json] [--reps 40]
// Needs dist/ (scripts/build-web), build/dlcost and node_modules/playwright-core.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cliEstimate, cliPresets, WASM_MODULE } from '../tests/js/native_cli.mjs';
import { DIST, openSession } from '../tests/browser/harness.mjs';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const reps = Number(args[args.indexOf('--reps') + 1] || 40) || 40;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function sizes(files) {
  let raw = 0;
  let gz = 0;
  for (const bytes of files.values()) {
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  return { files: files.size, raw, gzip: gz };
}

// A result on the page: the main page's test hook has a report; the widget says "ok".
const shown = () => Boolean(globalThis.dlcostPage?.lastReport?.()) || document.body.dataset.state === 'ok';

async function transferred(session, path) {
  const context = await session.browser.newContext();
  // When the result first shows, from a 2 ms poll inside the page (the test's own wait may
  // answer later on a loaded machine, after the page has gone on to load what follows).
  await context.addInitScript(() => {
    const poll = setInterval(() => {
      if (globalThis.dlcostPage?.lastReport?.() || document.body?.dataset.state === 'ok') {
        globalThis.dlcostFirstResultAt = performance.now();
        clearInterval(poll);
      }
    }, 2);
  });
  const page = await context.newPage();
  const files = new Map();
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin !== new URL(session.url).origin) return;
    const file = join(DIST, u.pathname.endsWith('/') ? `${u.pathname}index.html` : u.pathname);
    if (existsSync(file)) files.set(u.pathname, readFileSync(file));
  });
  await page.goto(session.url + path, { waitUntil: 'commit', timeout: 30000 });
  await page.waitForFunction(shown, null, { timeout: 30000, polling: 'raf' });
  await page.waitForFunction(() => globalThis.dlcostFirstResultAt !== undefined);
  // The document and every file whose request started before the result showed.
  const before = new Set(await page.evaluate(() => [
    new URL(location.href).pathname,
    ...performance.getEntriesByType('resource')
      .filter((e) => e.startTime <= globalThis.dlcostFirstResultAt)
      .map((e) => new URL(e.name).pathname),
  ]));
  const first = sizes(new Map([...files].filter(([name]) => before.has(name))));
  const firstFiles = [...files.keys()].filter((name) => before.has(name)).sort();
  await page.waitForLoadState('networkidle', { timeout: 30000 });
  await new Promise((done) => setTimeout(done, 1000));  // the insights' delayed load
  await page.waitForLoadState('networkidle', { timeout: 30000 });
  await context.close();
  return { path, first_result: { ...first, names: firstFiles }, idle: sizes(files) };
}

const session = await openSession();
const out = { transfers: [], first_result_ms: [], input_to_redraw: null };
try {
  out.transfers.push(await transferred(session, ''));
  if (existsSync(join(DIST, 'embed.html'))) {
    // The widget shows a share link's result: the page's default preset and workload.
    const engine = await (await import(WASM_MODULE)).default();
    const state = { doc: { model: { preset: 'alexnet' }, workload: { mode: 'train', batch: 32, memory_gib: 24 } }, ui: { units: 'binary', lang: 'en' } };
    const { fragment } = JSON.parse(engine.shareLinkEncode(JSON.stringify(state)));
    out.transfers.push(await transferred(session, `embed.html${fragment}`));
  }

  // Navigation to the first correct result, over a few fresh contexts (no cache).
  const presets = cliPresets();
  const first = presets.some((p) => p.name === 'alexnet') ? 'alexnet' : presets[0].name;  // the page's default
  for (let i = 0; i < 5; i += 1) {
    const context = await session.browser.newContext();
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(session.url, { waitUntil: 'commit' });
    await page.waitForFunction(() => Boolean(globalThis.dlcostPage?.lastReport()), null, { timeout: 30000, polling: 'raf' });
    out.first_result_ms.push(Date.now() - t0);
    // Correct: the CLI's report for the document the page estimated (its default preset and
    // its task's default workload).
    const { report, doc } = await page.evaluate(() => ({ report: globalThis.dlcostPage.lastReport(), doc: globalThis.dlcostPage.document() }));
    if (doc.model.preset !== first) throw new Error(`the page opened ${doc.model.preset}, not ${first}`);
    if (JSON.stringify(report) !== JSON.stringify(cliEstimate(doc).json)) throw new Error('first result differs from the CLI');
    await context.close();
  }

  // Input change -> redrawn result for the preset with the most layers (a CNN) and for the
  // transformer preset with the most parameters.
  const context = await session.browser.newContext();
  const page = await context.newPage();
  await page.goto(session.url, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready="true"]');
  let largest = first;
  let most = -1;
  let llm = null;
  let llmParams = -1;
  for (const { name, family } of presets) {
    const report = cliEstimate({ model: { preset: name } }).json;
    if (report.layers.length > most) [largest, most] = [name, report.layers.length];
    if (family !== 'cnn' && report.params.total > llmParams) [llm, llmParams] = [name, report.params.total];
  }
  out.input_to_redraw = await redraw(page, largest, most);
  if (llm) out.input_to_redraw_llm = await redraw(page, llm, cliEstimate({ model: { preset: llm } }).json.layers.length);
  await context.close();
} finally {
  await session.close();
}

/** The median time from a batch change to the next frame after the redraw, for `preset`. */
async function redraw(page, preset, layers) {
  await page.selectOption('#preset', preset);
  // Measured inside the page: from the input event to the next frame after the redraw.
  const times = await page.evaluate(async (count) => {
    const input = document.getElementById('wl-batch');
    const ms = [];
    for (let i = 0; i < count; i += 1) {
      const t0 = performance.now();
      input.value = String(8 + (i % 2));
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((done) => requestAnimationFrame(() => done()));
      ms.push(performance.now() - t0);
    }
    return ms;
  }, reps);
  const shownBatch = await page.evaluate(() => globalThis.dlcostPage.lastReport().workload.batch);
  if (shownBatch !== 8 + ((reps - 1) % 2)) throw new Error('the last change was not redrawn');
  return { preset, layers, reps, median_ms: median(times), max_ms: Math.max(...times) };
}
out.first_result_median_ms = median(out.first_result_ms);

if (asJson) {
  console.log(JSON.stringify(out));
} else {
  for (const t of out.transfers) {
    const f = t.first_result;
    console.log(`${t.path.split('#')[0] || 'index.html'}: first result ${f.files} files, ${f.raw} B raw, ${f.gzip} B gzipped (${f.names.join(' ')}); `
      + `until idle ${t.idle.files} files, ${t.idle.raw} B raw, ${t.idle.gzip} B gzipped`);
  }
  console.log(`navigation to first correct result: median ${out.first_result_median_ms} ms (${out.first_result_ms.join(', ')})`);
  for (const r of [out.input_to_redraw, out.input_to_redraw_llm].filter(Boolean)) {
    console.log(`input change to redraw, ${r.preset} (${r.layers} rows): median ${r.median_ms.toFixed(1)} ms over ${r.reps}, max ${r.max_ms.toFixed(1)} ms`);
  }
}
