// Model files dropped on the page (.gguf, .safetensors, model.safetensors.index.json, .onnx):
// only the header is read, with File.slice, as far as the engine asks (a 20 GB checkpoint is
// summarised from its first megabytes; an ONNX file, whose weights lie between its fields, is
// read whole up to 128 MiB), and nothing leaves the browser. Every figure comes
// from the engine's summary; text from the file only ever becomes text nodes.
// @ts-check

import api, { loadExtra } from './dlcost.js';
import { h } from './dom.js';
import { DICTIONARIES, engineText, t } from './i18n.js';
import { BINARY, formatBytes, formatCount, groupDigits } from './units.js';

Object.assign(DICTIONARIES.en, {
  mf_reading: 'Reading the header of {name}…',
  mf_title: '{name}: {format}',
  mf_format_gguf: 'GGUF v{version}',
  mf_format_safetensors: 'safetensors',
  mf_format_safetensors_index: 'safetensors index',
  mf_format_onnx: 'ONNX',
  mf_operators: 'Operators',
  mf_file_size: 'File size',
  mf_header_read: 'Header read',
  mf_architecture: 'Architecture',
  mf_parameters: 'Parameters',
  mf_weights: 'Weights',
  mf_tensors: 'Tensors',
  mf_by_type: 'By storage type',
  mf_dtype: 'Type',
  mf_bytes: 'Bytes',
  mf_bpw: 'Bits/weight',
  mf_shards: 'Shards',
  mf_index_params: 'Parameters need the shards\u2019 headers: drop each shard.',
  mf_context_length: 'Context length',
  mf_layers: 'Layers',
  mf_embedding_width: 'Embedding width',
  mf_feed_forward_width: 'Feed-forward width',
  mf_heads: 'Attention heads',
  mf_kv_heads: 'KV heads',
  mf_head_dim: 'Head dim',
  mf_experts: 'Experts',
  mf_experts_used: 'Experts used',
  mf_vocab_size: 'Vocabulary',
  mf_failed: 'Could not read {name}: {message}',
  mf_missing_shards: 'Not dropped with the index: {files}.',
  mf_use_config: 'Estimate this architecture',
  mf_config_check: 'The engine counts {engine} parameters for this architecture (difference {difference}).',
  mf_estimate_note: 'The estimate\u2019s weights line is this file\u2019s {bytes}, each tensor in its stored type, whatever the weight precision says.',
  mf_graph_ok: 'Layer graph: {understood} of {nodes} nodes understood, {layers} layers, {params} parameters, {macs} MACs per sample.',
  mf_graph_partial: 'No layer graph: dlcost understands {understood} of {nodes} nodes and gives no estimate that leaves the others out.',
  mf_graph_unmodelled: '{op} ×{count}: {reason}',
  mf_graph_after: '{count} more nodes read their outputs.',
  mf_use_graph: 'Estimate this model',
  mf_components: 'The file\u2019s tensors by component (names as transformers\u2019 modules)',
  mf_components_match: 'Each component equals dlcost\u2019s count for the model.',
  mf_components_differ: 'The file and dlcost\u2019s count for the model differ: see the rows marked.',
  mf_components_need_config: 'Choose this checkpoint\u2019s transformer, or paste its config.json, to check its tensors against dlcost\u2019s components.',
  mf_components_failed: 'The tensors are checked once the model reads without error: {message}',
  mf_component: 'Component',
  mf_in_file: 'In the file',
  mf_by_dlcost: 'By dlcost',
  mf_difference: 'Difference',
  mf_unplaced: 'Tensors whose names match no component: {count}, {parameters} parameters:',
  mf_unplaced_first: 'Tensors whose names match no component: {count}, {parameters} parameters; the first {shown}:',
  mf_comp_embeddings: 'Embeddings',
  mf_comp_attention: 'Attention',
  mf_comp_mlp: 'MLP and experts',
  mf_comp_norms: 'Norms',
  mf_comp_lm_head: 'LM head',
  mf_comp_other: 'Other',
});

