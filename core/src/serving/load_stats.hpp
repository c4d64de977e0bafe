#pragma once
// What the load simulation counts (load_sim.cpp): per-request latencies kept whole (one
// double each, at most kMaxLoadRequests), inter-token gaps in a log-spaced histogram (a run
// makes one per generated token: a 100,000-request run would keep tens of millions).

#include <cmath>
#include <cstdint>
#include <vector>

#include "dlcost/types/serving_load.hpp"

namespace dlcost {

/// Counts of positive values in bins 0.1 % wide (relative), from 1 µs to about 3 hours.
class LogHistogram {
 public:
  void add(double seconds);
  void merge(const LogHistogram& other);
  /// Mean and percentiles; each percentile is its bin's geometric middle (within 0.05 %).
  Percentiles percentiles() const;

 private:
  static constexpr double kFirst = 1e-6;
  static constexpr double kRatio = 1.001;
  static constexpr int kBins = 23100;  // kFirst x kRatio^kBins ~ 1e4 s
  std::vector<int64_t> counts_ = std::vector<int64_t>(kBins, 0);
  int64_t n_ = 0;
  double sum_ = 0;
};

/// Mean and percentiles of `values` (nearest rank; reorders them).
Percentiles percentilesOf(std::vector<double>& values);

struct LoadStats {
  std::vector<double> ttft, e2e, queue;
  LogHistogram itl;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  int64_t iterations = 0;
  int64_t batch_tokens = 0;  ///< Σ over iterations of their tokens
  int64_t preemptions = 0;
  int64_t rejected = 0;
  int64_t max_waiting = 0;
  double first_arrival = -1;
  double last_done = 0;
};

/// `from`'s counts added to `into` (replicas behind one router).
void mergeStats(LoadStats& into, LoadStats& from);

/// The result's figures from `stats` (every field but engine, scheduler, timeline and notes).
void fillResult(LoadResult& out, LoadStats& stats);

}  // namespace dlcost
