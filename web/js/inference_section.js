// The "Inference" panel: the serving engine's plan as the engine computed it (report.serving):
// fits / how many users / how fast first, then where each byte goes and the launch command.
// Renders only; every figure comes from the engine.
// @ts-check
import { h, replace } from './dom.js';
import { t } from './i18n.js';
import { formatBytes, formatContext, formatRate, formatSignificant as num } from './units.js';
import { lineChart } from './inference_chart.js';
import './inference_i18n.js';

function memoryList(title, memory, units) {
  if (!memory || !memory.terms) return null;
  return h(
    'div',
    { class: 'inference-memory' },
    h('h4', { text: `${title}: ${formatBytes(memory.total, units)}` }),
    h(
      'ul',
      {},
      memory.terms
        .filter((term) => term.bytes > 0 || term.key === 'kv_cache')
        .map((term) => h('li', { text: `${term.key}: ${formatBytes(term.bytes, units)}` })),
    ),
  );
}

/** The sweep's points as a table: context, users, fits, GPU memory, speeds (engine figures). */
function sweepTable(sweep, units) {
  const head = [
    t('inferenceColContext'),
    t('inferenceColUsers'),
    t('inferenceColFits'),
    t('inferenceColMemory'),
    t('inferencePerUser'),
    t('inferenceTotal'),
    t('inferenceColLatency'),
  ];
  return h(
    'table',
    { class: 'inference-sweep' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        head.map((c) => h('th', { text: c })),
      ),
    ),
    h(
      'tbody',
      {},
      sweep.points.map((p) =>
        h(
          'tr',
          {},
          h('td', { text: p.context }),
          h('td', { text: p.users }),
          h('td', { text: p.fits ? '✓' : '✗' }),
          h('td', { text: formatBytes(p.device_bytes, units) }),
          h('td', { text: p.speed ? formatRate(p.speed.tokens_per_s_per_user) : '' }),
          h('td', { text: p.speed ? formatRate(p.speed.tokens_per_s) : '' }),
          h('td', { text: p.speed ? num(p.speed.itl_s) : '' }),
        ),
      ),
    ),
  );
}

/** Tokens/s in all and GPU memory against the sweep's x (users or context): two charts.
 *  @param {Array<any>} points @param {(p: any) => string} xOf @param {string} units */
function sweepCharts(points, xOf, units) {
  return h(
    'div',
    { class: 'inference-charts' },
    lineChart(points, xOf, (p) => (p.speed ? p.speed.tokens_per_s : null), formatRate, t('inferenceChartTokens')),
    lineChart(
      points,
      xOf,
      (p) => p.device_bytes,
      (v) => formatBytes(v, units),
      t('inferenceChartMemory'),
    ),
  );
}

/** A folded "users and speed" section, computed when opened: charts and the table against
 *  users (at the plan's context) and against context (at the plan's users). */
function sweepDetails(plan, loadSweep, units) {
  const body = h('div', {});
  const details = h(
    'details',
    { class: 'inference-sweep-details' },
    h('summary', { text: t('inferenceSweep', {}, 'Users and speed') }),
    body,
  );
  details.addEventListener('toggle', () => {
    if (!details.open || body.childElementCount > 0) return;
    // loadSweep may return promises: the call lives in the engine's second module.
    Promise.all([loadSweep(null, null), loadSweep([plan.users], 'auto')]).then(
      ([byUsers, byContext]) =>
        replace(
          body,
          h('h4', { text: t('inferenceByUsers', { context: plan.context }) }),
          sweepCharts(byUsers.points, (p) => formatContext(p.users), units),
          sweepTable(byUsers, units),
          h('h4', { text: t('inferenceByContext', { users: plan.users }) }),
          sweepCharts(byContext.points, (p) => formatContext(p.context), units),
          sweepTable(byContext, units),
        ),
      (e) => replace(body, h('p', { class: 'field-error', text: /** @type {Error} */ (e).message })),
    );
  });
  return details;
}

/** The engine's own lines of a plan: its KV blocks, speculative steps, pipeline stages or
 *  llama.cpp's cells and layers.
 *  @param {import('./types').ServingPlan} plan
 *  @returns {HTMLElement[]} */
