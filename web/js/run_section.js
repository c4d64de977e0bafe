// The "Run" section: the multi-GPU step the engine returns (compute, exposed communication,
// pipeline bubble, optimizer) as a stacked bar with its parts, the links it uses, and the
// time, GPU-hours, cost and energy of the whole run. Every figure is read from the report
// (gpu_fit.step_time, gpu_fit.network, gpu_fit.run); this module only formats and draws.
// @ts-check

import { h, replace, s } from './dom.js';
import { formatPercent, formatSeconds, formatSignificant, groupDigits } from './units.js';

const TEXT = {
  en: {
    title: 'Run',
    step: 'Step time',
    mfu: 'MFU',
    network: 'Network',
    nodes: 'node(s) of',
    gpus: 'GPUs',
    inside: 'inside a node',
    between: 'between nodes',
    run: 'Whole run',
    steps: 'steps',
    days: 'days',
    gpuHours: 'GPU-hours',
    energy: 'kWh at TDP',
    listPrice: 'list price, edit it',
    perGpuHour: '/GPU-hour',
    noRun: "Give training tokens or samples (Run fields) for the run's time and cost.",
    layout: 'Layout',
    experts: 'expert parallel',
    context: 'context parallel',
    interleaved: 'interleaved pipeline, chunks per GPU',
    bubbleShare: 'bubble',
    compute: 'compute',
    tp_comm: 'tensor-parallel comm',
    pp_comm: 'pipeline sends',
    ep_comm: 'expert all-to-all',
    cp_comm: 'context-parallel K/V ring (exposed)',
    dp_comm: 'data-parallel comm (exposed)',
    bubble: 'pipeline bubble',
    optimizer: 'optimizer',
  },
  zh: {
    title: '整体训练',
    layout: '并行布局',
    experts: '专家并行',
    context: '上下文并行',
    interleaved: '交错流水线，每 GPU 分块',
    bubbleShare: '气泡占比',
    step: '单步时间',
    mfu: 'MFU',
    network: '网络',
    nodes: '个节点，每节点',
    gpus: '块 GPU',
    inside: '节点内',
    between: '节点间',
    run: '整个训练',
    steps: '步',
    days: '天',
    gpuHours: 'GPU 小时',
    energy: 'kWh（按 TDP）',
    listPrice: '公开价格，可修改',
    perGpuHour: '/GPU 小时',
    noRun: '填写训练 token 数或样本数，即可得到整个训练的耗时与费用。',
    compute: '计算',
    tp_comm: '张量并行通信',
    pp_comm: '流水线传输',
    ep_comm: '专家 all-to-all',
    cp_comm: '上下文并行 K/V 环（未被掩盖）',
    dp_comm: '数据并行通信（未被掩盖）',
    bubble: '流水线气泡',
    optimizer: '优化器',
  },
};

function partsBar(parts, text) {
  // SVG attributes, not inline styles: the page's CSP allows no inline style.
  const bar = s('svg', { class: 'run-bar', width: '100%', height: 24, role: 'img', 'aria-label': text.step });
  const legend = h('ul', { class: 'legend' });
  parts.forEach((part, i) => {
    if (!part.seconds) return;
    const pct = formatPercent(part.share);
    const label = text[part.key] ?? part.key;
    bar.append(
      s(
        'rect',
        {
          x: `${formatPercent(part.offset, 3)}%`,
          y: 0,
          width: `${formatPercent(part.share, 3)}%`,
          height: 24,
          class: `seg seg-${i % 10}`,
        },
        s('title', {}, `${label}: ${formatSeconds(part.seconds)}`),
      ),
    );
    legend.append(
      h(
        'li',
        { dataset: { key: part.key } },
        h('span', { class: `swatch seg-${i % 10}`, 'aria-hidden': 'true' }),
        h('span', { class: 'legend-label' }, label),
        h('span', { class: 'legend-value num' }, formatSeconds(part.seconds)),
        h('span', { class: 'legend-pct num' }, `${pct} %`),
      ),
    );
  });
  return [bar, legend];
}

/** The engine's layout: dp x tp x pp, and expert parallelism and interleaving where set. */
function layoutLine(parallel, step, text) {
  const bits = [`dp ${parallel.data_parallel} × tp ${parallel.tp} × pp ${parallel.pp}`];
  if (parallel.ep > 1) bits.push(`${text.experts} ${parallel.ep}`);
  if (parallel.cp > 1) bits.push(`${text.context} ${parallel.cp}`);
  if (step.virtual_stages > 1) bits.push(`${text.interleaved} ${step.virtual_stages}`);
  if (parallel.pp > 1) bits.push(`${text.bubbleShare} ${formatPercent(step.bubble_fraction)} %`);
  return h('p', { class: 'run-layout', id: 'run-layout' }, `${text.layout}: ${bits.join(' · ')}`);
}

function networkLine(network, text) {
  const bits = [`${network.nodes} ${text.nodes} ${network.gpus_per_node} ${text.gpus}`];
  if (network.intra_node_link) bits.push(`${text.inside}: ${network.intra_node_link.name}`);
  if (network.inter_node_link) bits.push(`${text.between}: ${network.inter_node_link.name}`);
  return h('p', { class: 'run-network' }, `${text.network}: ${bits.join(' · ')}`);
}

function runLine(run, text) {
  if (!run) return h('p', { class: 'hint' }, text.noRun);
  const items = [
    `${groupDigits(run.steps)} ${text.steps}`,
    `${formatSignificant(run.wall_days)} ${text.days}`,
    `${groupDigits(run.gpu_hours)} ${text.gpuHours}`,
  ];
  if (run.cost_usd !== null) {
    const source =
      run.price_source?.kind === 'user'
        ? ''
        : ` (${text.listPrice}: ${run.price_source.offer}, ${run.price_source.date})`;
    items.push(`$${groupDigits(run.cost_usd)} @ $${run.price_per_gpu_hour}${text.perGpuHour}${source}`);
  }
  items.push(`${groupDigits(run.energy_kwh)} ${text.energy}`);
  return h('p', { class: 'run-total', id: 'run-total' }, `${text.run}: ${items.join(' · ')}`);
}

/** Renders the report's multi-GPU step and run into `root`; hides it without a GPU. */
export function renderRun(root, report, lang = 'en') {
  const fit = report?.gpu_fit;
  root.hidden = !fit;
  if (!fit) return;
  const text = TEXT[lang] ?? TEXT.en;
  const step = fit.step_time;
  replace(
    root,
    h('h3', {}, text.title),
    h(
      'p',
      { class: 'run-step' },
      `${text.step}: `,
      h('span', { class: 'num', id: 'run-step' }, formatSeconds(step.step_s)),
      ` · ${text.mfu}: `,
      h('span', { class: 'num', id: 'run-mfu' }, `${formatPercent(step.mfu)} %`),
    ),
    ...partsBar(step.parts, text),
    layoutLine(fit.parallel, step, text),
    networkLine(fit.network, text),
    runLine(fit.run, text),
  );
}
