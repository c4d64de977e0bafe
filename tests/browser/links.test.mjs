// Share links and the embed widget in headless Chromium: "Copy link" on the page and opening
// the link in a fresh page give the same report as `dlcost estimate --link FRAGMENT --json`,
// for every preset and for seeded random custom models; golden links made by this version
// keep opening with the CLI's numbers; broken links show a message and the default model; a
// host page under a strict CSP embeds the widget, which shows the CLI's totals and resizes.
// No figure is written here: the native CLI (tested against published figures) is the reference.

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliPresets, ROOT, runCli } from '../js/native_cli.mjs';
import { formatBytes, formatCount, groupDigits, lastReport, openPage, openSession, screenshot, serve } from './harness.mjs';

const T = { timeout: 300000 };
let session;
let hostServer;

before(async () => {
  session = await openSession();
  hostServer = await serve(join(ROOT, 'tests', 'browser', 'fixtures'));
}, T);

after(async () => {
  await session?.close();
  await hostServer?.close();
});


/** The CLI's report for a share-link fragment. */
/** The report without the optimizer it echoes in inference, where no optimizer applies (the
 *  page neither shows nor sends one; the figures are the same). */
function withoutUnusedOptimizer(report) {
  if (report?.workload?.mode !== 'infer') return report;
  const { optimizer: _unused, ...workload } = report.workload;
  return { ...report, workload };
}