function engineLines(plan) {
  /** @type {HTMLElement[]} */
  const rows = [];
  if (plan.paged) {
    rows.push(
      h('p', {
        text:
          `${t('inferenceBlocks', {}, 'KV blocks')}: ${plan.paged.num_blocks} × ${plan.paged.block_size} = ` +
          `${plan.paged.kv_tokens} tokens · ${t('inferenceConcurrency', {}, 'max concurrency')} ` +
          `${num(plan.paged.max_concurrency)}x`,
      }),
    );
  }
  if (plan.speed && plan.speed.speculative) {
    const spec = plan.speed.speculative;
    rows.push(
      h('p', {
        text:
          `${t('inferenceSpeculative', {}, 'Speculative decoding')}: ${num(spec.tokens_per_step)} ` +
          `${t('inferencePerStep', {}, 'tokens a step per user')} · ` +
          `${t('inferenceDraftPart', {}, 'draft')} ${num(spec.draft_s * 1e3)} ms + ` +
          `${t('inferenceVerifyPart', {}, 'check')} ${num(spec.verify_s * 1e3)} ms`,
      }),
    );
  }
  if (plan.pipeline) {
    rows.push(
      h('p', {
        text:
          `${t('inferencePipeline', {}, 'Pipeline stages')}: ${plan.pipeline.stage_layers.join(' + ')} ` +
          `${t('inferenceLayers', {}, 'layers')} · ${t('inferenceLimiting', {}, 'the KV pool is that of stage')} ${plan.pipeline.limiting_stage}`,
      }),
    );
  }
  if (plan.llamacpp) {
    rows.push(
      h('p', { text: `n_ctx ${plan.llamacpp.n_ctx} · -ngl ${plan.llamacpp.gpu_layers} / ${plan.llamacpp.layers}` }),
    );
  }
  return rows;
}

/** Fills `node` with report.serving, or empties and hides it when the report has none.
 *  `loadSweep` (users, contexts) => the engine's servingSweep for the same document, or a
 *  promise of it (called when opened; null: the engine's choice of users or the workload's
 *  context, 'auto': the engine's contexts up to the model's). */
export function renderInference(node, report, units, loadSweep) {
  if (!node) return;
  const plan = report && report.serving;
  node.hidden = !plan;
  if (!plan) {
    replace(node);
    return;
  }
  const verdict = plan.fits
    ? t('inferenceFits', { users: plan.users, context: plan.context }, `${plan.users} × ${plan.context} tokens fit`)
    : t(
        'inferenceNoFit',
        { users: plan.users, context: plan.context },
        `${plan.users} × ${plan.context} tokens do not fit`,
      );
  /** @type {(HTMLElement | null)[]} */
  const rows = [
    h('p', { class: plan.fits ? 'inference-verdict ok' : 'inference-verdict bad', text: verdict }),
    h('p', { text: `${t('inferenceMaxUsers', {}, 'Most users at this context')}: ${plan.max_users}` }),
  ];
  if (plan.speed) {
    rows.push(
      h('p', {
        class: 'inference-speed',
        text:
          `${t('inferenceTtft', {}, 'Time to first token')}: ` +
          `${plan.speed.ttft_s === null ? t('inferenceTtftUnavailable') : `${num(plan.speed.ttft_s)} s`} · ` +
          `${t('inferenceItl', {}, 'Inter-token latency')}: ${num(plan.speed.itl_s)} s · ` +
          `${num(plan.speed.tokens_per_s_per_user)} ${t('inferencePerUser', {}, 'tokens/s per user')} · ` +
          `${num(plan.speed.tokens_per_s)} ${t('inferenceTotal', {}, 'tokens/s in all')} (${plan.speed.bound})`,
      }),
    );
  }
  rows.push(...engineLines(plan));
  rows.push(
    plan.on_cpu
      ? memoryList(t('inferenceCpu', {}, 'In system RAM (the CPU is the device)'), plan.device, units)
      : memoryList(t('inferenceGpu', {}, 'On the GPU'), plan.device, units),
  );
  if (plan.speed && plan.speed.prefill_copy_bytes > 0)
    rows.push(h('p', { text: `${t('inferenceCopy')}: ${formatBytes(plan.speed.prefill_copy_bytes, units)}` }));
  if (plan.host && plan.host.total > 0)
    rows.push(memoryList(t('inferenceHost', {}, 'In system RAM'), plan.host, units));
  rows.push(h('pre', { class: 'inference-command', text: plan.command }));
  for (const note of plan.notes || []) rows.push(h('p', { class: 'note', text: note }));
  if (loadSweep) rows.push(sweepDetails(plan, loadSweep, units));
  replace(node, h('h3', { text: `${t('inference', {}, 'Inference')} (${plan.engine})` }), ...rows);
}
