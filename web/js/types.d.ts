// The shapes of the JSON the engine returns to the page (through web/js/dlcost.js). Types
// only, no values: the engine is the one source of every figure, default and enum value, so
// enum-valued fields are plain strings here (a new value in core needs no edit in this file).
// Each shape names the C++ function that writes it; keep them in step when those change.
// Checked by `tsc -p web/jsconfig.json` (scripts/test) against the modules that opt in with
// `// @ts-check`.

/** Text in each of the page's languages (core: textJson). */
export interface Text {
  en: string;
  zh: string;
}

/** An input error (core/src/report/report_json.cpp errorToJson, inside {error: ...}). */
export interface EngineError {
  /** "parse", "missing_field", "unknown_field", "type", "value", "shape", "graph",
   *  "too_large" or "internal" (core/src/base/error.cpp errorCodeName). */
  code: string;
  /** JSON pointer into the document; "" for the whole document. */
  path: string;
  message: string;
  /** The message in Chinese, where the engine writes it in both languages. */
  message_zh?: string;
}

/** The workload as the engine writes it back: only the fields that apply to the model and
 *  the workload (core/src/schema/workload_json.cpp writeAppliedWorkload); keys are the schema's. */
export interface Workload {
  mode?: string;
  batch?: number;
  dtype?: string;
  optimizer?: string;
  overhead_bytes?: number;
  memory_bytes?: number;
  /** A GPU preset's id, or a custom GPU in full. */
  gpu?: string | Gpu;
  seq_len?: number;
  prompt_tokens?: number;
  generated_tokens?: number;
  /** Images per sample of a vision-language model (absent: 1 for one, none for a text model). */
  images?: number;
  weight_dtype?: string;
  quant_group_size?: number;
  kv_dtype?: string;
  attention?: string;
  mla_cache?: string;
  recompute?: string;
  finetune?: string;
  lora_rank?: number;
  lora_alpha?: number;
  lora_targets?: string[];
  grad_accum?: number;
  gpus?: number;
  zero?: number;
  tp?: number;
  pp?: number;
  sp?: boolean;
  microbatches?: number;
  virtual_stages?: number;
  ep?: number;
  cp?: number;
  cp_load_balance?: string;
  utilization?: number;
  reserve_bytes?: number;
  fragmentation?: number;
  /** RAM installed (GiB): a CPU device's memory; where llama.cpp keeps its CPU layers. */
  system_ram_gib?: number;
  gpu_dtype?: string;
  /** Training step (core/src/schema/workload_schema.cpp): gradient zeroing and the optimizer's
   *  implementation, which shape the step's peak. */
  zero_grad?: string;
  optimizer_impl?: string;
  /** Serving (core/src/serving/): the engine and what it is sized for. */
  engine?: string;
  users?: number;
  context?: number;
  quant?: string;
  quant_bits?: number;
  gguf_type?: string;
  bnb_double_quant?: boolean;
  gpu_memory_utilization?: number;
  max_num_seqs?: number;
  max_num_batched_tokens?: number;
  block_size?: number;
  /** vLLM release whose start-up memory profile the plan follows: '0.19', '0.11', 'v0'. */
  vllm_version?: string;
  trtllm_version?: string;
  cached_tokens?: number;
  n_gpu_layers?: number;
  cache_type?: string;
  host_bandwidth_gb_s?: number;
  draft_preset?: string;
  draft_tokens?: number;
  draft_acceptance?: number;
  /** Multi-GPU network and a whole run (core/src/schema/workload_schema.cpp, run_cost.hpp). */
  nodes?: number;
  gpus_per_node?: number;
  intra_node_link?: string;
  inter_node_link?: string;
  tokens?: number;
  samples?: number;
  epochs?: number;
  price_per_gpu_hour?: number;
}

/** A field of a workload patch or a task's settings: a value, or null for the default. */
export type WorkloadPatch = { [key: string]: unknown };

/** One input of a memory term's formula. */
export interface TermInput {
  name: string;
  value: number;
  note?: string;
}

