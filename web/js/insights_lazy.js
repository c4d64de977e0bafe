// The explanations and comparisons (insights.js with explain.js, compare.js and learn.js) as a
// chunk loaded after the first result: main.js calls these two as it would insights.js's, and
// the first call to updateInsights loads the chunk, which the first result does not wait for.
// Their labels (insights_i18n.js) stay in the page's bundle: the static page names them.
// @ts-check

import './insights_i18n.js';

/** @typedef {typeof import('./insights.js')} Insights */

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
    loading = import('./insights.js').then(
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
