#pragma once
// A report's weights term replaced by a model file's exact tensor bytes.

#include "dlcost/types/file_weights.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Replaces the report's weights term by the file's bytes (its formula and inputs name the
/// file), drops the quantization-scales term (the file's bytes hold each block's scales), sums
/// the terms again at the workload's batch and recomputes the largest batch. A file whose
/// parameter count differs from the engine's adds a warning. Throws ArithmeticOverflow.
void useFileWeights(Report& r, const FileWeights& f, const Workload& w);

}  // namespace dlcost
