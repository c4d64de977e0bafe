#pragma once
// The engine's entry point.

#include <cstdint>

#include "dlcost/types/model.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Computes parameters, compute and memory of `model` under `workload`.
/// Throws InputError (with the JSON path recorded in the model's layers) for shapes that do
/// not fit together and for sizes that overflow 64-bit arithmetic.
Report estimate(const Model& model, const Workload& workload);

}  // namespace dlcost
