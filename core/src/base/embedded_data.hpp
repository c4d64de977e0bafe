#pragma once
// Data tables embedded at build time by cmake/embed_text.cmake (one generated .cpp each), so
// the engine reads its tables from the same text natively and in WebAssembly.

namespace dlcost {

/// core/hardware/gpus.json: the built-in GPU table (schema "dlcost.gpu_table/1").
extern const char kGpuTableJson[];

/// core/hardware/time_params.json: the time model's fitted parameters (schema
/// "dlcost.time_params/1", dlcost/gpu/time_model.hpp).
extern const char kTimeParamsJson[];

}  // namespace dlcost
