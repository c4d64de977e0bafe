#include "dlcost/report/estimate.hpp"

#include <algorithm>
#include <optional>
#include <type_traits>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/gpu/fit.hpp"
#include "dlcost/memory/memory_terms.hpp"
#include "dlcost/memory/memory_timeline.hpp"
#include "dlcost/serving/serving.hpp"
#include "graph/activation_memory.hpp"
#include "graph/autocast_policy.hpp"
#include "graph/layer_analysis.hpp"
#include "report/file_weights.hpp"
#include "transformer/transformer_estimate.hpp"

namespace dlcost {

namespace {

/// Forward memory traffic of layer i at batch b: weights read + inputs read + output written.
/// Views (flatten, dropout at inference) move nothing.
int64_t forwardTraffic(const LayerGraph& g, size_t i, const LayerAnalysis& a,
                       const std::vector<int64_t>& elements, const PrecisionLayout& lay,
                       int64_t input_bytes, int64_t b) {
  const Layer& layer = g.layers[i];
  const bool is_view = (a.aliases_input && (std::holds_alternative<Flatten>(layer.spec) ||
                                            std::holds_alternative<Reshape>(layer.spec) ||
                                            std::holds_alternative<Dropout>(layer.spec))) ||
                       std::holds_alternative<Permute>(layer.spec) ||
                       std::holds_alternative<Select>(layer.spec) ||
                       std::holds_alternative<Narrow>(layer.spec);
  if (is_view) return 0;
  const int64_t act_bytes = dtypeBits(lay.activations) / 8;
  int64_t per_sample = 0;
  for (int k : layer.inputs) {
    const int64_t elem_bytes = k == kModelInput ? input_bytes : act_bytes;
    per_sample =
        checkedAdd(per_sample, checkedMul(elements[static_cast<size_t>(k + 1)], elem_bytes));
  }
  per_sample = checkedAdd(per_sample, checkedMul(elements[i + 1], act_bytes));
  // An embedding gathers one row per token instead of reading its whole table.
  if (std::holds_alternative<Embedding>(layer.spec)) {
    const int64_t rows = bytesForBits(elements[i + 1], dtypeBits(lay.weights));
    return checkedMul(checkedAdd(per_sample, rows), b);
  }
  const int64_t weights = bytesForBits(a.params, dtypeBits(lay.weights));
  return checkedAdd(weights, checkedMul(per_sample, b));
}

/// Appends the elements of a layer's parameter tensors to `out` in the order PyTorch
/// registers them (weight, then bias).
void addParameterTensors(const Layer& layer, int64_t params, std::vector<int64_t>& out) {
  if (params == 0) return;
  int64_t bias = 0;
  if (const auto* c = std::get_if<Conv2d>(&layer.spec)) {
    bias = c->bias ? c->out_channels : 0;
  } else if (const auto* t = std::get_if<ConvTranspose2d>(&layer.spec)) {
    bias = t->bias ? t->out_channels : 0;
  } else if (const auto* l = std::get_if<Linear>(&layer.spec)) {
    bias = l->bias ? l->out_features : 0;
  } else if (std::holds_alternative<BatchNorm2d>(layer.spec) ||
             std::holds_alternative<InstanceNorm2d>(layer.spec) ||
             std::holds_alternative<GroupNorm>(layer.spec)) {
    bias = params / 2;
  } else if (const auto* n = std::get_if<LayerNorm>(&layer.spec)) {
    bias = n->bias ? params / 2 : 0;
  }
  if (bias == 0) {
    out.push_back(params);
  } else {
    out.push_back(params - bias);
    out.push_back(bias);
  }
}

/// The parameter gradients alive at the backward peak, less all of them (sumTerms fills
/// in the value, describeBackwardTerms the inputs).
MemoryTerm gradientDeltaTerm(int64_t all_grads, ZeroGrad zero_grad, bool autocast) {
  MemoryTerm t;
  t.key = MemoryKey::kBackwardGradientDelta;
  t.sharding = Sharding::kZero2;  // as the gradients
  t.phase = MemoryPhase::kBackward;
  t.formula = "at_peak − all";
  t.inputs = {
      {"at_peak", all_grads,
       zero_grad == ZeroGrad::kZero ? "bytes: every gradient, and the new one being added in"
                                    : "bytes: the gradients of the layers backward has reached"},
      {"all", all_grads, "bytes of gradients"}};
  // The weight copies autocast saved are counted whole in the activations; those of the
  // layers backward has passed are gone by the peak.
  if (autocast) t.inputs[0].note += ", less the 16-bit weight copies backward has freed";
  return t;
}

/// Writes the chosen backward candidate's values into the two terms' inputs.
void describeBackwardTerms(MemoryBreakdown& m, int64_t all_grads) {
  for (MemoryTerm& t : m.terms) {
    if (t.key == MemoryKey::kBackwardGradientDelta) {
      t.inputs[0].value = checkedAdd(all_grads, t.fixed);
    } else if (t.key == MemoryKey::kBackwardPeakExtra) {
      t.inputs[1].value = t.per_sample;
    }
  }
}

/// Forward and backward work of a layer graph for the roofline. Backward FLOPs are the
/// counted backward MACs x 2; its traffic is taken as twice the forward's (it reads the saved
/// activations and the output gradients and writes input and weight gradients).
std::vector<PhaseWork> graphPhases(const Report& r, const Workload& w) {
  PhaseWork fwd{"forward", flopsOf(r.macs.forward), 0, 0};
  for (const LayerReport& l : r.layers) fwd.bytes = checkedAdd(fwd.bytes, l.bytes_accessed);
  std::vector<PhaseWork> phases{fwd};
  if (w.mode == Mode::kTrain) {
    phases.push_back({"backward", flopsOf(r.macs.backward), checkedMul(2, fwd.bytes), 0});
  }
  return phases;
}

// estimateGraph runs in stages, each a function below: the layers' rules per sample
// (analyzeLayers), the activation simulation, then at the batch the memory terms
// (graphMemory, with the first training step's peak apart) and the report's rows (layerRows).
// The stages keep estimateGraph's order of checks, so that an overflow blames the same part.

/// The byte sizes every stage reads.
struct GraphSizes {
  PrecisionLayout lay;
  int64_t act_bytes = 0;    ///< one activation value
  int64_t input_bytes = 0;  ///< one value of the model input (int64 token ids, or activations)
  int64_t buffer_bits = 0;  ///< one buffer value (batchnorm's statistics)
};

GraphSizes graphSizes(const LayerGraph& g, const Workload& w) {
  GraphSizes z;
  z.lay = layoutOf(w.precision);
  z.act_bytes = dtypeBits(z.lay.activations) / 8;
  // Under autocast the model input stays fp32 (the first conv casts it, and keeps the cast).
  z.input_bytes = g.input_kind == InputKind::kTokenIds ? 8 : z.lay.autocast ? 4 : z.act_bytes;
  // Buffers stay fp32 under mixed precision (batchnorm is kept in fp32).
  z.buffer_bits = z.lay.master_weights ? 32 : dtypeBits(z.lay.weights);
  return z;
}

/// Per sample, layer by layer: each layer's analysis and the totals of the graph.
struct GraphPass {
  /// Layer i's output is analyses[i].output; its elements per sample are elements[i + 1]
  /// (elements[0]: the model input's).
  std::vector<int64_t> elements;
  std::vector<LayerAnalysis> analyses;
  /// Bytes of one value of each tensor (indexed as `elements`): the activation format, or
  /// under autocast each op's (autocast_policy.hpp).
  std::vector<int64_t> value_bytes;
  std::vector<DType> formats;  ///< autocast only: each tensor's format
  /// Autocast, per layer: bytes of its 16-bit weight copy (saved for backward, freed by its
  /// backward step), and of its weight and bias copies together (what autocast's cast cache
  /// holds from the layer's forward until the autocast region exits). Empty otherwise.
  std::vector<int64_t> weight_casts, cached_casts;
  int64_t params = 0, macs_ps = 0, macs_bwd_ps = 0, buffer_values = 0, counters = 0;
};

/// Runs layer i's rule in the format autocast gives it, keeps the casts it saves, and
/// records its output's format and its weight casts (saved for backward, per batch).
LayerAnalysis analyzeAutocast(const Layer& layer, const std::vector<Shape>& in,
                              const std::vector<Shape>& in_strides, const Workload& w,
                              const GraphSizes& z, GraphPass& p) {
  std::vector<DType> in_formats;
  std::vector<int64_t> in_elements;
  for (int input : layer.inputs) {
    in_formats.push_back(p.formats[static_cast<size_t>(input + 1)]);
    in_elements.push_back(p.elements[static_cast<size_t>(input + 1)]);
  }
  const AutocastStep step = autocastStep(layer, in_formats, z.lay.activations);
  LayerAnalysis a = analyzeLayer(layer, in, w.mode, step.compute, &in_strides, z.lay.weights);
  keepCastCopies(step, in_elements, a);
  const WeightCasts casts = weightCasts(layer, a.params, z.lay.activations);
  const int64_t low_bytes = dtypeBits(z.lay.activations) / 8;
  const int64_t weight_copy = checkedMul(casts.weight, low_bytes);
  a.saved.extra_fixed_bytes = checkedAdd(a.saved.extra_fixed_bytes, weight_copy);
  p.weight_casts.push_back(weight_copy);
  p.cached_casts.push_back(checkedAdd(weight_copy, checkedMul(casts.bias, low_bytes)));
  p.formats.push_back(step.compute);
  return a;
}

/// Inference under autocast: its cast cache grows op by op (each 16-bit op's weight and bias
/// copies: parameters are leaves that require grad, so cached_cast keeps them even under
/// no_grad) and is freed only when the autocast region exits. The peak is the step where the
/// cache so far plus the live activations is largest at the batch; the activations term
/// takes that step's two parts. Throws ArithmeticOverflow.
void addCastCache(ActivationMemory& act, const GraphPass& p, int64_t batch) {
  int64_t cache = 0, best = -1;
  for (size_t s = 0; s < act.live_per_sample.size(); ++s) {
    if (s > 0) cache = checkedAdd(cache, p.cached_casts[s - 1]);  // layer s - 1 ran at step s
    const int64_t total = checkedAdd(cache, checkedMul(batch, act.live_per_sample[s]));
    if (total > best) {
      best = total;
      act.kept_per_sample = act.live_per_sample[s];
      act.fixed_bytes = cache;
    }
  }
}

/// Backward MACs of a layer: the weight gradient always, the input gradient only where the
/// input itself needs one (never for the layer reading the model input).
int64_t backwardMacs(const Layer& layer, const LayerAnalysis& a, bool input_grad,
                     int64_t inputs_with_grad) {
  int64_t bwd = a.params > 0 ? a.macs_per_sample : 0;
  if (std::holds_alternative<MatMul>(layer.spec)) {
    // Both factors are tensors: one product per factor that needs a gradient.
    bwd = checkedMul(a.macs_per_sample, inputs_with_grad);
  } else if (input_grad) {
    bwd = checkedAdd(bwd, a.macs_per_sample);
  }
  return bwd;
}

/// Runs each layer's rule on its inputs' shapes and strides, in graph order, adding up
/// parameters, buffers and MACs per sample. Throws ArithmeticOverflow.
void analyzeLayers(const LayerGraph& g, const Workload& w, const GraphSizes& z, GraphPass& p) {
  p.elements.reserve(g.layers.size() + 1);
  p.analyses.reserve(g.layers.size());
  p.value_bytes.push_back(z.input_bytes);
  if (z.lay.autocast) p.formats.push_back(z.input_bytes == 8 ? DType::kInt64 : DType::kFp32);
  std::vector<char> needs_input_grad(g.layers.size() + 1, false);  // bools, one byte each
  std::vector<Shape> in, in_strides;  // a layer's inputs' shapes and strides
  for (size_t i = 0; i < g.layers.size(); ++i) {
    const Layer& layer = g.layers[i];
    in.clear();
    in_strides.clear();
    bool input_grad = false;
    int64_t inputs_with_grad = 0;
    for (int input : layer.inputs) {
      const auto k = static_cast<size_t>(input + 1);
      in.push_back(k == 0 ? g.input : p.analyses[k - 1].output);
      in_strides.push_back(k == 0 ? Shape{} : p.analyses[k - 1].strides);  // empty: contiguous
      input_grad = input_grad || needs_input_grad[k];
      inputs_with_grad += needs_input_grad[k] ? 1 : 0;
    }
    const LayerAnalysis& a =
        p.analyses.emplace_back(z.lay.autocast ? analyzeAutocast(layer, in, in_strides, w, z, p)
                                               : analyzeLayer(layer, in, w.mode, z.lay.activations,
                                                              &in_strides, z.lay.weights));
    p.value_bytes.push_back(z.lay.autocast ? dtypeBits(p.formats.back()) / 8 : z.act_bytes);
    needs_input_grad[i + 1] = input_grad || a.params > 0;
    p.params = checkedAdd(p.params, a.params);
    p.buffer_values = checkedAdd(p.buffer_values, a.buffer_values);
    p.counters = checkedAdd(p.counters, a.buffer_counters);
    p.macs_ps = checkedAdd(p.macs_ps, a.macs_per_sample);
    if (a.macs_per_sample) {
      p.macs_bwd_ps =
          checkedAdd(p.macs_bwd_ps, backwardMacs(layer, a, input_grad, inputs_with_grad));
    }
    p.elements.push_back(elementCount(a.output));
  }
}

/// Batchnorm's running statistics (in the buffer format) and int64 counters.
MemoryTerm buffersTerm(const GraphPass& p, int64_t buffer_bits) {
  MemoryTerm buffers;
  buffers.key = MemoryKey::kBuffers;
  buffers.sharding = Sharding::kModelParallel;
  buffers.fixed = checkedAdd(bytesForBits(p.buffer_values, buffer_bits), checkedMul(p.counters, 8));
  buffers.formula = "buffer_values × bits_per_value / 8 + counters × 8";
  buffers.inputs = {{"buffer_values", p.buffer_values, ""},
                    {"bits_per_value", buffer_bits, buffer_bits == 32 ? "fp32" : ""},
                    {"counters", p.counters, "int64"}};
  return buffers;
}

/// A backward candidate as the two backward terms' values: gradients and activations beyond
/// all gradients and the saved activations.
BackwardCandidate relativeCandidate(const StepLive& s, int64_t all_grads,
                                    const ActivationMemory& act) {
  return BackwardCandidate{checkedSub(s.gradient_bytes, all_grads),
                           checkedSub(s.per_sample, act.kept_per_sample)};
}

/// The first training step's peak: no optimizer state during its backward (Adam's exp_avg
/// and exp_avg_sq, momentum's buffer are made in step()), no .grad to add into.
int64_t firstStepTotal(const MemoryBreakdown& m, const ActivationMemory& act,
                       const std::vector<int64_t>& layer_grads, int64_t all_grads,
                       const Workload& w, const std::vector<int64_t>& freed) {
  const MemoryTerm& delta = *m.find(MemoryKey::kBackwardGradientDelta);
  const MemoryTerm& extra = *m.find(MemoryKey::kBackwardPeakExtra);
  std::optional<int64_t> first;  // the first step's backward peak less the steady one
  for (const StepLive& s : peakCandidates(act, layer_grads, w.zero_grad, true, freed)) {
    const BackwardCandidate c = relativeCandidate(s, all_grads, act);
    const int64_t d = checkedAdd(checkedSub(c.gradient_delta, delta.bytes),
                                 checkedSub(checkedMul(w.batch, c.extra_per_sample), extra.bytes));
    first = std::max(first.value_or(d), d);
  }
  const int64_t first_backward = checkedAdd(
      checkedSub(m.phases[0].bytes, m.bytesOf(MemoryKey::kOptimizerStates)), first.value_or(0));
  return std::max(first_backward, m.phases[1].bytes);
}

/// The memory terms at the workload's batch: model states, buffers, activations and, in
/// training, the backward peak's two terms; summed. Throws ArithmeticOverflow.
MemoryBreakdown graphMemory(const LayerGraph& g, const Workload& w, const GraphSizes& z,
                            const GraphPass& p, const ParamCounts& params,
                            const ActivationMemory& act) {
  const int64_t b = w.batch;
  const bool train = w.mode == Mode::kTrain;
  ModelStateCounts counts;
  counts.params = params.total;
  counts.trainable = params.trainable;
  counts.weight_dtype = z.lay.weights;
  std::vector<int64_t> layer_grads;
  layer_grads.reserve(g.layers.size());
  counts.tensors.reserve(2 * g.layers.size());
  for (size_t i = 0; i < g.layers.size(); ++i) {
    addParameterTensors(g.layers[i], p.analyses[i].params, counts.tensors);
    layer_grads.push_back(bytesForBits(p.analyses[i].params, dtypeBits(z.lay.gradients)));
  }
  // The training loop holds the batch and the model's output through optimizer.step().
  counts.held_per_sample = checkedAdd(checkedMul(p.elements.front(), z.input_bytes),
                                      checkedMul(p.elements.back(), p.value_bytes.back()));
  std::vector<MemoryTerm> terms = modelStateTerms(counts, w);
  terms.insert(terms.begin() + 1, buffersTerm(p, z.buffer_bits));
  terms.push_back(
      activationTerm(MemoryKey::kActivations, act.fixed_bytes, act.kept_per_sample,
                     "batch × per_sample + per_batch",
                     {{"batch", b, ""},
                      {"per_sample", act.kept_per_sample, "bytes"},
                      {"per_batch", act.fixed_bytes,
                       z.lay.autocast ? "bytes of batchnorm statistics and autocast's 16-bit "
                                        "weight copies"
                                      : "bytes of batchnorm statistics"}}));
  int64_t all_grads = 0;
  for (int64_t grad : layer_grads) all_grads = checkedAdd(all_grads, grad);
  std::vector<BackwardCandidate> candidates;
  if (train) {
    terms.back().phase = MemoryPhase::kBackward;
    for (const StepLive& s : peakCandidates(act, layer_grads, w.zero_grad, false, p.weight_casts))
      candidates.push_back(relativeCandidate(s, all_grads, act));
    // sumTerms sets both to the candidate that peaks at the batch.
    terms.push_back(activationTerm(MemoryKey::kBackwardPeakExtra, 0, 0, "batch × per_sample",
                                   {{"batch", b, ""}, {"per_sample", 0, "bytes"}}));
    terms.back().phase = MemoryPhase::kBackward;
    terms.push_back(gradientDeltaTerm(all_grads, w.zero_grad, z.lay.autocast));
  }
  terms.push_back(overheadTerm(w));
  MemoryBreakdown m = sumTerms(std::move(terms), b, std::move(candidates));
  if (train) {
    describeBackwardTerms(m, all_grads);
    m.first_step_total = firstStepTotal(m, act, layer_grads, all_grads, w, p.weight_casts);
  }
  return m;
}

/// The report's rows at the batch: the model input, then one per layer.
std::vector<LayerReport> layerRows(const LayerGraph& g, const GraphSizes& z, const GraphPass& p,
                                   const ActivationMemory& act, int64_t b) {
  std::vector<LayerReport> rows(g.layers.size() + 1);  // made at once, then filled in
  LayerReport& input = rows[0];
  input.name = "input";
  input.type = "input";
  input.output_shape = g.input;
  input.activation_bytes = checkedMul(act.row_bytes_per_sample[0], b);
  for (size_t i = 0; i < g.layers.size(); ++i) {
    const LayerAnalysis& a = p.analyses[i];
    LayerReport& row = rows[i + 1];
    row.name = g.layers[i].name;
    row.type = g.layers[i].type;
    row.output_shape = a.output;
    row.params = a.params;
    row.buffers = checkedAdd(a.buffer_values, a.buffer_counters);
    row.macs = checkedMul(a.macs_per_sample, b);
    row.activation_bytes = checkedMul(act.row_bytes_per_sample[i + 1], b);
    row.inplace = a.aliases_input;
    row.inputs.reserve(g.layers[i].inputs.size());
    // Row numbers: the input is row 0, so layer k is row k + 1 (kModelInput is -1).
    for (int k : g.layers[i].inputs) row.inputs.push_back(k + 1);
    row.bytes_accessed = forwardTraffic(g, i, a, p.elements, z.lay, z.input_bytes, b);
  }
  return rows;
}

/// The timeline's events of the simulated step (timelineEvents), with each layer's
/// parameter gradients as graphMemory counts them.
std::vector<TimelineEvent> graphEvents(const LayerGraph& g, const Workload& w, const GraphSizes& z,
                                       const GraphPass& p, const ActivationMemory& act) {
  std::vector<int64_t> layer_grads;
  layer_grads.reserve(g.layers.size());
  for (const LayerAnalysis& a : p.analyses)
    layer_grads.push_back(bytesForBits(a.params, dtypeBits(z.lay.gradients)));
  return timelineEvents(g, act, layer_grads, w.zero_grad, w.mode, p.weight_casts);
}

Report estimateGraph(const std::string& name, const LayerGraph& g, const Workload& w,
                     std::vector<TimelineEvent>* events) {
  const GraphSizes z = graphSizes(g, w);
  Report r;
  r.model_name = name;
  r.model_kind = "layers";
  r.workload = w;

  try {
    checkedMul(elementCount(g.input), z.input_bytes);
  } catch (const ArithmeticOverflow&) {
    throw InputError(
        ErrorCode::kTooLarge, "/input",
        "one input sample of shape " + shapeToString(g.input) + " overflows 64-bit arithmetic");
  }

  GraphPass p;
  p.elements = {elementCount(g.input)};
  try {
    analyzeLayers(g, w, z, p);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, "", "model sizes overflow 64-bit arithmetic");
  }

