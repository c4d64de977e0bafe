#pragma once
// The engine's entry point.

#include <cstdint>

#include "dlcost/types/model.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/timeline.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Computes parameters, compute and memory of `model` under `workload`.
/// Throws InputError (with the JSON path recorded in the model's layers) for shapes that do
/// not fit together and for sizes that overflow 64-bit arithmetic.
Report estimate(const Model& model, const Workload& workload);

/// estimate() that also fills `*timeline` (when not null) with the live-bytes curve of the
/// step it simulated (timeline.hpp): layer graphs op by op, transformers layer by layer. Its
/// peak point's total equals the report's memory total (whole model, steady-state step).
Report estimate(const Model& model, const Workload& workload, MemoryTimeline* timeline);

}  // namespace dlcost
