#pragma once
// How a model is run: the knobs that change its cost but not its architecture.

#include <cstdint>
#include <optional>
#include <string>

#include "dlcost/parallel.hpp"
#include "dlcost/precision.hpp"

namespace dlcost {

enum class Mode {
  kTrain,  ///< forward + backward + optimizer step
  kInfer,  ///< forward only, no gradients, only simultaneously live tensors
};

/// Optimizers by the number of per-parameter state tensors they keep.
enum class Optimizer {
  kSgd,       ///< plain SGD: no state
  kMomentum,  ///< SGD with momentum: 1 (momentum buffer)
  kAdam,      ///< 2 (exp_avg, exp_avg_sq)
  kAdamW,     ///< 2, as Adam
  kRmsprop,   ///< 1 (square_avg; PyTorch's default momentum=0 adds none)
  kAdagrad,   ///< 1 (sum)
  /// Adam with 8-bit block-wise quantized states (bitsandbytes; Dettmers et al. 2022, "8-bit
  /// Optimizers via Block-wise Quantization"): 2 states of 1 byte per parameter.
  kAdam8bit,
};

const char* modeName(Mode mode);
std::optional<Mode> parseMode(const std::string& name);
const char* optimizerName(Optimizer optimizer);
std::optional<Optimizer> parseOptimizer(const std::string& name);
/// Per-parameter state tensors the optimizer keeps.
int optimizerStateCount(Optimizer optimizer);
/// Bits of each state value: 8 for 8-bit optimizers, else 0 = the precision's state format.
int optimizerStateBits(Optimizer optimizer);

struct Workload {
  Mode mode = Mode::kTrain;
  int64_t batch = 1;  ///< samples per step, >= 1
  Precision precision = Precision::kFp32;
  Optimizer optimizer = Optimizer::kAdam;
  /// Fixed extra bytes (framework, CUDA context, workspace) added to the total.
  int64_t overhead_bytes = 0;
  /// Memory available; when set, the report carries the largest batch that fits.
  std::optional<int64_t> memory_bytes;
  /// GPU, multi-GPU layout and roofline settings (dlcost/parallel.hpp).
  HardwareSettings hardware;
};

}  // namespace dlcost