  // Everything per sample is checked before the batch multiplies it, so that an overflow
  // at batch 1 blames the model, not the batch.
  ActivationMemory act;
  try {
    act = simulateActivations(g, p.analyses, p.elements, w.mode, p.value_bytes);
    checkedAdd(act.kept_per_sample, act.backward_extra_per_sample);
    checkedMul(2, checkedAdd(p.macs_ps, p.macs_bwd_ps));
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, "",
                     "the activations or MACs of one sample overflow 64-bit arithmetic");
  }

  try {
    r.params.total = p.params;
    r.params.trainable = r.params.total;
    r.params.buffers = checkedAdd(p.buffer_values, p.counters);
    const int64_t b = w.batch;
    // 128-bit step totals (wide_count.hpp): a large batch must not be refused for its MACs.
    r.macs.forward = WideCount(p.macs_ps) * b;
    r.macs.backward = w.mode == Mode::kTrain ? WideCount(p.macs_bwd_ps) * b : WideCount(0);
    if (w.mode == Mode::kInfer && !p.cached_casts.empty()) addCastCache(act, p, b);
    r.memory = graphMemory(g, w, z, p, r.params, act);
    if (w.memory_bytes) r.max_batch = r.memory.maxBatch(*w.memory_bytes);
    r.layers = layerRows(g, z, p, act, b);
    r.phases = graphPhases(r, w);
    if (events) *events = graphEvents(g, w, z, p, act);
  } catch (const ArithmeticOverflow&) {
    throw InputError(
        ErrorCode::kTooLarge, "/workload/batch",
        "batch " + std::to_string(w.batch) + " makes the totals overflow 64-bit arithmetic");
  }
  return r;
}

}  // namespace