/** One term of the memory list (core/include/dlcost/types/memory.hpp). */
export interface MemoryTerm {
  /** "weights", "gradients", "optimizer_states", "activations", "kv_cache", ... */
  key: string;
  bytes: number;
  /** Share of the total, 0..1 (0 when the total is 0). */
  share: number;
  fixed: number;
  per_sample: number;
  /** "replicated", "model_parallel", "zero1", "zero2", "zero3" or "activation". */
  sharding: string;
  formula: string;
  inputs: TermInput[];
  /** When in the step the term is held ("always", or a training phase such as "backward"). */
  phase: string;
  /** Whether the total counts it: terms of every phase and those of the peak phase. */
  in_peak: boolean;
}

/** The memory of one phase of the step. */
export interface MemoryPhaseTotal {
  phase: string;
  bytes: number;
  fixed: number;
  per_sample: number;
}

/** Memory as a list of terms and its totals (core/src/report/report_json.cpp memoryToJson). */
export interface Memory {
  terms: MemoryTerm[];
  total: number;
  fixed: number;
  per_sample: number;
  /** "bytes" for the whole model, "bytes per GPU" for gpu_fit.per_gpu. */
  units: string;
  /** Training with phases: each phase's memory, and the one the total is. */
  phases?: MemoryPhaseTotal[];
  peak_phase?: string;
  /** The first step's total where it differs (optimizer states made on the first step). */
  first_step_total?: number;
}

export interface LayerReport {
  name: string;
  type: string;
  output_shape: number[];
  params: number;
  buffers: number;
  macs: number;
  activation_bytes: number;
  inplace: boolean;
  /**
   * Layer-graph reports: the rows this row reads (0 = the model input row). Absent on
   * transformer rows.
   */
  inputs?: number[];
  bytes_accessed: number;
}

export interface PhaseWork {
  name: string;
  flops: number;
  bytes: number;
  tokens: number;
}

/** A GPU preset or custom GPU (core/src/gpu/gpu_json.cpp gpuToJson). */
export interface Gpu {
  id: string;
  name: string;
  vendor: string;
  architecture: string;
  release_year: number;
  memory_bytes: number;
  smi_total_mib: number;
  /** CUDA's total (cudaMemGetInfo) where a log gives it, else 0: what vLLM/SGLang budget from. */
  cuda_total_mib: number;
  capacity_bytes: number;
  bandwidth_bytes_per_s: number;
  fp32_flops: number;
  tf32_flops: number;
  fp16_flops: number;
  bf16_flops: number;
  fp8_flops: number;
  int8_ops: number;
  tdp_watts: number;
  price_usd: number;
  devices_per_board: number;
  /** Interconnect ids (`dlcost links`): the usual server's link between GPUs, and its
   *  network between nodes; "" where none is known. */
  intra_node_link: string;
  inter_node_link: string;
  notes: string;
  source: string;
  convention: string;
  /** Unified-memory devices only: the share of system memory the GPU may use, in words. */
  unified_memory?: { gpu_limit: string };
  /** CPU rows only: the device is the processor and its system RAM; bandwidth is
   *  memory_channels x memory_mt_s x 8 bytes. */
  cpu?: { memory_channels: number; memory_mt_s: number };
}

/** One change the advisor suggests when the model does not fit (core/src/explore/advisor.cpp). */
export interface Advice {
  change: string;
  /** The same sentence in Chinese (the advisor writes both). */
  change_zh: string;
  /** The workload fields the change sets, as workload JSON to merge. */
  set: WorkloadPatch;
  grad_accumulation: number;
  per_gpu_bytes: number;
  usable_bytes: number;
}

