// The Under load section's simulations off the page's main thread (issue #30 item 4): a module
// Web Worker that loads the same engine module (dlcost_extra, through dlcost.js) and answers
// each request {id, doc} with the engine's serveSim answer for that document, {id, out}, or its
// input error, {id, error: {code, path, message, message_zh}}; {id, failure} when the engine
// itself could not be loaded or aborted. It computes nothing: every figure is the engine's JSON,
// parsed here and copied to the page as it is. One request at a time; the page cancels a run by
// terminating this worker (a simulation cannot be interrupted midway) and starts a new one.
// @ts-check

import dlcost, { DlcostError, loadExtra } from './dlcost.js';

/** @param {object} message */
const reply = (message) => /** @type {any} */ (self).postMessage(message);

self.addEventListener('message', async (event) => {
  const { id, doc } = /** @type {{id: number, doc: object}} */ (event.data);
  try {
    await loadExtra();
  } catch (e) {
    reply({ id, failure: String(e) });
    return;
  }
  try {
    reply({ id, out: dlcost.serveSim(doc) });
  } catch (e) {
    if (e instanceof DlcostError) {
      reply({ id, error: { code: e.code, path: e.path, message: e.message, message_zh: e.message_zh } });
    } else {
      reply({ id, failure: String(e) });
    }
  }
});
