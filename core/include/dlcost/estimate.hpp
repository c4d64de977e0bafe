#pragma once
// The engine's entry point.

#include <cstdint>

#include "dlcost/model.hpp"
#include "dlcost/report.hpp"
#include "dlcost/workload.hpp"

namespace dlcost {

/// Computes parameters, compute and memory of `model` under `workload`.
/// Throws InputError (with the JSON path recorded in the model's layers) for shapes that do
/// not fit together and for sizes that overflow 64-bit arithmetic.
Report estimate(const Model& model, const Workload& workload);

/// Reported instead of an unbounded batch (a model whose memory does not grow with batch).
constexpr int64_t kMaxBatchReported = int64_t{1} << 32;

/// Largest batch b >= 0 with fixed + b x per_sample <= capacity.
int64_t maxBatchFor(int64_t fixed_bytes, int64_t per_sample_bytes, int64_t capacity_bytes);

}  // namespace dlcost