/** Fit, speed and advice on the workload's GPU (core/src/gpu/gpu_json.cpp gpuFitToJson). */
export interface GpuFit {
  gpu: Gpu;
  fits: boolean;
  headroom_bytes: number;
  /** With a serving engine, the plan's max_users (answered_by "serving"). */
  max_batch: number;
  /** "serving": an inference report with an engine, whose plan answers how many users and how
   *  fast; the training-style step_time_s and samples_per_s are then null. */
  answered_by: string;
  /** null on a GPU with no published compute rate (roofline.compute_published false), and
   *  with a serving plan. */
  step_time_s: number | null;
  /** [lo, hi] from the calibration residuals of its kind (docs/accuracy.md). */
  step_time_s_range: [number, number] | null;
  samples_per_s: number | null;
  samples_per_s_range: [number, number] | null;
  tokens_per_s: number | null;
  tokens_per_s_range: [number, number] | null;
  per_gpu: Memory;
  advice: Advice[];
  gpu_memory: {
    capacity_bytes: number;
    reserve_bytes: number;
    fragmentation_bytes: number;
    usable_bytes: number;
  };
  roofline: {
    math: string;
    peak_flops: number;
    utilization: number;
    bandwidth_bytes_per_s: number;
    compute_s: number;
    memory_s: number;
    optimizer_s: number;
    /** "compute" or "memory". */
    bound: string;
    /** false: the GPU has no published compute rate; step times are then null. */
    compute_published: boolean;
    /** The time model's device family and engine, and when its parameters were fitted. */
    family: string;
    engine: string;
    fitted: string;
  };
  parallel: {
    gpus: number;
    data_parallel: number;
    replica_batch: number;
    zero: number;
    tp: number;
    pp: number;
    sp: boolean;
    microbatches: number;
    ep: number;
    cp: number;
    cp_load_balance: string;
    virtual_stages: number;
  };
  samples_per_s_per_watt: number;
  samples_per_s_per_1000usd: number | null;
  notes: string[];
  /** The step broken into compute, exposed communication, bubble and optimizer
   *  (core/src/gpu/step_json.cpp). */
  step_time: StepTime;
  /** Nodes and links of a multi-GPU layout. */
  network?: Network | null;
  /** Time and cost of a whole run, when tokens or samples are given (run_cost.cpp). */
  run?: RunCost | null;
}

/** One interconnect (core/src/gpu/interconnect_table.cpp). */
export interface Interconnect {
  id: string;
  name: string;
  /** "intra_node" or "inter_node". */
  scope: string;
  bandwidth_bytes_per_s: number;
  step_latency_s: number;
  source: string;
  /** Share of the line rate NCCL reaches (the collectives use bandwidth x this). */
  bus_efficiency: number;
  efficiency_source: string;
}

export interface Network {
  nodes: number;
  gpus_per_node: number;
  intra_node_link: Interconnect | null;
  inter_node_link: Interconnect | null;
}

/** One collective of the step: what it moves, over which group and links, and how much of
 *  it the step waits for. */
export interface CollectiveCost {
  purpose: string;
  collective: string;
  group: string;
  ranks: number;
  ranks_per_node: number;
  nodes: number;
  links: string;
  bytes: number;
  calls: number;
  time_s: number;
  exposed_s: number;
  overlap: string;
}

export interface StepPart {
  key: string;
  seconds: number;
  share: number;
  offset: number;
}

export interface StepTime {
  step_s: number;
  compute_s: number;
  tp_comm_s: number;
  pp_comm_s: number;
  ep_comm_s: number;
  cp_comm_s: number;
  dp_comm_s: number;
  bubble_s: number;
  bubble_fraction: number;
  virtual_stages: number;
  optimizer_s: number;
  micro_steps: number;
  microbatches: number;
  model_flops: number;
  mfu: number;
  parts: StepPart[];
  collectives: CollectiveCost[];
  convention: string;
}

export interface RunCost {
  tokens?: number;
  samples: number;
  steps: number;
  wall_s: number;
  wall_days: number;
  wall_days_range: [number, number];
  gpu_hours: number;
  mfu: number;
  energy_kwh: number;
  price_per_gpu_hour?: number;
  cost_usd?: number;
  cost_usd_range?: [number, number] | null;
  price_source?: {
    kind: string;
    gpu?: string;
    offer?: string;
    date?: string;
    source?: string;
    usd_per_gpu_hour?: number;
  };
  convention: string;
}

/** Fit against a plain memory size, no GPU reserves (report.memory_fit). */
export interface MemoryFit {
  memory_bytes: number;
  fits: boolean;
  headroom_bytes: number;
  max_batch: number;
}

