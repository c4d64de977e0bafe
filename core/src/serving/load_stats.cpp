// Latency statistics of the load simulation (load_stats.hpp).
#include "serving/load_stats.hpp"

#include <algorithm>

namespace dlcost {

void LogHistogram::add(double seconds) {
  if (!(seconds > 0)) seconds = kFirst;
  const int bin = static_cast<int>(std::log(seconds / kFirst) / std::log(kRatio));
  counts_[static_cast<size_t>(std::clamp(bin, 0, kBins - 1))]++;
  ++n_;
  sum_ += seconds;
}

void LogHistogram::merge(const LogHistogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  n_ += other.n_;
  sum_ += other.sum_;
}

Percentiles LogHistogram::percentiles() const {
  Percentiles p;
  if (n_ == 0) return p;
  p.mean = sum_ / static_cast<double>(n_);
  const auto at = [&](double q) {
    // Nearest rank: the smallest value with at least q x n values at or below it.
    const auto rank = static_cast<int64_t>(std::ceil(q * static_cast<double>(n_)));
    int64_t seen = 0;
    for (int i = 0; i < kBins; ++i) {
      seen += counts_[static_cast<size_t>(i)];
      if (seen >= std::max<int64_t>(1, rank)) return kFirst * std::pow(kRatio, i + 0.5);
    }
    return kFirst * std::pow(kRatio, kBins);
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  return p;
}

Percentiles percentilesOf(std::vector<double>& values) {
  Percentiles p;
  if (values.empty()) return p;
  double sum = 0;
  for (double v : values) sum += v;
  p.mean = sum / static_cast<double>(values.size());
  const auto at = [&](double q) {
    const auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
    const size_t i = std::min(values.size() - 1, rank > 0 ? rank - 1 : 0);
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values.end());
    return values[i];
  };
  p.p50 = at(0.50);
  p.p90 = at(0.90);
  p.p99 = at(0.99);
  return p;
}

void mergeStats(LoadStats& into, LoadStats& from) {
  const auto append = [](std::vector<double>& a, const std::vector<double>& b) {
    a.insert(a.end(), b.begin(), b.end());
  };
  append(into.ttft, from.ttft);
  append(into.e2e, from.e2e);
  append(into.queue, from.queue);
  into.itl.merge(from.itl);
  into.prompt_tokens += from.prompt_tokens;
  into.output_tokens += from.output_tokens;
  into.iterations += from.iterations;
  into.batch_tokens += from.batch_tokens;
  into.preemptions += from.preemptions;
  into.rejected += from.rejected;
  into.max_waiting = std::max(into.max_waiting, from.max_waiting);
  if (from.first_arrival >= 0) {
    into.first_arrival = into.first_arrival < 0 ? from.first_arrival
                                                : std::min(into.first_arrival, from.first_arrival);
  }
  into.last_done = std::max(into.last_done, from.last_done);
}

void fillResult(LoadResult& out, LoadStats& stats) {
  out.requests = static_cast<int64_t>(stats.e2e.size());
  out.rejected = stats.rejected;
  out.duration_s = std::max(0.0, stats.last_done - std::max(0.0, stats.first_arrival));
  out.ttft_s = percentilesOf(stats.ttft);
  out.itl_s = stats.itl.percentiles();
  out.e2e_s = percentilesOf(stats.e2e);
  out.queue_s = percentilesOf(stats.queue);
  if (out.duration_s > 0) {
    out.requests_per_s = static_cast<double>(out.requests) / out.duration_s;
    out.output_tokens_per_s = static_cast<double>(stats.output_tokens) / out.duration_s;
    out.total_tokens_per_s =
        static_cast<double>(stats.output_tokens + stats.prompt_tokens) / out.duration_s;
  }
  out.iterations = stats.iterations;
  out.preemptions = stats.preemptions;
  out.max_waiting = stats.max_waiting;
  if (stats.iterations > 0) {
    out.mean_batch_tokens =
        static_cast<double>(stats.batch_tokens) / static_cast<double>(stats.iterations);
  }
}

}  // namespace dlcost