function cliLink(fragment) {
  const r = runCli(['estimate', '--link', fragment, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return r.json;
}

/** Clicks "Copy link"; returns the fragment of the URL it shows (and wrote into the hash). */
async function copyLink(page) {
  await page.click('#copy-link');
  await page.waitForFunction(() => document.getElementById('share-url').value.includes('#d1.'));
  const url = await page.inputValue('#share-url');
  const fragment = new URL(url).hash;
  assert.equal(await page.evaluate(() => location.hash), fragment, 'the link is in the fragment');
  assert.equal(new URL(url).search, '', 'nothing in the query');
  return fragment;
}

/** Opens `fragment` in a fresh load of `page` (a new document, not a hashchange). */
async function reopen(page, fragment) {
  await page.goto('about:blank');
  await page.goto(`${session.url}${fragment}`, { waitUntil: 'load', timeout: 20000 });
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
}

/** Mulberry32: a small seeded PRNG, so the random models are the same on every run. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomDocument(rand, i) {
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const layers = [];
  let input;
  if (rand() < 0.5) {
    input = [int(8, 512)];
    for (let k = int(1, 6); k > 0; k -= 1) {
      layers.push({ type: 'linear', out_features: int(4, 700), bias: rand() < 0.7 });
      layers.push({ type: pick(['relu', 'gelu', 'tanh', 'silu']) });
      if (rand() < 0.3) layers.push({ type: 'dropout', p: 0.1 });
    }
  } else {
    let size = pick([16, 32, 64]);
    input = [pick([1, 3]), size, size];
    for (let k = int(1, 5); k > 0; k -= 1) {
      const kernel = pick([1, 3, 5]);
      layers.push({ type: 'conv2d', out_channels: int(4, 96), kernel, padding: (kernel - 1) / 2, bias: rand() < 0.5 });
      if (rand() < 0.6) layers.push({ type: 'batchnorm2d' });
      layers.push({ type: pick(['relu', 'relu6', 'hardswish']) });
      if (size >= 8 && rand() < 0.5) {
        layers.push({ type: 'maxpool2d', kernel: 2, stride: 2 });
        size /= 2;
      }
    }
    layers.push({ type: 'global_avgpool2d' }, { type: 'flatten' });
  }
  layers.push({ type: 'linear', out_features: int(2, 1000) });
  const workload = {
    mode: pick(['train', 'infer']),
    batch: int(1, 256),
    dtype: pick(['fp32', 'fp16', 'bf16', 'mixed']),
    optimizer: pick(['sgd', 'momentum', 'adam', 'adamw', 'rmsprop', 'adagrad']),
  };
  if (rand() < 0.7) workload.memory_gib = pick([4, 8, 11, 24, 40, 80]);
  return { model: { name: `random_${i}`, input, layers }, workload };
}

describe('share links', () => {
  test('round-trip every preset: the reopened page shows the CLI\'s report for the link', T, async () => {
    const { page, problems } = await openPage(session);
    const fresh = await openPage(session);
    try {
      const gpus = await page.$$eval('#wl-gpu option', (os) => os.map((o) => o.value).filter(Boolean));
      const presets = cliPresets();
      for (const [i, { name }] of presets.entries()) {
        if (i === Math.floor(presets.length / 2)) {
          // The second half in Chinese and decimal units: both travel in the link.
          await page.selectOption('#lang', 'zh');
          await page.click('#units-gb');
        }
        await page.selectOption('#preset', name);
        await page.fill('#wl-batch', String(1 + (i % 9)));
        await page.selectOption('#wl-dtype', ['fp32', 'mixed', 'bf16', 'fp16'][i % 4]);
        if (i % 3 === 0) await page.selectOption('#wl-gpu', gpus[i % gpus.length]);
        else await page.fill('#wl-memory', String(8 + i));
        const before = await lastReport(page);
        const fragment = await copyLink(page);
        const cli = cliLink(fragment);
        assert.deepEqual(before, cli, `${name}: the page's report equals the CLI's for its own link`);
        await reopen(fresh.page, fragment);
        assert.deepEqual(await lastReport(fresh.page), cli, `${name}: the reopened page`);
        assert.equal(await fresh.page.inputValue('#preset'), name, `${name}: referenced by name`);
        const units = i >= Math.floor(presets.length / 2) ? 'GB' : 'GiB';
        assert.equal(await fresh.page.inputValue('#lang'), units === 'GB' ? 'zh' : 'en');
        assert.equal(await fresh.page.getAttribute(units === 'GB' ? '#units-gb' : '#units-gib', 'aria-pressed'), 'true');
        const totals = await fresh.page.locator('#totals').innerText();
        assert.ok(totals.includes(formatBytes(cli.memory.total, units)), `${name}: memory in ${totals}`);
      }
      await screenshot(fresh.page, 'link-reopened');
      assert.deepEqual(problems, []);
      assert.deepEqual(fresh.problems, []);
    } finally {
      await page.close();
      await fresh.page.close();
    }
  });

  test('round-trip 30 seeded random custom models (pasted documents)', T, async () => {
    const { page, problems } = await openPage(session);
    const fresh = await openPage(session);
    const rand = prng(20261202);
    try {
      for (let i = 0; i < 30; i += 1) {
        const doc = randomDocument(rand, i);
        await page.fill('#paste', JSON.stringify(doc));
        const before = await lastReport(page);
        assert.equal(before.model.name, `random_${i}`);
        const fragment = await copyLink(page);
        const cli = cliLink(fragment);
        assert.deepEqual(before, cli, `random_${i}: the page's report equals the CLI's for its link`);
        await reopen(fresh.page, fragment);
        assert.deepEqual(await lastReport(fresh.page), cli, `random_${i}: the reopened page`);
        assert.equal(await fresh.page.inputValue('#preset'), '', 'a custom model');
      }
      assert.deepEqual(problems, []);
      assert.deepEqual(fresh.problems, []);
    } finally {
      await page.close();
      await fresh.page.close();
    }
  });
});

// Links made by this version (`build/dlcost link ...`, the arguments beside each): every later
// version must keep opening them with the numbers the CLI then computes for them.
const GOLDEN = [
  {
    args: '--preset resnet50 --batch 64 --dtype mixed --gpu rtx-4090 --lang zh',
    lang: 'zh', units: 'GiB',
    fragment: '#d1.q1ZKyU9WsqpWys1PSc0BMQqKUotTS5SslIB0XmqJqYFSrY5SeX5Rdk5-YgpIQVJiSXKGkpWZiY5SSkllQSpQaW5mRWqKko5SekEpSGNJha6JgSVQI1BnaSZIT05iXjpQpioDKAYAaTCObQ',
  },
  {
    args: 'core/presets/cnn/alexnet.json --batch 16 --memory-gib 11.5 --units decimal --lang en',
    lang: 'en', units: 'GB',
    fragment: '#d1.q1ZKyU9WsqpWyswrKC1Rsoo21jEyMgHhWB2lnMTK1KJioGC1UnZqUV5qjpKVoaGOUl5ibqqSlVJaamJJaVFqsZ6Bko5SfmlJfHJGYh5QEVCDmYmOUkFiSkpmXrqSlZGOUnFJUWYKUA9QuKSyAKQ5OT-vzChFqVYHbHNOYjJQsKSoNBXTdEOg6VBNRak5pWAtMNcYYyo3AiqHWQe0GaozN7GiID8_B2ojTLsppnZjDL8YWgKNQfYMyT4wIc0HpiT4AIt2MwwfGFsgRwcwAkn2gTlpPrDAcIKRqRmFTrAkzQmGmImScjcYkpgWDYlJjFBNiWXpIEGIq4FZMb44swooDnQyVFdiSmJBSWZZajxUJar2tJzEkpLUPIT7YAJIapJzEouLM9MyU4vAWbZAycpAD5gFoBpSivILgFbj0ADyOSg4YX4D5mUDS4TjcjLzUhOL8IQhklGgQEEPRExVoIxIkgtBuYxKLgTlQMIuhGU0hIWGBgYGGBYCy1FYFOekVuSlloDSRHJGam4iOBEW55cWgdyiVJJflJxRllmcmZ-nl5ufAkyyelANChpIcvoQOX2onF5BpaaOQklGqkJ-Xqque0CoQlliUWZiXolCfpqCd1FmVUZqWXF2pQLQlMQcPQUjA0MjBY3EoojMMitDEwMTPVNLS3NNoIvK84uyc_ITU0BVQVJiSXIG0HHAwMtNzc0vqoxPz0wCFf16prW1OkqlmSBFOYmgXKQETnKleZklQO8rpaQmZ-Ym5ijV1gIAkD01Ew',
  },
  {
    args: 'tiny_resnet.json --mode infer --batch 8 --dtype fp16 --optimizer sgd (tiny_resnet.json: the block example of COMMON.md, a 2-block ResNet on 32x32)',
    lang: null, units: null,
    fragment: '#d1.q1ZKyU9WsqpWSsrJT84uBrMSizPBQjmJlalFQKFooFhmIpCRlphTnKqjlJ1alJeao2RlrKOUl5ibqmSllJyfV2aopKOUX1oSn5yRmAeUBipXUkkGihUkpqRk5qUrWRnqKBWXFGWmgDSoQFk6SiWVBTATjFKUanWqYWYm5YFMhEonJZYkZ-TlF-VC1WTmFeQkJgNlSopKgS6CqipKzSkFSxPhXCMinIvHbSDtuN1WWgIKNggLqBCkPBZue3FpLkIz0DaCHgJqLUgsSswFxw4wZvJKc3IQYWlYW1urA7XKKtpYx9gIiIBakGIPMwSKS1JBjkANAEMzQt5PLEqHOcLQDGgrONGAgwCUZOCmg60GxV5RakFqItBZRiDNUOPSc_KTEnPiE8vSC_Lzc6AGQ-XSchJLSlLzkIM6DWQuyJ1pQJNKi1JB7jSAuy0nMy81sQgcRFD1JZl5lfFAZXmpoJAvzy_KzslPTIGka2A8KVlZ6CilwKwrMDQDKsrNB6fJzLy01CKQZQUlmbmZVUA2MJzSge6rrQUAlSz9-w',
  },
  {
    args: 'core/presets/hf/pythia-70m.json --mode infer --batch 4 --dtype fp16 --lang en',
    lang: 'en', units: null,
    fragment: '#d1.q1ZKyU9WsqpWys1PSc0BMTLS4pPz89Iy00Gc-LzE3NT4_KL4gsSSDCUrJdec1NKSjNQiR0_9gsqSjMxEXXODXCUdpfji_NKi5FSgCohevazi_DyF_DSFjJKSgmIrff2M0vT0zLz0tMTkVL3kfH2s5ihoOGWmpBblJuYppJYoJOboKRgZGBnrKASAVWhaK6C4RkEDaIBCUWpBfnFmSX5RpUJmio5CYrFCSVFiXnFaflFualGxQnlRZklqsUJmiaZCYkpKagrQqYlFyRlAweSS0qLUYiWraCX3gBC_1PwIt_wi58TS4sQcH1-lWB2lpPzi-JL87NS8-MwUJSsDHaVUdIGMTKCJefGJySVAb6en5pQCDYeKFWdWAcPC1NBIRykzL7MkMzEHKFAUD3RZOlDcQM8ALFEC9GtqSmZiSSpUg5GBiYWOUk5iJVBtHtAH8akFQBcapuoamOoo5SZWxIP9mpmfF5-am5SakgIMUKA8RBc4_uJLKgtAkZBeUBKfl5pfAXRRXmlufGJJSWoeWF9GamIKUAtQPUgc6lqwhUBRMx2lovySxKJKkPHxSYnFQKMMDYAALl4A8quBnhHQOSWZqfHl-UUpKE5JS8wpTgXK5QPDOD4F6pi0nPzEEkMzoFuQoya-DEgAnQRUYKJnZKJnAJQvLU6NT05MzgDqKikqBRoEEihILErMyQH6DRhdmSmlicBECpEsy09OTIIFtYGxgUltrY4S0EnZQPuAMVStlJRYkgxMtCY6SnCnFIDdAQorIC8zLy21SAmkqzQTpD4HGD1A4dQ8oBgANMi0ig',
  },
  {
    args: '--preset mobilenet_v2 --batch 128 --dtype bf16 --optimizer adamw --gpu a100-sxm4-80gb --units binary --lang zh',
    lang: 'zh', units: 'GiB',
    fragment: '#d1.q1ZKyU9WsqpWys1PSc0BMQqKUotTS5SsgCJJmTmpeakl8WVGSrU6SuX5Rdk5-YkpIEVJiSXJGUpWhkYWOkopJZUFqUD1SWmGZko6SukFpUBOoqGBgW5xRa6JroVBehJQOL-gJDM3syq1CCSZkphbrlQLNLM0E2RaTmJeOlC4KgOorjQvs6QYZFpmXmJRJVARAH6LO38',
  },
];

describe('golden and broken links', () => {
  test('golden links from this version open with the CLI\'s numbers, language and units', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      for (const { args, fragment, lang, units } of GOLDEN) {
        await reopen(page, fragment);
        const cli = cliLink(fragment);
        assert.deepEqual(withoutUnusedOptimizer(await lastReport(page)), withoutUnusedOptimizer(cli), args);
        // A link without "ui" keeps the viewer's own language and units.
        if (lang) assert.equal(await page.inputValue('#lang'), lang, args);
        if (units) assert.equal(await page.getAttribute(units === 'GB' ? '#units-gb' : '#units-gib', 'aria-pressed'), 'true', args);
        const shown = units ?? ((await page.getAttribute('#units-gb', 'aria-pressed')) === 'true' ? 'GB' : 'GiB');
        const totals = await page.locator('#totals').innerText();
        assert.ok(totals.includes(groupDigits(cli.params.total)), `${args}: params in ${totals}`);
        assert.ok(totals.includes(formatBytes(cli.memory.total, shown)), `${args}: memory in ${totals}`);
        assert.equal(await page.locator('#link-error').innerText(), '', args);
      }
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('a tampered, truncated or foreign fragment shows a message and the default model', T, async () => {
    const { page, problems } = await openPage(session);
    const defaultReport = await lastReport(page);
    const good = GOLDEN[0].fragment;
    const flip = (s, i) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const BAD = [
      ['truncated', good.slice(0, -7)],
      ['tampered', flip(good, 12)],
      ['foreign', '#eyJtb2RlbCI6InJlc25ldCJ9'],
      ['a later version', '#d9.AAAA'],
      ['markup', '#d1.<img src=x onerror=alert(1)>'],
    ];
    try {
      for (const [what, fragment] of BAD) {
        await reopen(page, fragment);
        const message = await page.locator('#link-error').innerText();
        assert.ok(message.length > 10, `${what}: a visible message`);
        assert.match(message, /share link/, `${what}: the engine's reason in the message`);
        assert.equal(await page.locator('#link-error img').count(), 0, `${what}: text only`);
        assert.deepEqual(await lastReport(page), defaultReport, `${what}: the default model`);
      }
      // On hashchange the message shows too, but the user's model stays (issue 15, item 9).
      await page.selectOption('#preset', 'vgg11');
      const kept = await lastReport(page);
      await page.evaluate((f) => { location.hash = f; }, BAD[1][1]);
      await page.waitForFunction(() => document.getElementById('link-error').textContent !== '');
      assert.deepEqual(await lastReport(page), kept, 'hashchange: the user\'s model is kept');
      // A link of a newer format says so.
      await page.evaluate(() => { location.hash = '#d2.AAAA'; });
      await page.waitForFunction(() => document.getElementById('link-error').textContent.includes('newer version'));
      assert.equal((await lastReport(page)).model.name, 'vgg11');
      // An in-page anchor is not a link: the skip link leaves the model alone.
      await page.selectOption('#preset', 'vgg11');
      await page.evaluate(() => { location.hash = '#results'; });
      await page.waitForTimeout(100);
      assert.equal((await lastReport(page)).model.name, 'vgg11');
      await screenshot(page, 'link-broken');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('a link opened on hashchange restores its state in the open page', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      const { fragment } = GOLDEN[0];
      await page.evaluate((f) => { location.hash = f; }, fragment);
      await page.waitForFunction((n) => globalThis.dlcostPage.lastReport()?.model?.name === n, cliLink(fragment).model.name);
      assert.deepEqual(await lastReport(page), cliLink(fragment));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

/** Waits until the iframe's height equals its content's and differs from `old`; returns it. */
async function settledHeight(page, frame, old) {
  for (let i = 0; i < 100; i += 1) {
    const content = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    const box = await page.evaluate(() => document.querySelector('iframe').clientHeight);
    if (content !== old && Math.abs(box - content) <= 1) return content;
    await page.waitForTimeout(50);
  }
  throw new Error('the iframe did not follow the widget\'s height');
}

/** Opens the host page (another origin, strict CSP) with the widget for `fragment`. */
async function openHost(fragment, { width = 800, colorScheme = 'light', fixed = false } = {}) {
  const context = await session.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.on('close', () => context.close().catch(() => {}));
  await page.emulateMedia({ colorScheme });
  const problems = [];
  const allowed = [new URL(session.url).origin, new URL(hostServer.url).origin];
  page.on('request', (r) => {
    const u = r.url();
    if (!allowed.some((o) => u.startsWith(o)) && !u.startsWith('data:')) problems.push(`request to ${u}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  // In every frame, the widget's included: report CSP violations as console errors.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const widget = `${session.url}embed.html`;
  await page.goto(`${hostServer.url}host.html?widget=${encodeURIComponent(widget)}${fixed ? '&fixed=1' : ''}${fragment}`, { waitUntil: 'load' });
  const frame = await (await page.waitForSelector('iframe.dlcost-embed')).contentFrame();
  await frame.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { page, frame, problems };
}

describe('the embed widget', () => {
  test('on a strict-CSP host page it shows the CLI\'s totals and sizes its iframe', T, async () => {
    for (const { args, fragment, units: linkUnits } of GOLDEN) {
      const units = linkUnits ?? 'GiB';  // the widget's default
      const { page, frame, problems } = await openHost(fragment);
      try {
        const cli = cliLink(fragment);
        assert.equal(await frame.locator('body').getAttribute('data-state'), 'ok', args);
        const totals = await frame.locator('#w-totals').innerText();
        assert.ok(totals.includes(formatCount(cli.params.total)), `${args}: params in ${totals}`);
        assert.ok(totals.includes(groupDigits(cli.params.total)), `${args}: params in ${totals}`);
        assert.ok(totals.includes(formatCount(cli.macs.forward)), `${args}: MACs in ${totals}`);
        assert.ok(totals.includes(formatCount(cli.flops.total)), `${args}: FLOPs in ${totals}`);
        assert.ok(totals.includes(formatBytes(cli.memory.total, units)), `${args}: memory in ${totals}`);
        assert.equal(await frame.locator('#w-name').innerText(), cli.model.name);
        const fit = cli.gpu_fit ?? cli.memory_fit;
        if (fit) {
          assert.equal(await frame.locator('#w-max-batch').innerText(), groupDigits(fit.max_batch), args);
        }
        assert.equal(await frame.locator('#w-breakdown svg rect').count() > 0, true, `${args}: the breakdown bar`);
        assert.equal(new URL(await frame.locator('#w-open').getAttribute('href'), frame.url()).hash, fragment);
        // The iframe takes the height the widget posts (not the fixed 420 px it starts with).
        await page.waitForFunction(() => Number(document.body.dataset.heights) > 0);
        const content = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
        await page.waitForFunction((hgt) => Math.abs(document.querySelector('iframe').clientHeight - hgt) <= 1, content);
        // Narrower: the content wraps, the widget posts again, the iframe follows.
        await page.setViewportSize({ width: 360, height: 900 });
        const narrow = await settledHeight(page, frame, content);
        assert.ok(narrow > content, `${args}: narrower is taller (${narrow} > ${content})`);
        await screenshot(page, `embed-host-${GOLDEN.indexOf(GOLDEN.find((g) => g.fragment === fragment))}`);
        assert.deepEqual(problems, [], args);
      } finally {
        await page.close();
      }
    }
  });

  test('a plain fixed-height iframe (no listener on the host) shows the widget as well', T, async () => {
    const { page, frame, problems } = await openHost(GOLDEN[0].fragment, { fixed: true });
    try {
      const cli = cliLink(GOLDEN[0].fragment);
      assert.ok((await frame.locator('#w-totals').innerText()).includes(groupDigits(cli.params.total)));
      assert.equal(await page.evaluate(() => document.querySelector('iframe').clientHeight), 420);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });

  test('the widget alone: strict CSP, no requests elsewhere, no globals, dark mode', T, async () => {
    // openPage waits for body[data-ready], which the widget sets as the page does.
    const { page, problems } = await openPage(session, { path: `embed.html${GOLDEN[0].fragment}`, colorScheme: 'dark' });
    try {
      const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      assert.ok(!csp.includes("'unsafe-eval'") && !csp.includes("'unsafe-inline'"), csp);
      const globals = await page.evaluate(async () => {
        const blank = document.createElement('iframe');
        document.body.append(blank);
        const base = new Set(Object.getOwnPropertyNames(blank.contentWindow));
        blank.remove();
        return Object.getOwnPropertyNames(window).filter((k) => !base.has(k));
      });
      assert.deepEqual(globals, [], 'no globals leaked');
      const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(bg, 'rgb(26, 31, 37)', 'dark background (--panel in dark mode)');
      assert.equal(await page.locator('body').getAttribute('data-state'), 'ok');
      await screenshot(page, 'embed-dark');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('the page\'s Embed button', () => {
  test('shows the iframe alone, the optional resize script apart, and a live preview', T, async () => {
    const { page, problems } = await openPage(session);
    try {
      await page.selectOption('#preset', 'resnet18');
      await page.click('#embed');
      const iframe = await page.inputValue('#embed-snippet');
      assert.equal(await page.getAttribute('#embed-snippet', 'readonly'), '');
      // The HTML to paste is the iframe alone: no script to show as text on a blog page.
      assert.match(iframe, /^<iframe [^>]*><\/iframe>$/);
      assert.ok(!iframe.includes('<script') && !iframe.includes('addEventListener'), iframe);
      const script = await page.inputValue('#embed-script');
      const text = `${iframe}\n${script}`;
      const src = text.match(/<iframe class="dlcost-embed" src="([^"]+)"/)[1];
      const url = new URL(src);
      assert.equal(url.pathname, '/embed.html');
      assert.match(url.hash, /^#d1\./);
      assert.deepEqual(cliLink(url.hash), await lastReport(page), 'the snippet carries the current state');
      assert.ok(text.includes("e.data.type !== 'dlcost:height'") && text.includes(`e.origin !== '${url.origin}'`), text);
      assert.ok(!/style="/.test(text), 'no inline style: works on a strict-CSP host');
      // The live preview is the widget for the same state.
      const preview = await (await page.waitForSelector('#embed-preview iframe.dlcost-embed')).contentFrame();
      await preview.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
      assert.equal(await page.getAttribute('#embed-preview iframe', 'src'), src);
      await page.click('#embed-script-box summary');
      await screenshot(page, 'embed-panel');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
  });
});

describe('the Copy link button', () => {
  test('copies the full URL to the clipboard, or selects it in a read-only field', T, async () => {
    // Refused clipboard (headless default): the URL is selected in the read-only field.
    const { page, problems } = await openPage(session);
    try {
      await page.click('#copy-link');
      await page.waitForFunction(() => document.getElementById('share-status').textContent !== '');
      assert.equal(await page.getAttribute('#share-url', 'readonly'), '');
      const selected = await page.evaluate(() => {
        const f = document.activeElement;
        return f.id === 'share-url' && f.selectionStart === 0 && f.selectionEnd === f.value.length;
      });
      const copied = (await page.innerText('#share-status')).includes('clipboard');
      assert.ok(copied || selected, 'copied, or the URL selected for copying');
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
    // Granted clipboard: the clipboard holds the URL the field shows.
    const context = await session.browser.newContext();
    try {
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(session.url).origin });
      const p = await context.newPage();
      await p.goto(session.url);
      await p.waitForSelector('body[data-ready="true"]');
      await p.selectOption('#preset', 'googlenet');
      await p.click('#copy-link');
      await p.waitForFunction(() => document.getElementById('share-status').textContent !== '');
      const url = await p.inputValue('#share-url');
      assert.equal(await p.evaluate(() => navigator.clipboard.readText()), url);
      assert.equal(await p.innerText('#share-status'), 'Link copied to the clipboard.');
      assert.deepEqual(cliLink(new URL(url).hash), await p.evaluate(() => globalThis.dlcostPage.lastReport()));
    } finally {
      await context.close();
    }
  });
});