/** What a transformer's report adds (core/src/report/report_json.cpp transformerToJson). */
export interface TransformerSummary {
  architecture: string;
  params_by_component: {
    embeddings: number;
    attention: number;
    mlp: number;
    norms: number;
    lm_head: number;
    other: number;
    /** A vision-language model's vision tower and projector. */
    vision?: number;
    projector?: number;
  };
  active_params_per_token: number;
  seq_len: number;
  generated_tokens: number;
  context_tokens: number;
  tokens_per_step: number;
  forward_flops_per_token: number;
  kv_cache_bytes_per_token: number;
  /** Only for a model read through the generic fallback, at the user's request. */
  approximate?: true;
  /** Vision-language models: images per sample, the positions they fill (part of seq_len),
   *  the tower's and projector's forward MACs per image. */
  images?: number;
  image_tokens?: number;
  vision_macs_per_image?: number;
  /** A multimodal config read as its language model alone, at the user's request. */
  text_only_of?: string;
}

/** The report, schema "dlcost.report/2" (core/src/report/report_json.cpp reportToJson): the CLI's
 *  --json for the same input. */
export interface Report {
  schema: string;
  model: { name: string; kind: string };
  workload: Workload;
  params: {
    total: number;
    trainable: number;
    non_trainable: number;
    buffers: number;
    adapters: number;
  };
  macs: { forward: number; backward: number; total: number; convention: string };
  flops: { forward: number; backward: number; total: number; convention: string };
  memory: Memory;
  layers: LayerReport[];
  phases: PhaseWork[];
  warnings: string[];
  /** With a plain memory size (workload.memory_bytes). */
  memory_fit?: MemoryFit;
  transformer?: TransformerSummary;
  /** With a GPU (workload.gpu). */
  gpu_fit?: GpuFit;
  /** With a serving engine (workload.engine). */
  serving?: ServingPlan;
}

/** Speed of a serving plan at its users and context (core/src/serving/serving_json.cpp). */
export interface ServingSpeed {
  users: number;
  context: number;
  /** null on a GPU with no published compute rate (compute_known false). */
  ttft_s: number | null;
  /** [lo, hi] from the calibration residuals of its kind (docs/accuracy.md). */
  ttft_s_range: [number, number] | null;
  /** Every user's prompt in one forward; null like ttft_s. */
  batch_prefill_s: number | null;
  batch_prefill_s_range: [number, number] | null;
  compute_known: boolean;
  itl_s: number;
  itl_s_range: [number, number];
  tokens_per_s_per_user: number;
  tokens_per_s_per_user_range: [number, number];
  tokens_per_s: number;
  tokens_per_s_range: [number, number];
  bound: string;
  step_bytes: number;
  step_flops: number;
  /** llama.cpp with layers in system RAM: weights copied to the GPU during the prompt. */
  prefill_copy_bytes: number;
  /** Speculative decoding with a draft model: tokens a step yields, and the step's parts. */
  speculative?: { tokens_per_step: number; draft_s: number; verify_s: number };
}

/** The serving plan, report.serving (core/src/serving/serving_json.cpp servingPlanToJson). */
export interface ServingPlan {
  /** "hf", "vllm", "sglang", "trtllm" or "llamacpp". */
  engine: string;
  context: number;
  users: number;
  fits: boolean;
  max_users: number;
  capacity_bytes: number;
  budget_bytes: number;
  kv_bytes_per_token: number;
  /** The device is a CPU: "device" is system RAM, "host" is empty. */
  on_cpu: boolean;
  device: Memory;
  command: string;
  notes: string[];
  /** vLLM, SGLang and TensorRT-LLM: the paged KV cache. */
  paged?: {
    memory_fraction: number;
    block_size: number;
    block_bytes: number;
    num_blocks: number;
    kv_tokens: number;
    max_concurrency: number;
    max_num_seqs: number;
    max_num_batched_tokens: number;
  };
  /** vLLM over pipeline stages: decoder layers per stage; the pool is the limiting stage's. */
  pipeline?: { stage_layers: number[]; limiting_stage: number };
  /** llama.cpp: what stays in system memory, and the layers offloaded. */
  host?: Memory;
  llamacpp?: { layers: number; gpu_layers: number; n_ctx: number };
  speed?: ServingSpeed;
}

/** One batch size of a sweep (core/src/api.cpp sweepToJson). */
export interface SweepPoint {
  batch: number;
  total: number;
  fits?: boolean;
  samples_per_s?: number;
  step_time_s?: number;
}

