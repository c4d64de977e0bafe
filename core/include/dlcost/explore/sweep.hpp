#pragma once
// Memory over a range of batch sizes, computed from one estimate: every report's total is
// fixed + batch x per_sample (see MemoryBreakdown), so a sweep needs no re-estimate per point.

#include <cstdint>
#include <optional>
#include <vector>

#include "dlcost/types/model.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Most batch sizes one sweep accepts (a chart needs tens, not thousands).
constexpr size_t kMaxSweepPoints = 1024;

/// One point of a sweep: total memory in bytes at `batch`.
struct BatchPoint {
  int64_t batch = 1;
  /// fixed + samples x per_sample, bytes: the whole model's at `batch` samples, or with a GPU
  /// one GPU's at its replica batch (see BatchSweep::replicaBatch).
  int64_t total = 0;
  std::optional<bool> fits;  ///< total <= memory_bytes, when a capacity is known
  /// Roofline throughput on the workload's GPU at this batch (see addThroughput); absent
  /// without a GPU or where the layout cannot take this batch.
  std::optional<double> samples_per_s;
  std::optional<double> step_time_s;  ///< seconds per step at this batch, with samples_per_s
};

/// Memory versus batch for the model and workload of `report`.
struct BatchSweep {
  /// Whether the figures are one GPU's (the workload names a GPU) or the whole model's.
  bool per_gpu = false;
  int64_t data_parallel = 1;  ///< replicas the global batch splits over (1 without a GPU)
  int64_t microbatches = 1;   ///< pipeline micro-batches a replica batch is a multiple of
  int64_t fixed = 0;          ///< bytes that do not grow with batch (per GPU with a GPU)
  int64_t per_sample = 0;     ///< bytes each sample (of a replica's batch) adds
  /// The capacity compared with: a GPU's usable memory (after its reserves) when the workload
  /// names a GPU, else the workload's memory size, when given.
  std::optional<int64_t> memory_bytes;
  /// The largest batch that fits: the GPU fit's when a GPU is given, else the report's.
  std::optional<int64_t> max_batch;
  std::vector<BatchPoint> points;  ///< one per requested batch, in the order given

  /// Samples one GPU holds at global batch `batch`: ceil(batch / data_parallel) rounded up to
  /// a whole number of micro-batches (the smallest layout that holds `batch`). So a batch
  /// fits exactly when it is at most max_batch.
  int64_t replicaBatch(int64_t batch) const;
};

/// Batch sizes for a memory-vs-batch chart of `report`: `points` evenly spread from 1 to a
/// round maximum (1, 2 or 5 x 10^k) at least twice the workload's batch, 8, and 1.2 x the
/// largest batch that fits (when known), capped at kMaxBatch; plus 1, the workload's batch and
/// the largest batch that fits, ascending and without repeats. `points` is clamped to
/// [2, kMaxSweepPoints - 3].
std::vector<int64_t> chartBatches(const Report& report, int points);

/// Batch sizes for a throughput-versus-batch chart (log axis): powers of two from 1 up to
/// 1.25 x the largest batch that fits (4 x the workload's batch when none is known; at least
/// 8, at most 2^20), plus the workload's batch and the largest batch that fits; ascending, at
/// most 64.
std::vector<int64_t> throughputBatches(const Report& report);

/// Share of the best throughput that counts as saturated (the page's "90 % of best").
constexpr double kSaturationShare = 0.9;

/// The smallest batch whose throughput reaches `share` of the best among the points that
/// fit (or have no capacity to fit); absent when no point has a throughput.
std::optional<int64_t> saturationBatch(const BatchSweep& sweep, double share = kSaturationShare);

/// Evaluates `report`'s memory line at each batch (each >= 1): with a GPU fit, per GPU
/// (GpuFit::per_gpu's fixed and per-sample bytes at the replica batch, against its usable
/// memory), else the whole model against the workload's memory size. Throws InputError (kValue for
/// an empty, too long or non-positive list, kTooLarge when a total overflows 64 bits) with
/// the path "/batches/i" of the offending entry.
BatchSweep sweepBatch(const Report& report, const std::vector<int64_t>& batches);

/// Fills each point's samples_per_s and step_time_s by re-estimating `w` at the point's
/// batch on its GPU (the step time is not linear in the batch: weight traffic is fixed per
/// step, so small batches are memory-bound and the speed-up saturates once compute-bound).
/// Does nothing when `w` names no GPU. A batch the layout rejects (e.g. not divisible by the
/// data-parallel degree) leaves that point without throughput. The advisor is off for these
/// re-estimates.
void addThroughput(BatchSweep& sweep, const Model& model, const Workload& w);

}  // namespace dlcost
