// Shared setup of the browser tests: a static server for dist/ on 127.0.0.1 (a free port),
// Debian's Chromium driven by playwright-core with the flags that keep it off the network,
// and a record of every request, console error and CSP violation the page makes.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const DIST = join(ROOT, 'dist');
export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
export const CLI = join(ROOT, 'build', 'dlcost');

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
  const profile = mkdtempSync(join(tmpdir(), 'dlcost-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 30000,
      viewport: { width: 1280, height: 900 },
    });
  } catch (e) {
    await server.close();
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  let closed = false;
  return {
    url: server.url,
    context,
    async close() {
      if (closed) return;
      closed = true;
      await context.close().catch(() => {});
      await server.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the page and waits for the engine; `problems` collects what must not happen. */
export async function openPage(session, { colorScheme = 'light', viewport, locale } = {}) {
  const page = await session.context.newPage();
  if (viewport) await page.setViewportSize(viewport);
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
  if (locale) await page.addInitScript((l) => localStorage.setItem('dlcost.prefs', JSON.stringify({ lang: l })), locale);
  await page.goto(session.url, { waitUntil: 'load', timeout: 20000 });
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20000 });
  return { page, problems };
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The native CLI's --json report for a document. */
export function cliReport(document) {
  const dir = mkdtempSync(join(tmpdir(), 'dlcost-doc-'));
  try {
    const file = join(dir, 'doc.json');
    writeFileSync(file, JSON.stringify(document));
    const r = spawnSync(CLI, ['estimate', file, '--json'], { encoding: 'utf8', timeout: 20000 });
    if (r.status !== 0) throw new Error(`dlcost exited ${r.status}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function cliPresets() {
  const r = spawnSync(CLI, ['presets', '--json'], { encoding: 'utf8', timeout: 20000 });
  if (r.status !== 0) throw new Error(`dlcost presets exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