/** Memory (and speed) over batch sizes, schema "dlcost.sweep/2". */
export interface Sweep {
  schema: string;
  per_gpu: boolean;
  data_parallel: number;
  microbatches: number;
  fixed: number;
  per_sample: number;
  points: SweepPoint[];
  memory_bytes?: number;
  max_batch?: number;
  /** The batch past which throughput grows by less than `share`. */
  saturation?: { share: number; batch: number };
}

/** dlcost.estimateWithSweep: the report and the chart's sweep from one estimate. */
export interface ReportWithSweep {
  report: Report;
  sweep: Sweep;
}

/** One row of the GPU comparison (core/src/api.cpp compareDocument). */
export interface CompareRow {
  gpu: string;
  name: string;
  fits: boolean;
  per_gpu_bytes: number;
  usable_bytes: number;
  max_batch: number;
  step_time_s: number;
  samples_per_s: number;
  tokens_per_s: number | null;
  samples_per_s_per_1000usd: number | null;
  samples_per_s_per_watt: number;
  price_usd: number;
  tdp_watts: number;
}

/** Every GPU preset for one document, schema "dlcost.compare/1". */
export interface Comparison {
  schema: string;
  model: Report['model'];
  workload: Workload;
  sort: string;
  /** The fitting GPU with the most samples/s per 1000 USD, or null. */
  best_buy: string | null;
  rows: CompareRow[];
  /** GPUs left out, each with the reason (a layout their links cannot take). */
  skipped?: EngineError[];
}

/** A value of an enum field, with its label where the engine gives one. */
export interface SchemaEnumValue {
  name: string;
  label?: Text;
}

/** One field of the workload schema (core/src/schema/workload_schema.cpp fieldJson). */
export interface SchemaField {
  key: string;
  /** "integer", "number", "enum", "boolean", "name_list" or "gpu". */
  type: string;
  /** The CLI flag, e.g. "--batch". */
  flag: string;
  group: string;
  /** Conditions (keys of WorkloadSchema.conditions) that must all hold for the field to apply. */
  when: string[];
  label: Text;
  help: Text;
  /** What the field accepts, in words ("an integer from 1 to ..."). */
  accepts: string;
  /** The default value, or null when it is derived (see default_note) or unset. */
  default: unknown;
  default_note?: Text;
  /** Integer and number fields only. */
  min?: number;
  max?: number;
  max_exclusive?: boolean;
  unit?: string;
  /** Enum fields only. */
  values?: SchemaEnumValue[];
}

/** A task the page offers and the workload it starts from (core/src/schema/task_defaults.cpp). */
export interface TaskDefaults {
  /** "infer", "train", "lora", "qlora", "pretrain". */
  task: string;
  /** "transformer" or "layer_graph". */
  model_kind: string;
  label: Text;
  /** Workload JSON to merge; null resets a field to the engine's default. */
  set: WorkloadPatch;
  note: Text;
  sources: string[];
}

/** The workload schema (`dlcost schema --json`, core/src/schema/workload_schema.cpp). */
export interface WorkloadSchema {
  version: number;
  /** The one rule for numbers typed as text, in words. */
  number_text: string;
  /** What each condition of SchemaField.when means, in words. */
  conditions: { [name: string]: string };
  /** The unit tables of the engine's number formatting (web/js/units.js reads them). */
  number_units: NumberUnits;
  fields: SchemaField[];
  tasks: TaskDefaults[];
  /** Where a first visit starts: the task of the model's kind on a custom capacity. */
  start: { task: string; memory_gib: number };
}

/** A unit and its prefixes, each `step` times the one before (names[0] is the unit itself). */
export interface UnitPrefixes {
  step: number;
  names: string[];
}

/** dlcost::numberUnitsJson: bytes in binary (GiB) and decimal (GB) prefixes, and counts. */
export interface NumberUnits {
  bytes: { GiB: UnitPrefixes & { bytes_per_unit: number }; GB: UnitPrefixes & { bytes_per_unit: number } };
  count: UnitPrefixes;
  /** dlcost::ScaledDecimals: a figure scaled to a prefix shows `decimals`, or `large_decimals` from `large_from` up. */
  scaled_decimals: { decimals: number; large_from: number; large_decimals: number };
}

/** A preset in the engine's list. */
export interface PresetEntry {
  name: string;
  family: string;
  /** Where the architecture comes from, in English. */
  source: string;
  /** The same line in Simplified Chinese, shown when the page is in zh. */
  source_zh: string;
  /** Published facts stored with the preset, each with its source (e.g. imagenet_top1). */
  metrics?: { [name: string]: number | string };
}

