// The page in headless Chromium (the browser tests' server and flags): bytes transferred for
// the main page and embed.html (when dist/ has one), raw and gzipped, both for the files
// fetched before the first result shows (what the issue's transfer targets count) and for all
// files fetched until the network is idle (the engine's second module, loaded after the first
// result for the explanations, included); time from navigation to
// the first correct result (the default preset's report equal to the CLI's); and the median
// time from an input change to the redrawn result for the largest preset.
//
//   node bench/page_bench.mjs [--json] [--reps 40] [--navs 5] [--dist DIR --dist DIR2]
// Needs dist/ (scripts/build-web), build/dlcost and node_modules/playwright-core.
//
// Two --dist folders (an old and a new build) are measured A/B in the same run, interleaved:
// navigations alternate between them and the redraws run in blocks of five, page A then page
// B, so a loaded machine slows both alike.
//
// The redraw is measured two ways, both starting inside a frame (the input dispatched from a
// requestAnimationFrame callback): "to next frame", until the next frame's callback (what
// earlier sessions reported; headless Chromium's frames are 60 Hz, so it never reads below
// about 16.7 ms), and "until drawn", until a message posted right after the input runs, which
// is after the browser has run the handler and the frame's style, layout and paint: the
// main-thread work an input costs, which must fit in the 16 ms of a frame.
//
// Layout shift: the sum of the layout-shift entries (the Layout Instability API, CLS's
// entries, no input excluded: the page is not touched) from the first result until the page
// is idle, the insights chunk and the second engine module loaded; and from navigation until
// idle (the page's whole CLS: the first result's own frame included).

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { cliEstimate, cliPresets, WASM_MODULE } from '../tests/js/native_cli.mjs';
import { DIST, openSession, serve } from '../tests/browser/harness.mjs';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
/** @param {string} flag @param {number} fallback */
const numberArg = (flag, fallback) => (args.includes(flag) ? Number(args[args.indexOf(flag) + 1]) || fallback : fallback);
const reps = numberArg('--reps', 40);
const navs = numberArg('--navs', 5);
const dists = args.flatMap((a, i) => (a === '--dist' ? [resolve(args[i + 1])] : []));
if (!dists.length) dists.push(DIST);

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

/** @param {{browser: any}} session @param {{url: string, dir: string}} site @param {string} path */
async function transferred(session, site, path) {
  const context = await session.browser.newContext();
  // When the result first shows, from a 2 ms poll inside the page (the test's own wait may
  // answer later on a loaded machine, after the page has gone on to load what follows); and
  // the layout shifts after it.
  await context.addInitScript(() => {
    const poll = setInterval(() => {
      if (globalThis.dlcostPage?.lastReport?.() || document.body?.dataset.state === 'ok') {
        globalThis.dlcostFirstResultAt = performance.now();
        clearInterval(poll);
      }
    }, 2);
    globalThis.dlcostShifts = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) globalThis.dlcostShifts.push({ at: e.startTime, value: e.value });
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const page = await context.newPage();
  const files = new Map();
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.origin !== new URL(site.url).origin) return;
    const file = join(site.dir, u.pathname.endsWith('/') ? `${u.pathname}index.html` : u.pathname);
    if (existsSync(file)) files.set(u.pathname, readFileSync(file));
  });
  await page.goto(site.url + path, { waitUntil: 'commit', timeout: 30000 });
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
  await new Promise((done) => setTimeout(done, 500));
  const [shift, shiftTotal] = await page.evaluate(() => [
    globalThis.dlcostShifts.filter((e) => e.at >= globalThis.dlcostFirstResultAt).reduce((sum, e) => sum + e.value, 0),
    globalThis.dlcostShifts.reduce((sum, e) => sum + e.value, 0),
  ]);
  await context.close();
  return { path, first_result: { ...first, names: firstFiles }, idle: sizes(files), layout_shift_after_first_result: shift,
    layout_shift_total: shiftTotal };
}

