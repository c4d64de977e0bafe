#pragma once
// The built-in GPU table (core/hardware/gpus.json, embedded at build time): every row cites
// the datasheet or whitepaper its figures come from.

#include <string>
#include <vector>

#include "dlcost/types/gpu.hpp"

namespace dlcost {

/// The built-in table (at least 30 GPUs), in release order.
const std::vector<Gpu>& gpuPresets();

/// The preset with this id (case-insensitive), or nullptr.
const Gpu* findGpu(const std::string& id);

}  // namespace dlcost