/** Workload fields as text, keyed by schema key (the form's state; '' = the default). */
export type WorkloadTexts = { [key: string]: string };

/** One input of a figure's formula, already formatted (core/include/dlcost/report/explain.hpp). */
export interface FormulaTerm {
  symbol: string;
  label: string;
  value: string;
}

/** How one figure was computed; `id` is the JSON pointer of the figure in the report. */
export interface Explanation {
  id: string;
  title: string;
  formula: string;
  inputs: FormulaTerm[];
  result: string;
  text: string;
}

/** The layer type (or memory line, quantity "memory") with the largest share of a quantity. */
export interface Dominance {
  /** "params", "macs", "activation_bytes" or "memory". */
  quantity: string;
  layer_type: string;
  layers: number;
  share: number;
  names: string[];
  text: string;
}

/** dlcost.explain (core/src/api.cpp): every figure's derivation, in one language and unit. */
export interface Explain {
  explanations: Explanation[];
  dominant: Dominance[];
}

/** One of the engine's components set against a checkpoint's tensors
 *  (core/src/model_files/weight_components.cpp componentCheckJson). */
export interface ComponentRow {
  /** "embeddings", "attention", "mlp", "norms", "lm_head" or "other". */
  component: string;
  /** dlcost's count for the model. */
  engine: number;
  /** Elements of the file's tensors whose names place them here. */
  file: number;
  /** file - engine. */
  difference: number;
  /** How many of the file's tensors. */
  tensors: number;
}

/** A dropped checkpoint's tensors against the engine's components of the model
 *  (core/src/model_files/component_check.cpp componentCheck); null where no check applies. */
export interface ComponentCheck {
  /** Every row equal and no tensor unplaced. */
  matches: boolean;
  rows: ComponentRow[];
  /** Tensors no name rule places: how many, their elements, the first 16 names. */
  unplaced: { count: number; parameters: number; names: string[] };
}

/** One point of a measured curve: active bytes just after trace event `event` (-1: before the
 *  trace); time_us -1 where the trace has no times. */
export interface MeasuredPoint {
  event: number;
  time_us: number;
  bytes: number;
}

/** A PyTorch CUDA memory snapshot read as one device's active memory
 *  (core/src/report/measured_json.cpp measuredToJson). */
export interface Measured {
  device: number;
  devices: number[];
  events: number;
  allocs: number;
  frees: number;
  ooms: number;
  segments: number;
  reserved_bytes: number;
  peak_reserved_bytes: number;
  active_at_snapshot_bytes: number;
  /** Points of the whole curve; `points` keeps at most the engine's limit of them. */
  points_total: number;
  points: MeasuredPoint[];
  /** The first highest point; `point` is its index in `points`. */
  peak: MeasuredPoint & { point: number };
}

/** Something on the GPU the engine's curve does not show, as the engine words it. */
export interface NotModelled {
  id: string;
  en: string;
  zh: string;
  /** Bytes, where the snapshot shows them. */
  bytes?: number;
}

/** The step's memory over time, schema "dlcost.timeline/1" (core/src/report/timeline_json.cpp
 *  timelineDocument, `dlcost timeline --json`). */
export interface Timeline {
  schema: string;
  model: string;
  mode: string;
  batch: number;
  memory_total: number;
  /** The memory terms, bottom first; each point's `bytes` follow this order. */
  terms: string[];
  /** Where each phase runs, "{op}" standing for the layer. */
  phases: { [phase: string]: Text };
  points: { op: string; phase: string; bytes: number[] }[];
  peak: { index: number; op: string; phase: string; total: number; where: Text };
}

/** `dlcost timeline --measured FILE --json` (measuredTimelineDocument): the predicted timeline
 *  with the snapshot beside it. */
export interface MeasuredTimeline extends Timeline {
  measured: Measured;
  comparison: {
    predicted_peak_bytes: number;
    measured_peak_bytes: number;
    /** measured - predicted */
    difference_bytes: number;
    /** Of predicted; null when it is 0. */
    difference_percent: number | null;
  };
  not_modelled: NotModelled[];
}
