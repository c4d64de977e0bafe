#pragma once
// The cost of a training run: its steps, wall time, GPU-hours, energy and dollars, from the
// step time and the dated list prices.

#include <optional>
#include <string>
#include <vector>

#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/run_cost.hpp"

namespace dlcost {

/// The built-in list prices.
const std::vector<GpuListPrice>& gpuListPrices();

/// The list price of a GPU preset, or nullptr.
const GpuListPrice* findListPrice(const std::string& gpu_id);

/// The run of `r`'s workload on `fit`, or nothing when the workload names no tokens or
/// samples (or is not training). Throws InputError: tokens for a layer graph
/// (/workload/tokens), tokens and samples together (/workload/samples), a step count past
/// 2^53.
std::optional<RunCost> runCost(const Report& r, const GpuFit& fit);

}  // namespace dlcost
