#pragma once
// Which activation tensors are alive when: the forward pass, and in training the backward
// pass with its gradients, simulated op by op over the layer graph.

#include <cstdint>
#include <vector>

#include "dlcost/model.hpp"
#include "dlcost/workload.hpp"
#include "layer_analysis.hpp"

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
};

/// `shapes[0]` is the model input, `shapes[i + 1]` the output of layer i.
ActivationMemory simulateActivations(const LayerGraph& graph,
                                     const std::vector<LayerAnalysis>& layers,
                                     const std::vector<Shape>& shapes, Mode mode,
                                     int64_t activation_bytes, int64_t input_bytes);

}  // namespace dlcost