Report estimate(const Model& model, const Workload& given) {
  return estimate(model, given, nullptr);
}

Report estimate(const Model& model, const Workload& given, MemoryTimeline* timeline) {
  std::vector<TimelineEvent> events;
  std::vector<TimelineEvent>* wanted = timeline ? &events : nullptr;
  const Transformer* llm = std::get_if<Transformer>(&model.body);
  if (!model.inference_only.empty() && given.mode == Mode::kTrain) {
    throw InputError(ErrorCode::kValue, "/workload/mode", model.inference_only);
  }
  const Workload workload = llm ? withServingDefaults(*llm, given) : given;
  Report report = std::visit(
      [&](const auto& body) -> Report {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, LayerGraph>) {
          return estimateGraph(model.name, body, workload, wanted);
        } else {
          static_assert(std::is_same_v<T, Transformer>);
          return estimateTransformer(model.name, body, workload, wanted);
        }
      },
      model.body);
  if (model.weights_file) useFileWeights(report, *model.weights_file, workload);
  if (workload.hardware.gpu) report.gpu_fit = fitOnGpu(model, workload, report);
  if (workload.serving.engine != Engine::kNone) {
    if (!llm || workload.mode != Mode::kInfer) {
      throw InputError(ErrorCode::kValue, "/workload/engine",
                       "a serving engine runs a transformer in inference (mode infer)");
    }
    report.serving = servingPlan(*llm, workload, report);
  }
  report.warnings.insert(report.warnings.begin(), model.warnings.begin(), model.warnings.end());
  if (timeline) {
    try {
      *timeline = stackTimeline(report.memory, workload.batch, events);
    } catch (const ArithmeticOverflow&) {
      throw InputError(ErrorCode::kTooLarge, "/workload/batch",
                       "the memory timeline overflows 64-bit arithmetic");
    }
  }
  return report;
}

}  // namespace dlcost
