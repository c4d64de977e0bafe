// The "approximate" mark. A report read through the generic transformer form, at the user's
// request, says so ("transformer": {"approximate": true}); then the parameter count and every
// figure derived from it are approximate, and each one carries this badge. The engine decides;
// this module only reads the flag.
// @ts-check

import { h } from './dom.js';
import { t } from './i18n.js';

export function isApproximate(report) {
  return report?.transformer?.approximate === true;
}

/** A badge for one derived figure, or null when the report is exact. */
export function approximateBadge(report) {
  if (!isApproximate(report)) return null;
  return h(
    'span',
    { class: 'approx-badge', dataset: { approximate: 'true' }, title: t('approximateHelp') },
    t('approximate'),
  );
}
