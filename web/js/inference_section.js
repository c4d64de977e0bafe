// The "Inference" panel: the serving engine's plan as the engine computed it (report.serving):
// fits / how many users / how fast first, then where each byte goes and the launch command.
// Renders only; every figure comes from the engine.
// @ts-check
import { h, replace } from './dom.js';
import { t } from './i18n.js';
import { formatBytes, formatSignificant as num } from './units.js';

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
  const head = ['context', 'users', 'fits', 'GPU memory', 'tokens/s per user', 'tokens/s', 'latency (s)'];
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
          h('td', { text: p.speed ? num(p.speed.tokens_per_s_per_user) : '' }),
          h('td', { text: p.speed ? num(p.speed.tokens_per_s) : '' }),
          h('td', { text: p.speed ? num(p.speed.itl_s) : '' }),
        ),
      ),
    ),
  );
}

/** A folded "users and speed" table, computed (one engine call) when opened. */
function sweepDetails(loadSweep, units) {
  const body = h('div', {});
  const details = h(
    'details',
    { class: 'inference-sweep-details' },
    h('summary', { text: t('inferenceSweep', {}, 'Users and speed') }),
    body,
  );
  details.addEventListener('toggle', () => {
    if (!details.open || body.childElementCount > 0) return;
    try {
      replace(body, sweepTable(loadSweep(), units));
    } catch (e) {
      replace(body, h('p', { class: 'field-error', text: /** @type {Error} */ (e).message }));
    }
  });
  return details;
}

/** Fills `node` with report.serving, or empties and hides it when the report has none.
 *  `loadSweep` () => the engine's servingSweep for the same document (called when opened). */
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
          `${t('inferenceTtft', {}, 'Time to first token')}: ${num(plan.speed.ttft_s)} s · ` +
          `${t('inferenceItl', {}, 'Inter-token latency')}: ${num(plan.speed.itl_s)} s · ` +
          `${num(plan.speed.tokens_per_s_per_user)} ${t('inferencePerUser', {}, 'tokens/s per user')} · ` +
          `${num(plan.speed.tokens_per_s)} ${t('inferenceTotal', {}, 'tokens/s in all')} (${plan.speed.bound})`,
      }),
    );
  }
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
  if (plan.llamacpp) {
    rows.push(
      h('p', { text: `n_ctx ${plan.llamacpp.n_ctx} · -ngl ${plan.llamacpp.gpu_layers} / ${plan.llamacpp.layers}` }),
    );
  }
  rows.push(memoryList(t('inferenceGpu', {}, 'On the GPU'), plan.device, units));
  if (plan.host && plan.host.total > 0)
    rows.push(memoryList(t('inferenceHost', {}, 'In system RAM'), plan.host, units));
  rows.push(h('pre', { class: 'inference-command', text: plan.command }));
  for (const note of plan.notes || []) rows.push(h('p', { class: 'note', text: note }));
  if (loadSweep) rows.push(sweepDetails(loadSweep, units));
  replace(node, h('h3', { text: `${t('inference', {}, 'Inference')} (${plan.engine})` }), ...rows);
}
