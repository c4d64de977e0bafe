// The page's main-thread CPU time, from Chromium's trace (each task's thread time), for builds
// compared on a loaded machine, where wall times mostly measure the wait for a core:
// - from navigation to the first result (the renderer's main thread, every task until the
//   page's test hook first has a report);
// - per input change (batch) for densenet169 and deepseek-v3 (the presets page_bench.mjs
//   times): script, style, layout, paint, commit, over `--reps` changes, each dispatched from
//   a frame's callback.
// Builds alternate (A, B, A, B, ...) for every navigation and every block of changes.
//
//   node bench/page_cpu.mjs [--navs 8] [--reps 30] [--rounds 2] --dist DIR [--dist DIR2]

import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openSession, serve } from '../tests/browser/harness.mjs';

const args = process.argv.slice(2);
/** @param {string} flag @param {number} fallback */
const numberArg = (flag, fallback) => (args.includes(flag) ? Number(args[args.indexOf(flag) + 1]) || fallback : fallback);
const navs = numberArg('--navs', 8);
const reps = numberArg('--reps', 30);
const rounds = numberArg('--rounds', 2);
const dists = args.flatMap((a, i) => (a === '--dist' ? [resolve(args[i + 1])] : []));
if (!dists.length) throw new Error('page_cpu: name a build with --dist DIR');
const TRACE = join(tmpdir(), `dlcost-page-cpu-${process.pid}.json`);
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'toplevel'];
const PHASES = ['FunctionCall', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Commit', 'Layerize'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The trace's events on the renderer main thread of the page that wrote the performance
 *  mark `mark` (the trace holds every page of the browser). */
function mainThread(traceEvents, mark) {
  const pid = traceEvents.find((e) => e.name === mark)?.pid;
  const tid = traceEvents.find((e) => e.name === 'thread_name' && e.pid === pid && e.args?.name === 'CrRendererMain')?.tid;
  return traceEvents.filter((e) => e.pid === pid && e.tid === tid);
}

/** CPU ms on the main thread from navigation to the first result. */
async function firstResultCpu(session, site) {
  const context = await session.browser.newContext();
  await context.addInitScript(() => {
    const poll = setInterval(() => {
      if (globalThis.dlcostPage?.lastReport?.()) {
        performance.mark('dlcost-first-result');
        clearInterval(poll);
      }
    }, 1);
  });
  const page = await context.newPage();
  await session.browser.startTracing(page, { path: TRACE, categories: CATEGORIES });
  await page.goto(site.url, { waitUntil: 'commit' });
  await page.waitForFunction(() => performance.getEntriesByName('dlcost-first-result').length > 0, null, { polling: 'raf' });
  await session.browser.stopTracing();
  await context.close();
  const { traceEvents } = JSON.parse(readFileSync(TRACE, 'utf8'));
  const at = traceEvents.find((e) => e.name === 'dlcost-first-result').ts;
  return mainThread(traceEvents, 'dlcost-first-result')
    .filter((e) => e.ph === 'X' && e.name === 'RunTask' && e.ts <= at)
    .reduce((sum, e) => sum + (e.tdur || 0) / 1000, 0);
}

/** CPU ms per change on the main thread, in all and by phase, for `count` batch changes. */
async function redrawCpu(session, page, count) {
  await session.browser.startTracing(page, { path: TRACE, categories: CATEGORIES });
  await page.evaluate(async (n) => {
    performance.mark('dlcost-redraw');
    const input = document.getElementById('wl-batch');
    for (let i = 0; i < n; i += 1) {
      await new Promise((done) => requestAnimationFrame(() => done()));
      input.value = String(8 + (i % 2));
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }
    await new Promise((done) => requestAnimationFrame(() => done()));
  }, count);
  await session.browser.stopTracing();
  const { traceEvents } = JSON.parse(readFileSync(TRACE, 'utf8'));
  const out = { total: 0 };
  for (const e of mainThread(traceEvents, 'dlcost-redraw')) {
    if (e.ph !== 'X' || !e.tdur) continue;
    if (e.name === 'RunTask') out.total += e.tdur / 1000 / count;
    else if (PHASES.includes(e.name)) out[e.name] = (out[e.name] ?? 0) + e.tdur / 1000 / count;
  }
  return out;
}

const session = await openSession();
const sites = [];
const results = dists.map((dist) => ({ dist, first_result_cpu_ms: [], redraw: {} }));
try {
  for (const dir of dists) sites.push({ dir, ...(await serve(dir)) });
  for (let i = 0; i < navs; i += 1) {
    for (const [k, site] of sites.entries()) results[k].first_result_cpu_ms.push(await firstResultCpu(session, site));
  }
  for (const preset of ['densenet169', 'deepseek-v3']) {
    const pages = [];
    for (const site of sites) {
      const page = await (await session.browser.newContext()).newPage();
      await page.goto(site.url, { waitUntil: 'load' });
      await page.waitForSelector('body[data-ready="true"]');
      await page.selectOption('#preset', preset);
      await page.waitForFunction(() => document.body.dataset.insightsPending !== 'true');
      pages.push(page);
    }
    for (let r = 0; r < rounds; r += 1) {
      for (const [k, page] of pages.entries()) (results[k].redraw[preset] ??= []).push(await redrawCpu(session, page, reps));
    }
    for (const page of pages) await page.context().close();
  }
} finally {
  rmSync(TRACE, { force: true });
  for (const site of sites) await site.close();
  await session.close();
}

const load = (await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ');
for (const r of results) {
  console.log(`== ${r.dist}`);
  console.log(`main-thread CPU from navigation to the first result: median ${median(r.first_result_cpu_ms).toFixed(0)} ms `
    + `(${r.first_result_cpu_ms.map((x) => x.toFixed(0)).join(', ')})`);
  for (const [preset, runs] of Object.entries(r.redraw)) {
    const phases = ['total', ...PHASES].map((p) => `${p} ${median(runs.map((x) => x[p] ?? 0)).toFixed(2)}`);
    console.log(`main-thread CPU per input change, ${preset} (median of ${runs.length} runs of ${reps}): ${phases.join(', ')} ms`);
  }
}
console.log(`load average after the run: ${load}`);
