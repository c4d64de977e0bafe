#include "dlcost/sweep.hpp"

#include <string>

#include "dlcost/checked.hpp"
#include "dlcost/error.hpp"

namespace dlcost {

BatchSweep sweepBatch(const Report& report, const std::vector<int64_t>& batches) {
  if (batches.empty() || batches.size() > kMaxSweepPoints) {
    throw InputError(ErrorCode::kValue, "/batches",
                     "must list 1 to " + std::to_string(kMaxSweepPoints) + " batch sizes");
  }
  BatchSweep s;
  s.fixed = report.memory.fixed;
  s.per_sample = report.memory.per_sample;
  s.memory_bytes = report.workload.memory_bytes;
  s.max_batch = report.max_batch;
  s.points.reserve(batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    const int64_t b = batches[i];
    const std::string path = childPath("/batches", i);
    if (b < 1) throw InputError(ErrorCode::kValue, path, "a batch size must be at least 1");
    try {
      s.points.push_back({b, checkedAdd(s.fixed, checkedMul(s.per_sample, b))});
    } catch (const ArithmeticOverflow&) {
      throw InputError(
          ErrorCode::kTooLarge, path,
          "batch " + std::to_string(b) + " makes the total overflow 64-bit arithmetic");
    }
  }
  return s;
}

}  // namespace dlcost
