// Runs the engine's serveSim for the Under load section (issue #30 item 4) in a module Web
// Worker (serve_sim_worker.js), so that a simulation longer than a frame does not freeze the
// page, and cancels one by terminating that worker (the next call starts a new one). The worker
// loads the same engine module and answers with the engine's own JSON, so a figure is the same
// whichever thread computed it; `via` says which did ("worker" or "main-thread").
// @ts-check

import dlcost, { DlcostError, loadExtra } from './dlcost.js';

/** @typedef {{out: any, via: 'worker' | 'main-thread'}} SimAnswer */

/** The engine's answer on this thread, as the section computed it before the worker existed.
 *  @param {object} doc @returns {Promise<SimAnswer>} */
async function onMainThread(doc) {
  await loadExtra();
  await new Promise((painted) => setTimeout(painted, 0)); // the progress line first
  return { out: dlcost.serveSim(doc), via: 'main-thread' };
}

/**
 * A runner: run(doc) resolves to {out, via}, or to null when cancel() stopped it; an engine
 * input error rejects with the engine's DlcostError. One run at a time: a new run() cancels
 * the one before it, so an older answer can never arrive after a newer request.
 */
export function createSimRunner() {
  /** Whether to try the worker: false once it could not be created or loaded. */
  let useWorker = typeof Worker === 'function';
  /** @type {Worker | null} */
  let worker = null;
  let nextId = 1;
  /** @type {{id: number, doc: object, done: (a: SimAnswer | null) => void, fail: (e: unknown) => void} | null} */
  let pending = null;

  /** Gives up on the worker and answers the pending run on the main thread. */
  function fallBack() {
    useWorker = false;
    if (worker) worker.terminate();
    worker = null;
    const p = pending;
    pending = null;
    if (p) onMainThread(p.doc).then(p.done, p.fail);
  }

  /** @returns {Worker | null} */
  function startWorker() {
    try {
      worker = new Worker(new URL('./serve_sim_worker.js', import.meta.url), { type: 'module' });
    } catch {
      // No module worker here: an older browser, a page opened from file:// (a worker needs an
      // http(s) origin), or a Content-Security-Policy without worker-src 'self'. The
      // synchronous call gives the same answer; it only blocks the page while it runs.
      useWorker = false;
      worker = null;
      return null;
    }
    worker.addEventListener('message', (event) => {
      const { id, out, error, failure } = event.data;
      if (!pending || id !== pending.id) return; // a cancelled run's answer
      const p = pending;
      pending = null;
      if (error) p.fail(new DlcostError(error));
      else if (failure !== undefined) {
        // The worker could not load the engine (offline before the engine was cached, say):
        // the page's own thread tries, and reports its own error if it fails too.
        pending = p;
        fallBack();
      } else p.done({ out, via: 'worker' });
    });
    worker.addEventListener('error', (event) => {
      // Before any answer: the worker's script did not load or run (a browser that reads
      // {type: 'module'} as a classic script fails on `import`). After one: the engine aborted
      // inside the worker. Either way the main thread answers from now on, and reports what
      // the engine says there.
      event.preventDefault();
      fallBack();
    });
    return worker;
  }

  /** Stops the run going on, if any: its promise resolves to null. */
  function cancel() {
    const p = pending;
    pending = null;
    if (worker) {
      // A simulation cannot be interrupted midway: the worker goes, the next run starts one.
      worker.terminate();
      worker = null;
    }
    if (p) p.done(null);
  }

  /** @param {object} doc the document with its "load" @returns {Promise<SimAnswer | null>} */
  function run(doc) {
    if (pending) cancel();
    const w = useWorker ? worker || startWorker() : null;
    if (!w) return onMainThread(doc);
    return new Promise((done, fail) => {
      pending = { id: nextId++, doc, done, fail };
      w.postMessage({ id: pending.id, doc });
    });
  }

  return { run, cancel, usesWorker: () => useWorker };
}
