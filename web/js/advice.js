// "To make it fit": the engine's advice (report.gpu_fit.advice), each with an Apply button that
// merges the advice's workload patch ("set", written by core/src/gpu/gpu_json.cpp) into the form,
// and an Undo that restores the workload as it was (the store keeps the snapshots: state.undo). The page decides nothing: the changes,
// their order and their memory are the advisor's (core/src/explore/advisor.cpp).
// @ts-check

import dlcost from './dlcost.js';
import { h, replace } from './dom.js';
import { engineText, t } from './i18n.js';
import { formatBytes } from './units.js';

/** @typedef {import('./types').Report} Report */
/** @typedef {import('./types').Advice} Advice */
/** @typedef {import('./state.js').PageState} PageState */

/** The advice as a list, each item with its Apply button.
 *  @param {Advice[]} items @param {string} units @param {(advice: Advice) => void} onApply */
function adviceList(items, units, onApply) {
  return h(
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
            onclick: () => onApply(a),
          },
          t('apply'),
        ),
      ),
    ),
  );
}

/**
 * @param {Element} root the list's container
 * @param {() => Readonly<PageState>} getState
 * @param {typeof import('./state.js').update} update
 */
export function createAdvice(root, getState, update) {
  const status = h('p', { class: 'hint', role: 'status', id: 'advice-status' });

  function restore() {
    const { undo } = getState();
    const snap = undo[undo.length - 1];
    if (!snap) return;
    status.textContent = '';
    update({ workload: snap.workload, gpu: snap.gpu, undo: undo.slice(0, -1) }, { replace: true });
  }

  /** The model the last "Applied" note was about: the note goes when another model is shown. */
  let appliedTo = '';

  /** @param {Advice} advice @param {string} model the report's model name */
  function apply(advice, model) {
    const s = getState();
    // The engine writes the patch back as the text the form keeps (its own units). The state's
    // parts are never changed in place, so the snapshot is the parts themselves. A GPU in the
    // patch (serving advice: a bigger card) is the picker's, not a form field's.
    const { gpu, ...rest } = /** @type {{[key: string]: unknown}} */ (advice.set);
    const texts = dlcost.workloadToText(/** @type {import('./types').WorkloadPatch} */ (rest), s.units);
    appliedTo = model;
    status.textContent = t('appliedTo', { model, change: engineText(advice.change, advice.change_zh) });
    const gpuPatch = typeof gpu === 'string' ? { gpu: { name: gpu, memory: '' } } : {};
    update({ workload: texts, ...gpuPatch, undo: [...s.undo, { workload: s.workload, gpu: s.gpu }] });
  }

  /** Draws the list for `report` (empty when it fits or no GPU is chosen).
   *  @param {Report} report */
  function render(report) {
    const fit = report.gpu_fit;
    const model = report.model?.name ?? '';
    if (appliedTo && appliedTo !== model) {
      appliedTo = '';
      status.textContent = '';
    }
    const items = fit && !fit.fits && Array.isArray(fit.advice) ? fit.advice : [];
    const { units } = getState();
    const parts = [];
    if (fit && !fit.fits) {
      parts.push(h('h3', { id: 'advice-h' }, t('toMakeItFit')));
      if (items.length === 0) parts.push(h('p', { class: 'hint' }, t('adviceNone')));
      else {
        parts.push(adviceList(items, units, (a) => apply(a, model)));
      }
    }
    if (getState().undo.length) {
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

  return { render };
}