const session = await openSession();
const sites = [];
const runs = dists.map((dir) => ({ dist: dir, transfers: [], first_result_ms: [], stages: [], input_to_redraw: null }));
try {
  for (const dir of dists) sites.push({ dir, ...(await serve(dir)) });
  const engine = await (await import(WASM_MODULE)).default();
  for (const [k, site] of sites.entries()) {
    runs[k].transfers.push(await transferred(session, site, ''));
    if (existsSync(join(site.dir, 'embed.html'))) {
      // The widget shows a share link's result: the page's default preset and workload.
      const state = { doc: { model: { preset: 'alexnet' }, workload: { mode: 'train', batch: 32, memory_gib: 24 } }, ui: { units: 'binary', lang: 'en' } };
      const { fragment } = JSON.parse(engine.shareLinkEncode(JSON.stringify(state)));
      runs[k].transfers.push(await transferred(session, site, `embed.html${fragment}`));
    }
  }

  // Navigation to the first correct result, over fresh contexts (no cache); with two builds,
  // alternating which goes first.
  const presets = cliPresets();
  const first = presets.some((p) => p.name === 'alexnet') ? 'alexnet' : presets[0].name;  // the page's default
  for (let i = 0; i < navs; i += 1) {
    const order = sites.map((_, k) => k);
    if (i % 2) order.reverse();
    for (const k of order) runs[k].first_result_ms.push(await firstResult(sites[k], first, runs[k].stages));
  }

  // Input change -> redrawn result for the preset with the most layers (a CNN) and for the
  // transformer preset with the most parameters.
  let largest = first;
  let most = -1;
  let llm = null;
  let llmParams = -1;
  for (const { name, family } of presets) {
    const report = cliEstimate({ model: { preset: name } }).json;
    if (report.layers.length > most) [largest, most] = [name, report.layers.length];
    if (family !== 'cnn' && report.params.total > llmParams) [llm, llmParams] = [name, report.params.total];
  }
  const pages = [];
  for (const site of sites) {
    const context = await session.browser.newContext();
    const page = await context.newPage();
    await page.goto(site.url, { waitUntil: 'load' });
    await page.waitForSelector('body[data-ready="true"]');
    pages.push(page);
  }
  const cnn = await redraw(pages, largest, most);
  cnn.forEach((r, k) => { runs[k].input_to_redraw = r; });
  if (llm) {
    const rows = await redraw(pages, llm, cliEstimate({ model: { preset: llm } }).json.layers.length);
    rows.forEach((r, k) => { runs[k].input_to_redraw_llm = r; });
  }
  for (const page of pages) await page.context().close();
} finally {
  for (const site of sites) await site.close();
  await session.close();
}

/** One navigation to the first correct result, in ms; throws when the result is not the CLI's.
 *  @param {{url: string}} site @param {string} first the default preset */
async function firstResult(site, first, stages) {
  const context = await session.browser.newContext();
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto(site.url, { waitUntil: 'commit' });
  await page.waitForFunction(() => Boolean(globalThis.dlcostPage?.lastReport()), null, { timeout: 30000, polling: 'raf' });
  const ms = Date.now() - t0;
  // Correct: the CLI's report for the document the page estimated (its default preset and
  // its task's default workload).
  const { report, doc, marks } = await page.evaluate(() => ({
    report: globalThis.dlcostPage.lastReport(),
    doc: globalThis.dlcostPage.document(),
    // The page's own stages (main.js, dlcost.js: performance.mark), ms after navigation start.
    marks: Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('dlcost:'))
      .map((m) => [m.name.slice('dlcost:'.length), m.startTime])),
  }));
  stages.push(marks);
  if (doc.model.preset !== first) throw new Error(`the page opened ${doc.model.preset}, not ${first}`);
  if (JSON.stringify(report) !== JSON.stringify(cliEstimate(doc).json)) throw new Error('first result differs from the CLI');
  await context.close();
  return ms;
}