Object.assign(DICTIONARIES.zh, {
  mf_reading: '正在读取 {name} 的文件头…',
  mf_title: '{name}：{format}',
  mf_format_gguf: 'GGUF v{version}',
  mf_format_safetensors: 'safetensors',
  mf_format_safetensors_index: 'safetensors 索引',
  mf_format_onnx: 'ONNX',
  mf_operators: '算子',
  mf_file_size: '文件大小',
  mf_header_read: '已读取文件头',
  mf_architecture: '架构',
  mf_parameters: '参数量',
  mf_weights: '权重',
  mf_tensors: '张量',
  mf_by_type: '按存储类型',
  mf_dtype: '类型',
  mf_bytes: '字节',
  mf_bpw: '每权重比特',
  mf_shards: '分片',
  mf_index_params: '参数量需要各分片的文件头：请拖入每个分片。',
  mf_context_length: '上下文长度',
  mf_layers: '层数',
  mf_embedding_width: '嵌入宽度',
  mf_feed_forward_width: '前馈宽度',
  mf_heads: '注意力头',
  mf_kv_heads: 'KV 头',
  mf_head_dim: '头维度',
  mf_experts: '专家数',
  mf_experts_used: '激活专家数',
  mf_vocab_size: '词表',
  mf_failed: '无法读取 {name}：{message}',
  mf_missing_shards: '未与索引一同拖入：{files}。',
  mf_use_config: '估算此架构',
  mf_config_check: '引擎按此架构计得 {engine} 个参数（差值 {difference}）。',
  mf_estimate_note: '估算中的权重一项即此文件的 {bytes}（各张量按其存储类型），不随权重精度设置而变。',
  mf_graph_ok: '层图：理解 {nodes} 个节点中的 {understood} 个，{layers} 层，{params} 个参数，每样本 {macs} 次乘加。',
  mf_graph_partial: '无层图：dlcost 理解 {nodes} 个节点中的 {understood} 个，不给出遗漏其余节点的估算。',
  mf_graph_unmodelled: '{op} ×{count}：{reason}',
  mf_graph_after: '另有 {count} 个节点读取其输出。',
  mf_use_graph: '估算此模型',
  mf_components: '文件中的张量按组件（名称依 transformers 的模块）',
  mf_components_match: '每个组件都与 dlcost 对该模型的计数相等。',
  mf_components_differ: '文件与 dlcost 对该模型的计数不一致：见标出的行。',
  mf_components_need_config: '选择此检查点的 Transformer 模型，或粘贴其 config.json，即可将其张量与 dlcost 的组件核对。',
  mf_components_failed: '模型读取无误后再核对张量：{message}',
  mf_component: '组件',
  mf_in_file: '文件中',
  mf_by_dlcost: 'dlcost 计数',
  mf_difference: '差值',
  mf_unplaced: '{count} 个张量（{parameters} 个参数）的名称不属于任何组件：',
  mf_unplaced_first: '{count} 个张量（{parameters} 个参数）的名称不属于任何组件；前 {shown} 个：',
  mf_comp_embeddings: '嵌入',
  mf_comp_attention: '注意力',
  mf_comp_mlp: 'MLP 与专家',
  mf_comp_norms: '归一化',
  mf_comp_lm_head: '语言模型头',
  mf_comp_other: '其他',
});

/** An engine error's message in the page's language where the engine writes one
 *  (DlcostError's message_zh, or an error object of a summary).
 *  @param {{message: string, message_zh?: string}} e @returns {string} */
const errorText = (e) => engineText(e.message, e.message_zh);

/**
 * The engine's summary of `file` (a File or Blob), reading only the first bytes it asks for.
 * Resolves to the summary; rejects with DlcostError for a bad file.
 * @param {Blob} file
 * @param {(bytesRead: number) => void} [onRead] called with each byte count read (for tests and progress)
 */
