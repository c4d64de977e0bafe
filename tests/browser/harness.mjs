// Shared setup of the browser tests: a static server for dist/ on 127.0.0.1 (a free port),
// Debian's Chromium driven by playwright-core with the flags that keep it off the network,
// and a record of every request, console error and CSP violation the page makes.

import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';
import { runCli } from '../js/native_cli.mjs';
import { setNumberUnits } from '../../web/js/units.js';

// The tests build expected texts with the page's own formatter; it reads the engine's unit
// tables, which the page installs when its engine loads (dlcost.js ready()) and the tests from
// the CLI's schema here.
setNumberUnits(runCli(['schema', '--json']).json.number_units);
export { formatBytes, formatCount, groupDigits } from '../../web/js/units.js';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DIST = join(ROOT, 'dist');
export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** Serves `dir` on 127.0.0.1 at a free port; resolves to {url, close()}. */
export function serve(dir = DIST) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(dir)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      ok({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((done) => server.close(done)) });
    });
  });
}

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Starts the server and Chromium; `close()` stops both and is safe to call twice. */
export async function openSession() {
  const server = await serve();
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 30000,
    });
  } catch (e) {
    await server.close();
    throw e;
  }
  let closed = false;
  return {
    url: server.url,
    browser,
    async close() {
      if (closed) return;
      closed = true;
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}

/** Opens the page and waits for the engine; `problems` collects what must not happen. */
export async function openPage(
  session,
  { colorScheme = 'light', viewport, locale, path = '', serviceWorkers = 'allow', init } = {},
) {
  // A fresh context per page: its own storage, so no test sees another's preferences.
  // serviceWorkers 'block' for tests that answer requests with page.route: once the page's
  // offline worker has installed and claimed the page, Chromium sends the page's fetches
  // through the worker and page.route no longer sees them (they went to the real network).
  const context = await session.browser.newContext({
    viewport: viewport || { width: 1280, height: 900 },
    serviceWorkers,
  });
  const page = await context.newPage();
  page.on('close', () => context.close().catch(() => {}));
  await page.emulateMedia({ colorScheme });
  const problems = [];
  const origin = new URL(session.url).origin;
  page.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) problems.push(`request to ${u}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  if (init) await page.addInitScript(init); // a script run before the page's own (init: () => ...)
  if (locale) await page.addInitScript((l) => localStorage.setItem('dlcost.prefs', JSON.stringify({ lang: l })), locale);
  await page.goto(`${session.url}${path}`, { waitUntil: 'load', timeout: 20000 });
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { page, problems };
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}


/**
 * One browser session for the calling test file: started before its tests and closed after
 * them. The object is filled in by `before`, so tests pass it to openPage as it is.
 */
export function sessionPerFile(timeout) {
  const session = {};
  before(async () => {
    Object.assign(session, await openSession());
  }, { timeout });
  after(async () => {
    await session.close?.();
  });
  return session;
}

/** The page's last report and last error, through its test hook. */
export const lastReport = (page) => page.evaluate(() => globalThis.dlcostPage.lastReport());
export const lastError = (page) => page.evaluate(() => globalThis.dlcostPage.lastError());