/** The median times from a batch change to the redrawn result for `preset`, on each page (one
 *  per build), in blocks of five changes per page in turn. */
async function redraw(pages, preset, layers) {
  for (const page of pages) {
    await page.selectOption('#preset', preset);
    await page.waitForFunction(() => document.body.dataset.insightsPending !== 'true');
  }
  const times = pages.map(() => ({ frame: [], drawn: [] }));
  const block = 5;
  for (let done = 0; done < reps; done += block) {
    for (const [k, page] of pages.entries()) {
      // Measured inside the page, each change dispatched from a frame's callback.
      const t = await page.evaluate(async ([from, count]) => {
        const input = document.getElementById('wl-batch');
        const nextFrame = () => new Promise((done) => requestAnimationFrame(() => done()));
        // A message posted now is handled after the browser has drawn the current frame.
        const afterDrawn = () => new Promise((done) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => done();
          channel.port2.postMessage(0);
        });
        const frame = [];
        const drawn = [];
        await nextFrame();
        for (let i = from; i < from + count; i += 1) {
          const t0 = performance.now();
          input.value = String(8 + (i % 2));
          input.dispatchEvent(new Event('input', { bubbles: true }));
          await afterDrawn();
          drawn.push(performance.now() - t0);
          await nextFrame();
          frame.push(performance.now() - t0);
        }
        return { frame, drawn };
      }, [done, Math.min(block, reps - done)]);
      times[k].frame.push(...t.frame);
      times[k].drawn.push(...t.drawn);
    }
  }
  const out = [];
  for (const [k, page] of pages.entries()) {
    const shownBatch = await page.evaluate(() => globalThis.dlcostPage.lastReport().workload.batch);
    if (shownBatch !== 8 + ((reps - 1) % 2)) throw new Error('the last change was not redrawn');
    const { frame, drawn } = times[k];
    out.push({
      preset, layers, reps, median_ms: median(frame), max_ms: Math.max(...frame),
      drawn_median_ms: median(drawn), drawn_max_ms: Math.max(...drawn),
    });
  }
  return out;
}

for (const run of runs) {
  run.first_result_median_ms = median(run.first_result_ms);
  const names = [...new Set(run.stages.flatMap((m) => Object.keys(m)))];
  run.stage_median_ms = Object.fromEntries(names.map((n) => [n, Math.round(median(run.stages.map((m) => m[n]).filter((v) => v !== undefined)))]));
}
const load = (await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ');

if (asJson) {
  console.log(JSON.stringify(runs.length === 1 ? runs[0] : { load_average: load, runs }));
} else {
  for (const run of runs) {
    if (runs.length > 1) console.log(`== ${run.dist}`);
    for (const t of run.transfers) {
      const f = t.first_result;
      console.log(`${t.path.split('#')[0] || 'index.html'}: first result ${f.files} files, ${f.raw} B raw, ${f.gzip} B gzipped (${f.names.join(' ')}); `
        + `until idle ${t.idle.files} files, ${t.idle.raw} B raw, ${t.idle.gzip} B gzipped; `
        + `layout shift after the first result ${t.layout_shift_after_first_result.toFixed(4)}, `
        + `from navigation until idle (CLS) ${t.layout_shift_total.toFixed(4)}`);
    }
    console.log(`navigation to first correct result: median ${run.first_result_median_ms} ms (${run.first_result_ms.join(', ')})`);
    console.log(`  the page's stages, median ms after navigation start: ${Object.entries(run.stage_median_ms).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    for (const r of [run.input_to_redraw, run.input_to_redraw_llm].filter(Boolean)) {
      console.log(`input change to redraw, ${r.preset} (${r.layers} rows): until drawn median ${r.drawn_median_ms.toFixed(1)} ms `
        + `(max ${r.drawn_max_ms.toFixed(1)}), to next frame median ${r.median_ms.toFixed(1)} ms (max ${r.max_ms.toFixed(1)}) over ${r.reps}`);
    }
  }
  console.log(`load average after the run: ${load}`);
}