export async function inspectFile(file, onRead = () => {}) {
  await loadExtra();  // the readers live in the engine's second module
  let bytes = new Uint8Array(0);
  // Each request at least doubles the prefix up to 128 MiB, so a few rounds suffice.
  for (let round = 0; round < 32; round += 1) {
    const out = api.inspectModelFile(bytes, file.size);
    if (out.need_bytes === undefined) return out;
    if (!(out.need_bytes > bytes.length && out.need_bytes <= file.size)) break;
    bytes = new Uint8Array(await file.slice(0, out.need_bytes).arrayBuffer());
    onRead(bytes.length);
  }
  throw new Error('dlcost: the header could not be read');
}

const MODEL_FIELDS = ['context_length', 'layers', 'embedding_width', 'feed_forward_width', 'heads',
  'kv_heads', 'head_dim', 'experts', 'experts_used', 'vocab_size'];

function valueText(v) {
  if (typeof v === 'number') return groupDigits(v);
  if (Array.isArray(v)) return v.join(', ');
  if (v && typeof v === 'object' && 'length' in v) return `[${groupDigits(v.length)}]`;
  return String(v);
}

function bytesText(b, units) {
  return `${formatBytes(b, units)} (${groupDigits(b)} B)`;
}

/** The summary as a node tree: facts, then bytes and parameters by storage type; for a GGUF
 *  whose architecture maps to a config.json, a button that hands it to `onConfig(config)`;
 *  with `doc` (a document), the tensors against its model's components (renderComponents). */
export function renderSummary(name, s, units = BINARY, onConfig = null, doc = undefined) {
  const format = t(`mf_format_${s.format}`, { version: s.gguf?.version });
  const facts = [];
  const fact = (key, text) => facts.push(h('dt', { text: t(key) }), h('dd', { text }));
  if (typeof s.file_size === 'number') fact('mf_file_size', bytesText(s.file_size, units));
  if (s.gguf) {
    fact('mf_architecture', [s.gguf.architecture, s.gguf.name].filter(Boolean).join(' · ') || '—');
    for (const key of MODEL_FIELDS) {
      if (key in s.gguf.model) fact(`mf_${key}`, valueText(s.gguf.model[key]));
    }
  }
  if (s.parameters !== null) fact('mf_parameters', `${groupDigits(s.parameters)} (${formatCount(s.parameters)})`);
  if (s.weight_bytes !== null) fact('mf_weights', bytesText(s.weight_bytes, units));
  fact('mf_tensors', groupDigits(s.tensor_count));
  if (typeof s.header_bytes === 'number') fact('mf_header_read', bytesText(s.header_bytes, units));

  /** @type {HTMLElement[]} */
  const parts = [h('h3', { text: t('mf_title', { name, format }) }), h('dl', { class: 'facts' }, facts)];
  if (s.by_dtype) {
    const rows = s.by_dtype.map((r) => h('tr', {},
      h('td', { text: r.dtype }),
      h('td', { class: 'num', text: groupDigits(r.tensors) }),
      h('td', { class: 'num', text: groupDigits(r.parameters) }),
      h('td', { class: 'num', text: formatBytes(r.bytes, units) }),
      h('td', { class: 'num', text: r.bits_per_weight === undefined ? '—' : r.bits_per_weight.toFixed(4) })));
    parts.push(h('table', { class: 'by-dtype' },
      h('caption', { text: t('mf_by_type') }),
      h('thead', {}, h('tr', {}, ['mf_dtype', 'mf_tensors', 'mf_parameters', 'mf_bytes', 'mf_bpw']
        .map((k) => h('th', { scope: 'col', text: t(k) })))),
      h('tbody', {}, rows)));
  }
  const check = s.gguf?.config_check;
  if (check) {
    parts.push(h('p', { class: 'hint', text: t('mf_config_check', {
      engine: groupDigits(check.engine_parameters), difference: groupDigits(check.difference) }) }));
  } else if (s.gguf?.hf_config_error) {
    parts.push(h('p', { class: 'hint', text: errorText(s.gguf.hf_config_error) }));
  }
  if (s.gguf?.hf_config && onConfig) {
    parts.push(h('p', { class: 'hint', text: t('mf_estimate_note', { bytes: bytesText(s.weight_bytes, units) }) }));
    // The config with the file's weights: the engine's weights term is then the file's bytes.
    const doc = { model: { hf_config: s.gguf.hf_config, weights_file: s.weights_file } };
    parts.push(h('button', { type: 'button', class: 'use-config', onclick: () => onConfig(doc) },
      t('mf_use_config')));
  }
  if (s.onnx) {
    parts.push(h('p', { class: 'hint', text: `${t('mf_operators')}: ${s.onnx.operators.map((o) => `${o.op_type} ${o.count}`).join(', ')}` }));
  }
  if (s.layer_graph) parts.push(...renderLayerGraph(name, s.layer_graph, onConfig));
  if (s.shards) {
    if (s.parameters === null) parts.push(h('p', { class: 'hint', text: t('mf_index_params') }));
    parts.push(h('ul', { class: 'shards' }, s.shards.map((x) => h('li', { text: `${x.file} (${x.tensors})` }))));
  }
  if (doc !== undefined) parts.push(renderComponents(s, doc));
  return h('div', { class: 'model-file-summary' }, parts);
}

