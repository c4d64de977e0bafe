#pragma once
// The time and cost of a whole training run: how many optimizer steps the data takes, the
// wall time, GPU-hours, money at a price per GPU-hour, energy at the GPUs' board power, and
// the model FLOPs utilisation beside them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

struct GpuFit;
struct Report;

/// What a run processes and what a GPU-hour costs ("tokens", "samples", "epochs",
/// "price_per_gpu_hour" in the workload; training only).
struct RunSettings {
  std::optional<int64_t> tokens;   ///< transformers: training tokens in all
  std::optional<int64_t> samples;  ///< samples per epoch (sequences for a transformer)
  double epochs = 1;               ///< passes over `samples`
  /// USD per GPU-hour; absent: the GPU's list price in gpuListPrices(), where there is one.
  std::optional<double> price_per_gpu_hour;
};

/// A published rental price, dated: defaults only, to be replaced by the user's own price.
struct GpuListPrice {
  std::string gpu;  ///< GPU preset id
  double usd_per_gpu_hour = 0;
  std::string offer;  ///< what was priced, e.g. "AWS p5.48xlarge (8 x H100), Capacity Blocks"
  std::string date;   ///< when the price was listed
  std::string source;
};

struct RunCost {
  int64_t steps = 0;            ///< optimizer steps: ceil(tokens / tokens per step), or samples
  double tokens = 0;            ///< tokens processed (transformers; 0 otherwise)
  double samples = 0;           ///< samples (sequences) processed
  double wall_s = 0;            ///< steps x step time
  double gpu_hours = 0;         ///< wall hours x GPUs
  std::optional<double> price;  ///< USD per GPU-hour used (absent: none known)
  bool price_is_list = false;   ///< the price is a built-in list price, not the user's
  std::optional<GpuListPrice> list_price;
  std::optional<double> cost_usd;  ///< gpu_hours x price
  double energy_kwh = 0;           ///< gpu_hours x board power per GPU (TDP), an upper bound
  double mfu = 0;                  ///< the step's model FLOPs utilisation
};

}  // namespace dlcost
