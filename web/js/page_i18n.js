// Labels of the page's question-first layout (tasks, verdict, "To make it fit", skip links),
// merged into i18n.js's dictionaries.
// @ts-check

import { DICTIONARIES } from './i18n.js';

Object.assign(DICTIONARIES.en, {
  // The drop hint of index.html, shown before model_file.js (a chunk loaded on a drop) is.
  mf_hint:
    'Or drop a .gguf, .safetensors, model.safetensors.index.json or .onnx: only its header is read, in this browser.',
  layerKeys:
    'The list is one Tab stop: ↑/↓ (Home/End) go to another row, Enter or F2 edits the row (Tab then moves through its controls), Escape returns to the row; Alt+↑/↓ move it. "Add layer" inserts after the row last worked in.',
  layerRow: 'Layer {n}: {type} {name}',
  x_step_time_s_phase: 'Prefill time (the prompt, one pass)',
  x_samples_per_s_phase: 'Prompts per second (prefill)',
  x_tokens_per_s_phase: 'Decode speed, tokens per second',
  duplicateLayer: 'Duplicate layer {n} (inserted after it)',
  mem_quant_scales: 'quantization scales',
  mem_adapter_weights: 'LoRA adapter weights',
  mem_adapter_gradients: 'LoRA adapter gradients',
  mem_adapter_optimizer_states: 'LoRA optimizer states',
  task: 'Task',
  taskStartsFrom: 'Starts from',
  skipToModel: 'Skip to model',
  skipToWorkload: 'Skip to workload',
  skipToGpu: 'Skip to GPU',
  verdict: 'Verdict',
  stepTime: 'Step time',
  toMakeItFit: 'To make it fit',
  adviceNone: 'No single change the engine tried makes it fit: try a GPU with more memory.',
  apply: 'Apply',
  applyLabel: 'Apply: {change}',
  undo: 'Undo',
  undoLabel: 'Undo the last applied change',
  applied: 'Applied: {change}.',
  adviceNeeds: 'needs {bytes} of {usable} per GPU',
  layerEditor: 'Layers of the model',
  reserveNote:
    'A custom size is compared as typed; a GPU preset first subtracts its reserve (CUDA context) and fragmentation.',
  reserveGpu: 'Usable: {usable} of {capacity} (reserve {reserve}, fragmentation {fragmentation})',
});

Object.assign(DICTIONARIES.zh, {
  mf_hint: '也可拖入 .gguf、.safetensors、model.safetensors.index.json 或 .onnx：只在本浏览器中读取文件头。',
  layerKeys:
    '层列表只占一个 Tab 位置：↑/↓（Home/End）切换到其他行，Enter 或 F2 编辑该行（之后 Tab 在该行的控件间移动），Esc 回到该行；Alt+↑/↓ 移动该行。“添加层”插在最近编辑的行之后。',
  layerRow: '第 {n} 层：{type} {name}',
  x_step_time_s_phase: '预填充时间（提示词，一次前向）',
  x_samples_per_s_phase: '每秒处理的提示词数（预填充）',
  x_tokens_per_s_phase: '解码速度（每秒 token 数）',
  duplicateLayer: '复制第 {n} 层（插入其后）',
  mem_quant_scales: '量化缩放因子',
  mem_adapter_weights: 'LoRA 适配器权重',
  mem_adapter_gradients: 'LoRA 适配器梯度',
  mem_adapter_optimizer_states: 'LoRA 优化器状态',
  task: '任务',
  taskStartsFrom: '起始设置',
  skipToModel: '跳到模型',
  skipToWorkload: '跳到工作负载',
  skipToGpu: '跳到 GPU',
  verdict: '结论',
  stepTime: '单步时间',
  toMakeItFit: '如何放得下',
  adviceNone: '引擎尝试的单项改动都放不下：请换显存更大的 GPU。',
  apply: '应用',
  applyLabel: '应用：{change}',
  undo: '撤销',
  undoLabel: '撤销上一次应用的改动',
  applied: '已应用：{change}。',
  adviceNeeds: '每 GPU 需要 {bytes}，可用 {usable}',
  layerEditor: '模型的各层',
  reserveNote: '自定义大小按输入值比较；选择 GPU 预设时先扣除其预留（CUDA 上下文）与碎片。',
  reserveGpu: '可用 {usable}，共 {capacity}（预留 {reserve}，碎片 {fragmentation}）',
});