/** What the engine understood of an ONNX graph: its layer graph's counts and a button that
 *  hands `{model: layer graph}` (named after the file) to `onConfig`, or the operators it does
 *  not model. */
function renderLayerGraph(name, g, onConfig) {
  if (g.model) {
    /** @type {HTMLElement[]} */
    const parts = [h('p', { class: 'hint layer-graph', text: t('mf_graph_ok', {
      understood: groupDigits(g.understood_nodes), nodes: groupDigits(g.nodes), layers: groupDigits(g.model.layers.length),
      params: groupDigits(g.parameters), macs: groupDigits(g.macs_per_sample) }) })];
    if (onConfig) {
      parts.push(h('button', { type: 'button', class: 'use-config', onclick: () => onConfig({ model: { ...g.model, name } }) },
        t('mf_use_graph')));
    }
    return parts;
  }
  const items = g.unmodelled.map((u) => h('li', { text: t('mf_graph_unmodelled', { op: u.op_type, count: groupDigits(u.count), reason: u.reason }) }));
  if (g.error) items.push(h('li', { text: errorText(g.error) }));
  if (g.after_unmodelled_nodes > 0) items.push(h('li', { text: t('mf_graph_after', { count: groupDigits(g.after_unmodelled_nodes) }) }));
  return [h('p', { class: 'hint layer-graph', text: t('mf_graph_partial', {
    understood: groupDigits(g.understood_nodes), nodes: groupDigits(g.nodes) }) }),
  h('ul', { class: 'unmodelled' }, items)];
}

/** Component names as the engine writes them (componentCheckJson), for the labels. */
const COMPONENTS = ['embeddings', 'attention', 'mlp', 'norms', 'lm_head', 'other'];

/**
 * The checkpoint's tensors against the engine's components of `doc`'s model, as the CLI's
 * `estimate --weights` prints them: the engine decides whether a check applies (null: the model
 * is not a transformer, or the file lists no Hugging Face tensor sizes) and every figure; the
 * page only leaves out components neither side has. Tensor names are the file's text: text
 * nodes only.
 * @param {any} summary inspectFile's or inspectCheckpoint's summary
 * @param {object | string} doc the document whose model the tensors are checked against (as
 *  an object or as JSON text)
 * @returns {HTMLElement}
 */
