#pragma once
// A serving engine under load (issue #30): the requests that arrive, what the simulation of
// the engine's scheduler reports (dlcost/serving/load_sim.hpp computes it).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

/// One request of a trace or of the generated load.
struct LoadRequest {
  double arrival_s = 0;       ///< seconds after the start
  int64_t prompt_tokens = 1;  ///< tokens of its prompt (prefilled)
  int64_t output_tokens = 1;  ///< tokens it generates (the first comes from the prefill)
};

/// How many tokens the prompts or answers have.
struct LengthDistribution {
  enum class Kind { kFixed, kUniform, kNormal };
  Kind kind = Kind::kFixed;
  double mean = 0;  ///< fixed: the length; normal: its mean
  double sd = 0;    ///< normal: its standard deviation (lengths are clamped to >= 1)
  int64_t lo = 0;   ///< uniform: the smallest length
  int64_t hi = 0;   ///< uniform: the largest length
};

/// The load: Poisson arrivals at a rate, a fixed number of users each sending its next request
/// when the last one finishes (closed loop), or a trace.
struct LoadSettings {
  enum class Arrivals { kPoisson, kConcurrency, kTrace };
  Arrivals arrivals = Arrivals::kPoisson;
  double rate = 1;          ///< requests per second (Poisson)
  int64_t concurrency = 1;  ///< requests in flight at once (closed loop)
  int64_t requests = 1000;  ///< requests simulated (generated loads)
  LengthDistribution prompt;
  LengthDistribution output;
  uint64_t seed = 1;                 ///< the random lengths' and arrivals' seed
  int64_t replicas = 1;              ///< engine instances behind a round-robin router
  std::vector<LoadRequest> trace;    ///< Arrivals::kTrace: sorted by arrival
  std::optional<double> slo_ttft_s;  ///< P99 time-to-first-token objective
  std::optional<double> slo_itl_s;   ///< P99 inter-token latency objective
};

/// Most requests one simulation runs (a trace longer than this is refused, not truncated).
constexpr int64_t kMaxLoadRequests = 1000000;

struct Percentiles {
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
};

/// The engine's state at one moment of the run.
struct LoadSample {
  double time_s = 0;
  int64_t running = 0;  ///< requests holding KV cache (being prefilled or decoding)
  int64_t waiting = 0;  ///< requests queued
  double kv_used = 0;   ///< share of the KV pool (or slots) in use
};

struct LoadResult {
  std::string engine;                ///< the engine whose scheduler was simulated
  std::string scheduler;             ///< how it forms batches, in one line
  int64_t requests = 0;              ///< requests completed
  int64_t rejected = 0;              ///< requests that can never fit (longer than the context)
  double duration_s = 0;             ///< first arrival to last completion
  Percentiles ttft_s;                ///< arrival to first token
  Percentiles itl_s;                 ///< between consecutive tokens of a request
  Percentiles e2e_s;                 ///< arrival to last token
  Percentiles queue_s;               ///< arrival to the first iteration that runs it
  double requests_per_s = 0;         ///< completed requests over the duration
  double output_tokens_per_s = 0;    ///< generated tokens over the duration
  double total_tokens_per_s = 0;     ///< prompt + generated tokens over the duration
  int64_t iterations = 0;            ///< engine steps (forwards) run
  int64_t preemptions = 0;           ///< requests evicted to free KV blocks (recomputed later)
  int64_t max_waiting = 0;           ///< longest queue
  double mean_batch_tokens = 0;      ///< tokens per iteration, averaged over iterations
  std::optional<bool> meets_slo;     ///< both objectives met (when any is given)
  std::vector<LoadSample> timeline;  ///< at most kLoadTimelinePoints, evenly thinned
  std::vector<std::string> notes;    ///< what the simulation assumes
};

constexpr int64_t kLoadTimelinePoints = 512;

}  // namespace dlcost
