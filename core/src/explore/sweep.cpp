#include "dlcost/explore/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/engine_limits.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/report/estimate.hpp"

namespace dlcost {

namespace {

/// The smallest 1, 2 or 5 x 10^k that is >= value (value >= 1).
int64_t roundUp125(int64_t value) {
  for (int64_t scale = 1;; scale *= 10) {
    for (int64_t m : {1, 2, 5}) {
      if (m * scale >= value) return m * scale;
    }
    if (scale > kMaxBatch) return kMaxBatch;
  }
}

/// The GPU fit's largest batch when a GPU is given, else the one for the workload's memory.
std::optional<int64_t> largestBatch(const Report& report) {
  if (report.gpu_fit) return report.gpu_fit->max_batch;
  return report.max_batch;
}

}  // namespace

std::vector<int64_t> chartBatches(const Report& report, int points) {
  points = std::clamp(points, 2, static_cast<int>(kMaxSweepPoints) - 3);
  const int64_t batch = report.workload.batch;
  const std::optional<int64_t> fit_batch = largestBatch(report);
  int64_t want = std::max<int64_t>(8, std::min(kMaxBatch, batch) * 2);
  if (fit_batch && *fit_batch > 0) {
    want = std::max(want, std::min(kMaxBatch, *fit_batch + *fit_batch / 5 + 1));
  }
  const int64_t top = std::min(roundUp125(want), kMaxBatch);
  std::vector<int64_t> out{1, batch};
  for (int i = 1; i < points; ++i) {
    // i * top / (points - 1) without overflow: top <= 2^32 and points <= 1024.
    out.push_back(std::max<int64_t>(1, std::llround(static_cast<double>(top) * i / (points - 1))));
  }
  if (fit_batch && *fit_batch >= 1 && *fit_batch <= top) out.push_back(*fit_batch);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int64_t BatchSweep::replicaBatch(int64_t batch) const {
  const int64_t replica = batch / data_parallel + (batch % data_parallel != 0 ? 1 : 0);
  return (replica / microbatches + (replica % microbatches != 0 ? 1 : 0)) * microbatches;
}

std::vector<int64_t> throughputBatches(const Report& report) {
  const int64_t batch = report.workload.batch;
  const std::optional<int64_t> fit_batch = largestBatch(report);
  const int64_t known = fit_batch && *fit_batch > 0 ? *fit_batch : 0;
  const int64_t top =
      std::max<int64_t>(8, known ? known + (known + 3) / 4 : std::min(kMaxBatch, batch) * 4);
  std::vector<int64_t> out{batch};
  for (int64_t b = 1; b <= std::min<int64_t>(top, int64_t{1} << 20); b *= 2) out.push_back(b);
  if (known) out.push_back(known);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (out.size() > 64) out.resize(64);
  return out;
}

std::optional<int64_t> saturationBatch(const BatchSweep& sweep, double share) {
  double best = 0;
  for (const BatchPoint& p : sweep.points) {
    if (p.samples_per_s && p.fits.value_or(true)) best = std::max(best, *p.samples_per_s);
  }
  std::optional<int64_t> out;
  for (const BatchPoint& p : sweep.points) {
    if (!p.samples_per_s || !p.fits.value_or(true) || *p.samples_per_s < share * best) continue;
    if (!out || p.batch < *out) out = p.batch;
  }
  return best > 0 ? out : std::nullopt;
}

BatchSweep sweepBatch(const Report& report, const std::vector<int64_t>& batches) {
  if (batches.empty() || batches.size() > kMaxSweepPoints) {
    throw InputError(ErrorCode::kValue, "/batches",
                     "must list 1 to " + std::to_string(kMaxSweepPoints) + " batch sizes");
  }
  BatchSweep s;
  // Training peaks in the larger of two phases (backward, optimizer step), each linear.
  const MemoryBreakdown& memory = report.gpu_fit ? report.gpu_fit->per_gpu : report.memory;
  if (report.gpu_fit) {
    const GpuFit& f = *report.gpu_fit;
    s.per_gpu = true;
    s.data_parallel = f.data_parallel;
    s.microbatches = report.workload.hardware.parallel.microbatchCount();
    s.fixed = f.per_gpu.fixed;
    s.per_sample = f.per_gpu.per_sample;
    s.memory_bytes = f.usable_bytes;
  } else {
    s.fixed = report.memory.fixed;
    s.per_sample = report.memory.per_sample;
    s.memory_bytes = report.workload.memory_bytes;
  }
  s.max_batch = largestBatch(report);
  s.points.reserve(batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    const int64_t b = batches[i];
    const std::string path = childPath("/batches", i);
    if (b < 1) throw InputError(ErrorCode::kValue, path, "a batch size must be at least 1");
    try {
      BatchPoint point;
      point.batch = b;
      point.total = memory.totalAt(s.replicaBatch(b));
      if (s.memory_bytes) point.fits = point.total <= *s.memory_bytes;
      s.points.push_back(point);
    } catch (const ArithmeticOverflow&) {
      throw InputError(
          ErrorCode::kTooLarge, path,
          "batch " + std::to_string(b) + " makes the total overflow 64-bit arithmetic");
    }
  }
  return s;
}

void addThroughput(BatchSweep& sweep, const Model& model, const Workload& w) {
  if (!w.hardware.gpu) return;
  for (BatchPoint& point : sweep.points) {
    Workload at = w;
    at.batch = point.batch;
    try {
      const Report r = estimate(model, at);
      if (!r.gpu_fit || !gpuComputePublished(r.gpu_fit->gpu)) continue;
      point.samples_per_s = r.gpu_fit->time.samples_per_s;
      point.step_time_s = r.gpu_fit->time.step_s;
    } catch (const InputError&) {
      // This batch is not a valid layout (or overflows); the chart skips the point.
    } catch (const ArithmeticOverflow&) {
    }
  }
}

}  // namespace dlcost
