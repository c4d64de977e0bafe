#pragma once
// Whether a GPU's compute rate is known. A unified-memory part whose vendor publishes no
// compute rate, nor an ALU count and clock to derive one from (Apple M3/M4), keeps every rate
// at 0 in the table (core/hardware/gpus.json, "not published") and tdp_watts 0 where no power
// is stated. The engine then gives memory and bandwidth-bound figures only: step times are
// unavailable (null in JSON), GPU comparisons skip the part, a run's cost is refused, and a
// serving plan's time to first token is unknown (0, null in JSON).

#include "dlcost/types/gpu.hpp"

namespace dlcost {

/// fp32_flops > 0: the GPU has a published (or derived and sourced) compute rate.
inline bool gpuComputePublished(const Gpu& gpu) {
  return gpu.fp32_flops > 0;
}

}  // namespace dlcost
