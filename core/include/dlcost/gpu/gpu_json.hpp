#pragma once
// GPUs and hardware settings in JSON (the report's GPU fit: core/src/gpu/gpu_writers.hpp).

#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/types/gpu.hpp"
#include "dlcost/types/gpu_fit.hpp"
#include "dlcost/types/parallel.hpp"

namespace dlcost {

/// A GPU in the form gpuToJson writes. A custom GPU needs memory ("memory_bytes" or
/// "memory_gib"), "bandwidth_bytes_per_s" and "fp32_flops"; "base": "PRESET" starts from a
/// preset and overrides only the fields given. Rates are operations per second (dense).
/// Throws InputError naming the bad field under `path`.
Gpu parseGpu(const nlohmann::json& value, const std::string& path);

nlohmann::json gpuToJson(const Gpu& gpu);

/// The preset table as a JSON array of gpuToJson objects.
nlohmann::json gpuTableJson();

/// The hardware fields of a workload, as the workload reader reads them (only those set).
nlohmann::json hardwareToJson(const HardwareSettings& hw);

}  // namespace dlcost
