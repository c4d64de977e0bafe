// The explanations and comparisons (insights.js with explain.js, compare.js and learn.js) as a
// chunk loaded after the first result: main.js calls these two as it would insights.js's, and
// the first call to updateInsights loads the chunk a moment later (after the first result is
// drawn, so the first result neither waits for it nor shares the network with it).
// Their labels (insights_i18n.js) stay in the page's bundle: the static page names them.
// @ts-check

import './insights_i18n.js';

/** @typedef {typeof import('./insights.js')} Insights */

/** After the first result's frame: the insights wait 250 ms after a report anyway. */
const LOAD_DELAY_MS = 100;

/** @type {Insights | null} */
let insights = null;
/** @type {Promise<void> | null} */
let loading = null;
/** @type {Parameters<Insights['initInsights']>[0] | null} */
let options = null;
/** @type {Parameters<Insights['updateInsights']> | null} */
let pending = null;

/** @param {Parameters<Insights['initInsights']>[0]} o */
export function initInsights(o) {
  options = o;
}

/** @param {Parameters<Insights['updateInsights']>} args */
export function updateInsights(...args) {
  if (insights) {
    insights.updateInsights(...args);
    return;
  }
  pending = args;
  if (!loading) {
    loading = new Promise((done) => setTimeout(done, LOAD_DELAY_MS))
      .then(() => import('./insights.js'))
      .then(
        (m) => {
          insights = m;
          if (options) m.initInsights(options);
          if (pending) m.updateInsights(...pending);
        },
        () => {
          loading = null; // offline before the first visit: tried again on the next update
        },
      );
  }
}
