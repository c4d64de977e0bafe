// Layouts on the page: for a training run on more than one GPU, the engine's layout search
// (core/src/explore/layouts.cpp, the same rows as `dlcost layouts`): every data x tensor x
// pipeline (x expert) split ranked, with memory per GPU, step time, MFU and the run's time and
// cost; a click applies a split. A split refused because the batch does not divide carries the
// engine's one-click fix. Renders only; every figure is the engine's.
// @ts-check

import { h, replace } from './dom.js';
import { DICTIONARIES, t } from './i18n.js';
import { formatBytes, formatPercent, formatSeconds, formatSignificant, groupDigits } from './units.js';

/** @typedef {{[key: string]: any}} LayoutRow */
/** @typedef {{rows: LayoutRow[], refused: LayoutRow[], gpus: number}} Layouts */

/** Rows shown at once: the best splits (the rest are a click away in `dlcost layouts`). */
const SHOWN = 8;

Object.assign(DICTIONARIES.en, {
  layoutsTitle: 'Layouts of {gpus} GPUs, ranked by step time',
  layoutsBest: 'Best layout: {layout} · step {step} · MFU {mfu} %',
  layoutsRun: 'Run: {days} days · ${cost}',
  layoutsNoRun: 'Give training tokens (Run fields) for the run’s time and cost.',
  layoutsLayout: 'layout',
  layoutsMemory: 'memory / GPU',
  layoutsStep: 'step',
  layoutsMfu: 'MFU',
  layoutsDays: 'days',
  layoutsCost: 'cost',
  layoutsApply: 'Use',
  layoutsApplyLabel: 'Use layout {layout}',
  layoutsCurrent: 'current',
  layoutsBatchFix: 'Use batch {batch}',
  layoutsBatchWhy: 'Batch {batch} does not split over the {replicas} data-parallel replicas of this layout.',
  layoutsLoading: 'Ranking the layouts…',
  layoutsOver: 'does not fit',
  layoutsZero: 'ZeRO-{zero}',
  layoutsAccum: '{k} accumulation steps',
});
Object.assign(DICTIONARIES.zh, {
  layoutsTitle: '{gpus} 块 GPU 的并行布局，按单步时间排序',
  layoutsBest: '最佳布局：{layout} · 单步 {step} · MFU {mfu} %',
  layoutsRun: '整个训练：{days} 天 · ${cost}',
  layoutsNoRun: '填写训练 token 数（训练规模字段）即可得到整个训练的耗时与费用。',
  layoutsLayout: '布局',
  layoutsMemory: '每 GPU 显存',
  layoutsStep: '单步',
  layoutsMfu: 'MFU',
  layoutsDays: '天',
  layoutsCost: '费用',
  layoutsApply: '采用',
  layoutsApplyLabel: '采用布局 {layout}',
  layoutsCurrent: '当前',
  layoutsBatchFix: '改用批大小 {batch}',
  layoutsBatchWhy: '批大小 {batch} 无法平均分到此布局的 {replicas} 个数据并行副本上。',
  layoutsLoading: '正在排序并行布局…',
  layoutsOver: '放不下',
  layoutsZero: 'ZeRO-{zero}',
  layoutsAccum: '梯度累积 {k} 步',
});

/** "dp 8 × tp 4 × pp 2" (and "× ep N" for experts), with the ZeRO stage and the gradient
 *  accumulation the engine's search gave it where it needed them. @param {LayoutRow} r */
export function layoutName(r) {
  const split =
    `dp ${r.dp} × tp ${r.tp} × pp ${r.pp}${r.ep > 1 ? ` × ep ${r.ep}` : ''}` + (r.cp > 1 ? ` × cp ${r.cp}` : '');
  const zero = r.zero > 0 ? ` · ${t('layoutsZero', { zero: r.zero })}` : '';
  const accum = r.pp === 1 && r.grad_accum > 1 ? ` · ${t('layoutsAccum', { k: r.grad_accum })}` : '';
  return split + zero + accum;
}

/** The workload patch that applies a row: the engine's `set` (tp, pp, ep, ZeRO, batch,
 *  accumulation, and the pipeline's micro-batches), as text; no pipeline clears micro-batches.
 *  @param {LayoutRow} r @returns {{[key: string]: string}} */
export function layoutPatch(r) {
  /** @type {{[key: string]: string}} */
  const patch = { microbatches: '' };
  for (const [key, value] of Object.entries(r.set)) patch[key] = String(value);
  return patch;
}

/** The best split's line: layout, step, MFU, then the run's days and dollars (or how to get
 *  them). @param {LayoutRow} best */
function bestLine(best) {
  const run = best.run;
  const vars = { layout: layoutName(best), step: formatSeconds(best.step_s), mfu: formatPercent(best.mfu) };
  return h(
    'div',
    { class: 'layouts-best', id: 'layouts-best' },
    h('strong', {}, t('layoutsBest', vars)),
    h(
      'span',
      { id: 'layouts-run' },
      run
        ? t('layoutsRun', {
            days: formatSignificant(run.wall_days),
            cost: run.cost_usd === null ? '–' : groupDigits(run.cost_usd),
          })
        : t('layoutsNoRun'),
    ),
  );
}

