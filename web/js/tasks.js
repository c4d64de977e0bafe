// The four tasks people price (inference, full training, LoRA, QLoRA) and what each starts
// from: the engine's task table (schema.tasks, core/src/schema/task_defaults.cpp) with its sources.
// Choosing a task, or a model of another kind, sets the task's fields; nothing here names a
// value: the table is the engine's.
// @ts-check

import dlcost from './dlcost.js';
import { isTransformerModel } from './llm_fields.js';

/** @typedef {import('./types').TaskDefaults} TaskDefaults */
/** @typedef {import('./types').WorkloadTexts} WorkloadTexts */
/** @typedef {import('./state.js').PageState} PageState */

/** @type {TaskDefaults[]} */
let table = [];

/** Stores the engine's task table (schema.tasks) once the engine has loaded.
 *  @param {TaskDefaults[] | undefined} tasks */
export function setTasks(tasks) {
  table = Array.isArray(tasks) ? tasks : [];
}

/** "transformer" or "layer_graph": the kind of model the state names.
 *  @param {PageState} s @returns {string} */
export const modelKind = (s) => (isTransformerModel(s) ? 'transformer' : 'layer_graph');

/** The tasks a model of this kind can run, in the engine's menu order.
 *  @param {string} kind @returns {TaskDefaults[]} */
export const tasksFor = (kind) => table.filter((d) => d.model_kind === kind);

/** The task the workload describes: QLoRA / LoRA by the fine-tuning, pretraining by its
 *  tokens, else the mode.
 *  @param {PageState} s @returns {string} */
export function currentTask(s) {
  const w = s.workload;
  if (w.mode === 'infer') return 'infer';
  if (modelKind(s) === 'transformer' && (w.finetune === 'lora' || w.finetune === 'qlora')) return w.finetune;
  // A whole run of tokens from scratch: the pretraining task (its tokens are what it sets).
  if (
    modelKind(s) === 'transformer' &&
    String(w.tokens ?? '').trim() !== '' &&
    tasksFor('transformer').some((d) => d.task === 'pretrain')
  )
    return 'pretrain';
  return 'train';
}

/** The entry for `task` on a model of `kind` (training when the kind cannot run it).
 *  @param {string} task @param {string} kind @returns {TaskDefaults | null} */
export function taskEntry(task, kind) {
  const list = tasksFor(kind);
  return list.find((d) => d.task === task) ?? list.find((d) => d.task === 'train') ?? null;
}

/** The workload texts (as the form keeps them) that `entry` sets: a null resets the field to
 *  the engine's default (empty text); values are written back by the engine in `units`.
 *  @param {TaskDefaults | null} entry @param {string} units @returns {WorkloadTexts} */
export function taskTexts(entry, units) {
  if (!entry) return {};
  /** @type {import('./types').WorkloadPatch} */
  const values = {};
  /** @type {WorkloadTexts} */
  const out = {};
  for (const [key, value] of Object.entries(entry.set)) {
    if (value === null) out[key] = '';
    else values[key] = value;
  }
  return { ...out, ...dlcost.workloadToText(values, units) };
}
