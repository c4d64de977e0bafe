// The "how memory works" panel: a few short points, each with links to the live figures it
// explains for the current model (a link scrolls to the figure, focuses it and opens its
// explanation).
// @ts-check

import { byId, h, replace } from './dom.js';
import { t } from './i18n.js';
import { openExplanation } from './explain.js';

/** Each point and the figures it links to: explanation ids (JSON pointers) or element ids. */
const POINTS = [
  ['learn_capacity', ['/memory/total', '/gpu_fit/gpu_memory/usable_bytes', '/gpu_fit/step_time_s']],
  ['learn_units', ['#units-gib']],
  ['learn_dtype', ['term:weights']],
  ['learn_terms', ['term:weights', 'term:gradients', 'term:optimizer_states', 'term:activations']],
  ['learn_batch', ['/memory_fit/max_batch', '/gpu_fit/max_batch', '#sweep']],
  ['learn_relu', ['term:activations', 'term:backward_peak_extra']],
  ['learn_depthwise', ['#layers']],
  ['learn_backward', ['/macs/forward', '#layers']],
  ['learn_saturate', ['#batch-chart']],
];

/** A memory line ("term:KEY") is found by its key; its explanation id is the pointer the
 *  breakdown gives it. */
function pointerOf(ref) {
  if (!ref.startsWith('term:')) return ref;
  const li = /** @type {HTMLElement | null} */ (document.querySelector(`#breakdown .legend li[data-key="${CSS.escape(ref.slice(5))}"]`));
  return li ? li.dataset.pointer : ref;
}

/** The element a "learn" link points at: an element id ("#x") or a figure's pointer.
 *  @param {string} ref @returns {HTMLElement | null} */
function targetOf(ref) {
  if (ref.startsWith('#')) return byId(ref.slice(1));
  ref = pointerOf(ref);
  // The figure itself, not the dominant-terms sentence that links to it as well.
  const all = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(`#results-body [data-explain="${CSS.escape(ref)}"]`));
  return [...all].find((el) => !el.closest('#dominant')) || all[0] || null;
}

function labelOf(ref, el) {
  if (ref.startsWith('#')) {
    const heading = el.previousElementSibling;
    if (heading && /^(H[2-4]|SUMMARY)$/.test(heading.tagName)) return heading.textContent;
    return el.textContent || ref.slice(1);
  }
  const card = el.closest('.card');
  if (card) return `${card.querySelector('.card-label').textContent}: ${el.textContent}`;
  const li = el.closest('li[data-key]');
  if (li) return `${li.querySelector('.legend-label').textContent}: ${el.textContent}`;
  const dt = el.previousElementSibling;
  if (dt && dt.tagName === 'DT') return `${dt.textContent}: ${el.textContent}`;
  const parent = el.parentElement;
  return parent ? parent.textContent : el.textContent;
}

function go(ref) {
  const el = targetOf(ref);
  if (!el) return;
  const box = el.closest('details');
  if (box && !box.open) box.open = true;  // its view draws on the toggle event
  el.scrollIntoView({ block: 'center' });
  if (!el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus({ preventScroll: true });
  if (!ref.startsWith('#')) openExplanation(pointerOf(ref));
}

/** Redraws the panel for the figures now on the page (call after applyExplanations). */
export function renderLearn(root = byId('learn')) {
  if (!root) return;
  const items = POINTS.map(([key, refs]) => {
    const links = [];
    for (const ref of refs) {
      const el = targetOf(ref);
      if (!el) continue;
      const a = h('button', { type: 'button', class: 'learn-link', dataset: { target: ref } }, labelOf(ref, el));
      a.addEventListener('click', () => go(ref));
      links.push(a);
    }
    return h('li', { dataset: { point: key } },
      h('p', {}, t(key)),
      links.length ? h('p', { class: 'learn-links' }, `${t('learnShow')}: `, links) : h('p', { class: 'hint' }, t('learnNotHere')));
  });
  replace(root, h('h2', { id: 'learn-h' }, t('learnHeading')), h('ul', { class: 'learn-list' }, items));
}