/** One row of the table, its button applying the split.
 *  @param {LayoutRow} r @param {boolean} current @param {string} units @param {(r: LayoutRow) => void} onApply */
function rowOf(r, current, units, onApply) {
  const name = layoutName(r);
  return h(
    'tr',
    { class: r.fits ? 'ok' : 'over', dataset: { current: String(current) } },
    h('th', { scope: 'row' }, name),
    h('td', { class: 'num' }, `${formatBytes(r.per_gpu_bytes, units)}${r.fits ? '' : ` (${t('layoutsOver')})`}`),
    h('td', { class: 'num' }, formatSeconds(r.step_s)),
    h('td', { class: 'num' }, `${formatPercent(r.mfu)} %`),
    h('td', { class: 'num' }, r.run ? formatSignificant(r.run.wall_days) : '–'),
    h('td', { class: 'num' }, r.run && r.run.cost_usd !== null ? `$${groupDigits(r.run.cost_usd)}` : '–'),
    h(
      'td',
      {},
      current
        ? t('layoutsCurrent')
        : h(
            'button',
            {
              type: 'button',
              class: 'apply',
              'aria-label': t('layoutsApplyLabel', { layout: name }),
              onclick: () => onApply(r),
            },
            t('layoutsApply'),
          ),
    ),
  );
}

/** The ranked table. @param {LayoutRow[]} rows @param {{tp: string, pp: string, zero: string, grad_accum: string}} now
 *  @param {string} units @param {(r: LayoutRow) => void} onApply */
function table(rows, now, units, onApply) {
  const head = ['layoutsLayout', 'layoutsMemory', 'layoutsStep', 'layoutsMfu', 'layoutsDays', 'layoutsCost', ''];
  const isNow = (/** @type {LayoutRow} */ r) =>
    String(r.tp) === (now.tp || '1') &&
    String(r.pp) === (now.pp || '1') &&
    String(r.zero) === (now.zero || '0') &&
    String(r.grad_accum) === (now.grad_accum || '1');
  return h(
    'div',
    { class: 'table-wrap layouts-wrap' },
    h(
      'table',
      { class: 'layouts-table', id: 'layouts-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((k) => h('th', { scope: 'col' }, k ? t(k) : '')),
        ),
      ),
      h(
        'tbody',
        {},
        rows.slice(0, SHOWN).map((r) => rowOf(r, isNow(r), units, onApply)),
      ),
    ),
  );
}

/** The one-click fix for the current split when its batch does not divide (the engine's
 *  refused row carries it). @param {LayoutRow[]} refused @param {{tp: string, pp: string, batch: string}} now
 *  @param {(patch: {[key: string]: string}) => void} onPatch */
function batchFix(refused, now, onPatch) {
  const mine = refused.find((r) => String(r.tp) === (now.tp || '1') && String(r.pp) === (now.pp || '1') && r.fix);
  if (!mine) return null;
  const batch = String(mine.fix.batch);
  const why = t('layoutsBatchWhy', { batch: now.batch, replicas: mine.dp * mine.microbatches });
  return h(
    'p',
    { class: 'layouts-fix field-error', id: 'layouts-fix', title: mine.error.message },
    `${why} `,
    h(
      'button',
      { type: 'button', id: 'layouts-fix-batch', onclick: () => onPatch({ batch }) },
      t('layoutsBatchFix', { batch }),
    ),
  );
}

/**
 * Fills `root` with the layouts of the workload, or hides it when there is no multi-GPU
 * training run. `load` returns the engine's layouts (a promise: they live in the second module).
 * @param {HTMLElement} root
 * @param {{mode: string, gpus: number, tp: string, pp: string, zero: string, grad_accum: string, batch: string, units: string}} now
 * @param {() => Promise<Layouts>} load
 * @param {(patch: {[key: string]: string}) => void} onPatch
 */
export function renderLayouts(root, now, load, onPatch) {
  const on = now.mode === 'train' && now.gpus > 1;
  root.hidden = !on;
  const ticket = String((Number(root.dataset.ticket) || 0) + 1);
  root.dataset.ticket = ticket;
  if (!on) {
    replace(root);
    return;
  }
  if (!root.childElementCount) replace(root, h('p', { class: 'hint' }, t('layoutsLoading')));
  load().then(
    (found) => {
      if (root.dataset.ticket !== ticket) return; // a newer question was asked meanwhile
      const best = found.rows[0];
      replace(
        root,
        h('h3', { id: 'layouts-h' }, t('layoutsTitle', { gpus: found.gpus })),
        batchFix(found.refused, now, onPatch),
        best ? bestLine(best) : null,
        table(found.rows, now, now.units, (r) => onPatch(layoutPatch(r))),
      );
    },
    (/** @type {Error} */ e) => {
      if (root.dataset.ticket === ticket) replace(root, h('p', { class: 'field-error' }, e.message));
    },
  );
}