export function renderComponents(summary, doc) {
  const box = h('div', { class: 'components' });
  /** @type {import('./types').ComponentCheck | null} */
  let check;
  try {
    check = api.checkComponents(summary, doc);
  } catch (e) {
    box.append(h('p', { class: 'hint', text: t('mf_components_failed', { message: errorText(/** @type {Error} */ (e)) }) }));
    return box;
  }
  if (!check) {
    if (/^safetensors/.test(summary.format) && summary.tensors) box.append(h('p', { class: 'hint', text: t('mf_components_need_config') }));
    return box;
  }
  const rows = check.rows.filter((r) => r.engine !== 0 || r.file !== 0).map((r) => h('tr', {
    class: r.difference === 0 ? null : 'differs', dataset: { component: r.component } },
  h('th', { scope: 'row', text: COMPONENTS.includes(r.component) ? t(`mf_comp_${r.component}`) : r.component }),
  h('td', { class: 'num', text: groupDigits(r.tensors) }),
  h('td', { class: 'num', text: groupDigits(r.file) }),
  h('td', { class: 'num', text: groupDigits(r.engine) }),
  h('td', { class: 'num', text: groupDigits(r.difference) })));
  box.append(
    h('table', { class: 'by-component' },
      h('caption', { text: t('mf_components') }),
      h('thead', {}, h('tr', {}, ['mf_component', 'mf_tensors', 'mf_in_file', 'mf_by_dlcost', 'mf_difference']
        .map((k) => h('th', { scope: 'col', text: t(k) })))),
      h('tbody', {}, rows)),
    h('p', { class: check.matches ? 'hint components-match' : 'hint components-differ',
      text: t(check.matches ? 'mf_components_match' : 'mf_components_differ') }));
  const u = check.unplaced;
  if (u.count > 0) {
    const args = { count: groupDigits(u.count), parameters: groupDigits(u.parameters), shown: groupDigits(u.names.length) };
    box.append(h('p', { class: 'hint', text: t(u.count > u.names.length ? 'mf_unplaced_first' : 'mf_unplaced', args) }),
      h('ul', { class: 'unplaced' }, u.names.map((name) => h('li', { text: name }))));
  }
  return box;
}

/** Redraws the components section of the summary shown in `container` against `doc`'s
 *  model (the model changed after the drop).
 *  @param {HTMLElement} container @param {any} summary @param {object | string} doc */
export function refreshComponents(container, summary, doc) {
  container.querySelector('.model-file-summary > .components')?.replaceWith(renderComponents(summary, doc));
}

/**
 * An index dropped with its shards: each shard's header is read, and the engine combines them
 * into one exact summary (checked against the weight_map and total_size). Shards not among
 * `files` are listed and the index alone is summarised.
 */
export async function inspectCheckpoint(indexFile, files) {
  const index = await inspectFile(indexFile);
  const shards = {};
  const missing = [];
  for (const { file } of index.shards ?? []) {
    const shard = files.find((f) => f.name === file);
    if (shard) shards[file] = await inspectFile(shard);
    else missing.push(file);
  }
  if (missing.length > 0) return { ...index, shards_not_found: missing };
  const all = api.inspectShardedCheckpoint(await indexFile.text(), shards);
  return { ...all, file_size: index.file_size };
}

/** A config.json dropped with a checkpoint: the document its tensors are checked against. */
const isConfig = (/** @type {{name: string}} */ f) => /(^|[/\\])config\.json$/i.test(f.name);

/** @typedef {{units?: string, onConfig?: ((doc: unknown) => void) | null, modelDocument?: () => object | string}} ShowOptions */
/** What was shown: the summary, and `refresh(doc)`, which checks its tensors against another
 *  model (null when a config.json dropped with the file fixes the model they are checked
 *  against). @typedef {{summary: any, refresh: ((doc: object | string) => void) | null}} Shown */

/**
 * Several files at once: an index with its shards (see inspectCheckpoint), else the first
 * model file. The tensors are checked against the model of a config.json dropped with them,
 * else of `options.modelDocument()` (the page's model), when given. Resolves to what was
 * shown, or null when the files could not be read (the error is shown).
 * @param {HTMLElement} container @param {File[]} files @param {ShowOptions} [options]
 * @returns {Promise<Shown | null>}
 */
