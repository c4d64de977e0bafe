// "To make it fit": the engine's advice (report.gpu_fit.advice), each with an Apply button that
// merges the advice's workload patch ("set", written by core/src/gpu_json.cpp) into the form,
// and an Undo that restores the workload as it was. The page decides nothing: the changes,
// their order and their memory are the advisor's (core/src/advisor.cpp).
// @ts-check

import dlcost from './dlcost.js';
import { h, replace } from './dom.js';
import { engineText, t } from './i18n.js';
import { formatBytes } from './units.js';

/** @typedef {import('./types').Report} Report */
/** @typedef {import('./types').Advice} Advice */
/** @typedef {import('./state.js').PageState} PageState */

/**
 * @param {Element} root the list's container
 * @param {() => PageState} getState
 * @param {typeof import('./state.js').update} update
 * @param {() => void} onApplied after the state changed (the form re-syncs its controls)
 */
export function createAdvice(root, getState, update, onApplied) {
  /** @type {{workload: PageState['workload'], gpu: PageState['gpu']}[]} */
  const undo = []; // snapshots of {workload, gpu} before each Apply
  const status = h('p', { class: 'hint', role: 'status', id: 'advice-status' });

  function restore() {
    const snap = undo.pop();
    if (!snap) return;
    update({ workload: snap.workload, gpu: snap.gpu }, { silent: true, replace: true });
    status.textContent = '';
    onApplied();
  }

  /** @param {Advice} advice */
  function apply(advice) {
    const s = getState();
    undo.push({ workload: { ...s.workload }, gpu: { ...s.gpu } });
    // The engine writes the patch back as the text the form keeps (its own units).
    const texts = dlcost.workloadToText(advice.set, s.units);
    update({ workload: texts }, { silent: true });
    status.textContent = t('applied', { change: engineText(advice.change, advice.change_zh) });
    onApplied();
  }

  /** Draws the list for `report` (empty when it fits or no GPU is chosen).
   *  @param {Report} report */
  function render(report) {
    const fit = report.gpu_fit;
    const items = fit && !fit.fits && Array.isArray(fit.advice) ? fit.advice : [];
    const { units } = getState();
    const parts = [];
    if (fit && !fit.fits) {
      parts.push(h('h3', { id: 'advice-h' }, t('toMakeItFit')));
      if (items.length === 0) parts.push(h('p', { class: 'hint' }, t('adviceNone')));
      else {
        parts.push(
          h(
            'ol',
            { class: 'advice', 'aria-labelledby': 'advice-h' },
            items.map((a, i) =>
              h(
                'li',
                { dataset: { index: String(i) } },
                h('span', { class: 'advice-change' }, engineText(a.change, a.change_zh)),
                h(
                  'span',
                  { class: 'hint num' },
                  ` — ${t('adviceNeeds', { bytes: formatBytes(a.per_gpu_bytes, units), usable: formatBytes(a.usable_bytes, units) })}`,
                ),
                h(
                  'button',
                  {
                    type: 'button',
                    class: 'apply',
                    'aria-label': t('applyLabel', { change: engineText(a.change, a.change_zh) }),
                    onclick: () => apply(a),
                  },
                  t('apply'),
                ),
              ),
            ),
          ),
        );
      }
    }
    if (undo.length) {
      parts.push(
        h(
          'button',
          { type: 'button', id: 'advice-undo', class: 'undo', 'aria-label': t('undoLabel'), onclick: restore },
          t('undo'),
        ),
      );
    }
    parts.push(status);
    replace(root, ...parts);
  }

  return { render, undoDepth: () => undo.length };
}
