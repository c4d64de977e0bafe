#pragma once
// The live-bytes curve of the step an estimate simulated: one point per op event (forward op
// i, its forward re-run under recomputation, backward op i with its gradients ready, the
// optimizer step), each stacked by term. docs/timeline.md says what each event is.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dlcost {

/// When an event runs in the step.
enum class TimelinePhase {
  kForward,        ///< forward op (inference: the only phase)
  kRecompute,      ///< activation recomputation: a layer's forward re-run before its backward
  kBackward,       ///< backward op, its parameters' gradients ready
  kOptimizerStep,  ///< `optimizer.step()`
};

/// "forward", "recompute", "backward", "optimizer_step".
const char* timelinePhaseName(TimelinePhase p);

/// The stacked terms of a point, bottom first; their JSON names are timelineTermName's.
enum class TimelineTerm {
  kWeights,          ///< weights, quantization scales, buffers, adapter weights
  kGradients,        ///< parameter gradients alive then (adapters' included)
  kOptimizerStates,  ///< optimizer states (adapters' included)
  kMasterWeights,    ///< fp32 master copy (mixed precision)
  kActivations,      ///< training: saved for backward; inference: live tensors
  kTransients,       ///< training: activation gradients and temporaries; the optimizer step's
  kKvCache,          ///< inference of decoders: the KV cache
  kOverhead,         ///< the workload's overhead and a serving engine's compute buffer
};

constexpr size_t kTimelineTerms = 8;

/// "weights", "gradients", "optimizer_states", "master_weights", "activations", "transients",
/// "kv_cache", "overhead".
const char* timelineTermName(TimelineTerm t);

/// An event as the estimators produce it, per sample and relative to the memory terms (the
/// same quantities as a BackwardCandidate): stackTimeline turns it into a point at a batch.
struct TimelineEvent {
  std::string op;  ///< the layer's name ("layer4.1.conv2"), or "input", "loss", "optimizer"
  TimelinePhase phase = TimelinePhase::kForward;
  /// Training: parameter gradients alive then less all of them (bytes, <= 0 under zero_grad
  /// set_to_none; the new gradient being added in under zero).
  int64_t gradient_delta = 0;
  int64_t live_per_sample = 0;   ///< activation bytes alive then, per sample (saved included)
  int64_t saved_per_sample = 0;  ///< of which kept for backward (<= live_per_sample)
};

/// One point of the curve at the report's batch, in bytes.
struct TimelinePoint {
  std::string op;
  TimelinePhase phase = TimelinePhase::kForward;
  std::array<int64_t, kTimelineTerms> bytes{};  ///< indexed by TimelineTerm
  int64_t total() const {
    int64_t sum = 0;
    for (int64_t b : bytes) sum += b;
    return sum;
  }
};

/// The curve. Its peak (the first point with the largest total) equals the report's
/// memory total byte for byte.
struct MemoryTimeline {
  std::vector<TimelinePoint> points;
  size_t peak = 0;  ///< index of the peak point
};

}  // namespace dlcost