export async function showModelFiles(container, files, options = {}) {
  const config = files.find(isConfig);
  const configText = config ? await config.text() : '';
  const opts = config ? { ...options, modelDocument: () => configText } : options;
  const index = files.find((f) => /\.index\.json$/i.test(f.name));
  const shards = files.filter((f) => f !== config);
  const shown = !index || shards.length === 1
    ? await showModelFile(container, shards.find((f) => f !== index) ?? shards[0], opts)
    : await showCheckpoint(container, index, shards, opts);
  if (shown && config && options.onConfig) offerDroppedConfig(container, shown.summary, configText, options);
  return shown && config ? { ...shown, refresh: null } : shown;
}

/** A config.json dropped with a checkpoint that the engine reads as a Hugging Face config
 *  (isHfConfig; a dlcost document of that name is only checked against): a button that hands
 *  it with the checkpoint's weights to `onConfig`, as a GGUF's architecture is handed over.
 *  @param {HTMLElement} container @param {any} summary @param {string} configText
 *  @param {ShowOptions} options */
function offerDroppedConfig(container, summary, configText, { units = BINARY, onConfig }) {
  const node = container.querySelector('.model-file-summary');
  // A GGUF's or an ONNX graph's own button stays the only one.
  if (!node || !summary.weights_file || node.querySelector('button.use-config')) return;
  let config;
  try {
    if (!api.isHfConfig(configText)) return;
    config = JSON.parse(configText);
  } catch {
    return; // not JSON: the component check above says so
  }
  // The config with the file's weights: the engine's weights term is then the file's bytes.
  const doc = { model: { hf_config: config, weights_file: summary.weights_file } };
  node.append(
    h('p', { class: 'hint', text: t('mf_estimate_note', { bytes: bytesText(summary.weight_bytes, units) }) }),
    h('button', { type: 'button', class: 'use-config', onclick: () => onConfig(doc) }, t('mf_use_config')));
}

/** An index with its shards in `container` (showModelFiles). @param {HTMLElement} container
 *  @param {File} index @param {File[]} files @param {ShowOptions} options @returns {Promise<Shown | null>} */
async function showCheckpoint(container, index, files, options) {
  container.hidden = false;
  container.replaceChildren(h('p', { class: 'hint', text: t('mf_reading', { name: index.name }) }));
  try {
    const summary = await inspectCheckpoint(index, files);
    const node = renderSummary(index.name, summary, options.units ?? BINARY, null, options.modelDocument?.());
    if (summary.shards_not_found) {
      node.append(h('p', { class: 'hint', text: t('mf_missing_shards', { files: summary.shards_not_found.join(', ') }) }));
    }
    container.replaceChildren(node);
    return { summary, refresh: (doc) => refreshComponents(container, summary, doc) };
  } catch (e) {
    container.replaceChildren(h('p', { class: 'field-error', role: 'alert',
      text: t('mf_failed', { name: index.name, message: errorText(/** @type {Error} */ (e)) }) }));
    return null;
  }
}

/** Reads `file` and shows its summary (or the error) in `container`; `onConfig` as for
 *  renderSummary, `modelDocument` as for showModelFiles.
 *  @param {HTMLElement} container @param {File} file @param {ShowOptions} [options]
 *  @returns {Promise<Shown | null>} */
export async function showModelFile(container, file, { units = BINARY, onConfig = null, modelDocument } = {}) {
  container.hidden = false;
  container.replaceChildren(h('p', { class: 'hint', text: t('mf_reading', { name: file.name }) }));
  try {
    const summary = await inspectFile(file);
    container.replaceChildren(renderSummary(file.name, summary, units, onConfig, modelDocument?.()));
    return { summary, refresh: (doc) => refreshComponents(container, summary, doc) };
  } catch (e) {
    container.replaceChildren(h('p', { class: 'field-error', role: 'alert',
      text: t('mf_failed', { name: file.name, message: errorText(/** @type {Error} */ (e)) }) }));
    return null;
  }
}
