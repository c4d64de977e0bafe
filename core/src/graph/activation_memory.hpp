#pragma once
// Which activation tensors are alive when: the forward pass, and in training the backward
// pass with its gradients, simulated op by op over the layer graph.

#include <cstdint>
#include <vector>

#include "dlcost/types/model.hpp"
#include "dlcost/types/timeline.hpp"
#include "dlcost/types/workload.hpp"
#include "graph/layer_analysis.hpp"

namespace dlcost {

/// Activation memory per sample (all tensors scale with batch) plus a per-batch part.
struct ActivationMemory {
  /// Training: bytes kept for backward. Inference: peak of live tensors.
  int64_t kept_per_sample = 0;
  /// Training: the peak over all steps of live tensors (kept ones not yet freed, forward
  /// temporaries, gradients and their temporaries) minus kept_per_sample.
  int64_t backward_extra_per_sample = 0;
  /// Per-batch bytes (batchnorm statistics), counted as alive throughout.
  int64_t fixed_bytes = 0;
  /// Per row of the report (model input first): bytes kept (training) or allocated
  /// (inference) per sample.
  std::vector<int64_t> row_bytes_per_sample;
  /// The live bytes per sample at each step, forward steps 0..n (0 = the input) then, in
  /// training, the backward steps, layer n-1 first (layer i's at 2n - i).
  std::vector<int64_t> live_per_sample;
  /// Training: of live_per_sample, the bytes kept for backward at each step.
  std::vector<int64_t> saved_per_sample;
};

/// `elements[0]` is the model input's elements per sample, `elements[i + 1]` layer i's
/// output's; `value_bytes[t]` the bytes of one value of that tensor (and of its gradient):
/// one format for all but the input, except under autocast (autocast_policy.hpp).
ActivationMemory simulateActivations(const LayerGraph& graph,
                                     const std::vector<LayerAnalysis>& layers,
                                     const std::vector<int64_t>& elements, Mode mode,
                                     const std::vector<int64_t>& value_bytes);

/// A step of the training timeline: what is alive then.
struct StepLive {
  size_t step = 0;
  int64_t gradient_bytes = 0;  ///< parameter gradients alive at that step
  int64_t per_sample = 0;      ///< activation bytes alive at that step, per sample
};

/// The steps of the training timeline (ActivationMemory::live_per_sample) where parameter
/// gradients plus activations can peak, whatever the batch: those no other step matches or
/// exceeds in both. `layer_gradient_bytes[i]` is layer i's parameter gradients. Steady state
/// (`first_step` false) with kZero: every gradient exists all step, and backward computes
/// layer i's new gradients into fresh tensors before adding them in (a transient of
/// layer_gradient_bytes[i] at its step). With kSetToNone, and in the first step whatever the
/// setting (no .grad exists yet), layer i's gradients appear at its backward step.
/// `layer_freed_bytes[i]` (empty: none) is per-batch memory kept from the forward pass until
/// layer i's backward step is done (autocast's 16-bit weight copies, which the caller counts
/// whole elsewhere): each backward step's gradient_bytes is less what earlier steps freed.
/// Throws ArithmeticOverflow.
std::vector<StepLive> peakCandidates(const ActivationMemory& act,
                                     const std::vector<int64_t>& layer_gradient_bytes,
                                     ZeroGrad zero_grad, bool first_step,
                                     const std::vector<int64_t>& layer_freed_bytes = {});

/// The timeline's events of the step simulated in `act`, per sample: the input and each
/// layer's forward, then in training each layer's backward (layer n-1 first) with the
/// gradients peakCandidates counts alive, and the optimizer step. Every step is an event, so
/// the steps peakCandidates keeps are among them (with the same `layer_freed_bytes`).
/// Throws ArithmeticOverflow.
std::vector<TimelineEvent> timelineEvents(const LayerGraph& graph, const ActivationMemory& act,
                                          const std::vector<int64_t>& layer_gradient_bytes,
                                          ZeroGrad zero_grad, Mode mode,
                                          const std::vector<int64_t>& layer_freed_bytes = {});

}  // namespace dlcost
