#pragma once
// One engine instance of the load simulation (load_sim.hpp): its requests, its KV pool or
// slots, and the scheduler that forms each iteration's batch.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "serving/iteration_time.hpp"
#include "serving/load_stats.hpp"

namespace dlcost {

/// How the engine forms batches (load_sim.hpp says which engine does what).
enum class BatchPolicy { kContinuous, kPrefillFirst, kSlots, kStatic };

/// The scheduler's limits, from the serving plan.
struct EngineLimits {
  BatchPolicy policy = BatchPolicy::kContinuous;
  int64_t token_budget = 0;  ///< tokens per iteration (chunked prefill budget, n_ubatch)
  int64_t max_seqs = 1;      ///< requests running at once (max_num_seqs, slots, batch)
  int64_t pool_units = 0;    ///< KV blocks (paged) or slots
  int64_t block_tokens = 1;  ///< tokens per KV block (paged)
  int64_t context = 0;       ///< tokens one request may hold (max_model_len, n_ctx per slot)
};

/// A request inside the engine.
struct Sequence {
  double arrival = 0;
  int64_t prompt = 0;
  int64_t output = 0;
  int64_t target = 0;     ///< tokens to prefill: the prompt, + what was generated if preempted
  int64_t computed = 0;   ///< tokens in the KV cache
  int64_t generated = 0;  ///< tokens sampled
  int64_t held = 0;       ///< KV blocks or slots held
  double first_run = -1;
  double first_token = -1;
  double last_token = 0;
};

/// One scheduled piece of work: a request's prompt chunk [from, to) or its decode token.
struct Scheduled {
  Sequence* seq = nullptr;
  int64_t tokens = 0;
};

class EngineInstance {
 public:
  EngineInstance(const IterationModel& model, const EngineLimits& limits, LoadStats& stats);

  /// A request arrives at `now`; false when it can never run (longer than the context or
  /// the whole pool): counted as rejected.
  bool arrive(const Sequence& s);
  bool idle() const { return running_.empty() && waiting_.empty(); }
  /// Runs one iteration starting at `now`; returns its seconds (0: nothing could run) and
  /// counts the requests that finished in `finished`.
  double step(double now, int64_t& finished);
  int64_t running() const { return static_cast<int64_t>(running_.size()); }
  int64_t waiting() const { return static_cast<int64_t>(waiting_.size()); }
  /// Share of the KV pool (or slots) held.
  double kvUsed() const;

 private:
  int64_t unitsFor(int64_t tokens) const;
  bool reserve(Sequence& s, int64_t tokens);
  void preemptLast();
  void scheduleRunning(std::vector<Scheduled>& out, int64_t& budget, bool decode, bool prefill);
  void admitWaiting(std::vector<Scheduled>& out, int64_t& budget, double now);
  std::vector<Scheduled> scheduleStatic(double now);
  std::vector<Scheduled> schedule(double now);
  void finishIteration(const std::vector<Scheduled>& done, double now, int64_t& finished);
  void tokenOut(Sequence& s, double now);

  const IterationModel& model_;
  EngineLimits limits_;
  LoadStats& stats_;
  // Owned where they are (addresses stay put when a request moves between the two).
  std::vector<std::unique_ptr<Sequence>> running_;
  std::deque<std::unique_ptr<Sequence>> waiting_;
  int64_t used_ = 0;
  int64_t static_width_ = 0;  ///< HF: the batch's padded prompt
};

}  // namespace dlcost
