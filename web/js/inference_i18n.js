// Labels of the Inference panel (inference_section.js, inference_chart.js) in English and
// Simplified Chinese, merged into i18n.js's dictionaries.
// @ts-check

import { DICTIONARIES } from './i18n.js';

Object.assign(DICTIONARIES.en, {
  inference: 'Inference',
  inferenceFits: '{users} × {context} tokens fit',
  inferenceNoFit: '{users} × {context} tokens do not fit',
  inferenceMaxUsers: 'Most users at this context',
  inferenceTtft: 'Time to first token',
  inferenceTtftUnavailable: 'unavailable (no published compute rate)',
  inferenceItl: 'Inter-token latency',
  inferencePerUser: 'tokens/s per user',
  inferenceTotal: 'tokens/s in all',
  inferenceBlocks: 'KV blocks',
  inferenceConcurrency: 'max concurrency',
  inferenceGpu: 'On the GPU',
  inferenceHost: 'In system RAM',
  inferenceSweep: 'Users and speed',
  inferenceByUsers: 'Against concurrent users (context {context})',
  inferenceByContext: 'Against context length ({users} users)',
  inferenceChartTokens: 'tokens/s in all',
  inferenceChartMemory: 'GPU memory',
  inferenceColContext: 'context',
  inferenceColUsers: 'users',
  inferenceColFits: 'fits',
  inferenceColMemory: 'GPU memory',
  inferenceColLatency: 'latency (s)',
});

Object.assign(DICTIONARIES.zh, {
  inference: '推理',
  inferenceFits: '{users} 个用户 × {context} 个 token 放得下',
  inferenceNoFit: '{users} 个用户 × {context} 个 token 放不下',
  inferenceMaxUsers: '此上下文长度下最多的用户数',
  inferenceTtft: '首 token 时间',
  inferenceTtftUnavailable: '无法给出（未公布算力）',
  inferenceItl: 'token 间延迟',
  inferencePerUser: '每用户每秒 token 数',
  inferenceTotal: '总计每秒 token 数',
  inferenceBlocks: 'KV 块',
  inferenceConcurrency: '最大并发',
  inferenceGpu: 'GPU 上',
  inferenceHost: '系统内存中',
  inferenceSweep: '用户数与速度',
  inferenceByUsers: '随并发用户数变化（上下文 {context}）',
  inferenceByContext: '随上下文长度变化（{users} 个用户）',
  inferenceChartTokens: '总计每秒 token 数',
  inferenceChartMemory: 'GPU 显存',
  inferenceColContext: '上下文',
  inferenceColUsers: '用户数',
  inferenceColFits: '放得下',
  inferenceColMemory: 'GPU 显存',
  inferenceColLatency: '延迟（秒）',
});
