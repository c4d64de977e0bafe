// The simulation under load (load_sim.hpp): requests arrive, each engine instance forms and
// runs iterations, the clock advances by each iteration's time.
#include "dlcost/serving/load_sim.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "dlcost/base/error.hpp"
#include "dlcost/serving/serving.hpp"
#include "serving/iteration_time.hpp"
#include "serving/load_engine.hpp"
#include "serving/load_stats.hpp"

namespace dlcost {

namespace {

EngineLimits limitsFor(const ServingPlan& plan) {
  EngineLimits l;
  l.context = plan.context;
  const int64_t users = std::max<int64_t>(1, plan.users);
  switch (plan.engine) {
    case Engine::kVllm:
      l.policy = BatchPolicy::kContinuous;
      l.token_budget = plan.max_num_batched_tokens;
      l.block_tokens = std::max<int64_t>(1, plan.block_size);
      l.pool_units = plan.kv_tokens / l.block_tokens;
      l.max_seqs = plan.max_num_seqs > 0 ? plan.max_num_seqs : l.pool_units;
      break;
    case Engine::kSglang:
      l.policy = BatchPolicy::kPrefillFirst;
      l.token_budget = plan.max_num_batched_tokens;
      l.pool_units = plan.kv_tokens;
      l.max_seqs = plan.max_num_seqs > 0 ? plan.max_num_seqs : l.pool_units;
      break;
    case Engine::kLlamaCpp:
      l.policy = BatchPolicy::kSlots;
      l.token_budget = kLlamaUbatch;
      l.pool_units = users;
      l.max_seqs = users;
      break;
    default:
      l.policy = BatchPolicy::kStatic;
      l.token_budget = std::numeric_limits<int64_t>::max();
      l.max_seqs = users;
      break;
  }
  return l;
}

const char* schedulerText(BatchPolicy p) {
  switch (p) {
    case BatchPolicy::kContinuous:
      return "continuous batching with chunked prefill: running requests first, then waiting "
             "ones, within max_num_batched_tokens and max_num_seqs; paged KV blocks; "
             "preemption by recomputation (vLLM v1)";
    case BatchPolicy::kPrefillFirst:
      return "a prefill batch whenever waiting requests fit, else a decode batch of every "
             "running request, not mixed; a token pool; retraction by recomputation (SGLang)";
    case BatchPolicy::kSlots:
      return "-np slots of the context each; a forward takes every decoding slot's token, "
             "then prompt tokens up to n_ubatch (llama.cpp server)";
    case BatchPolicy::kStatic:
      return "static batches of `users` requests: one padded prefill, then decode steps until "
             "the longest answer ends (HF transformers generate())";
  }
  return "";
}

void addNotes(LoadResult& out, const Transformer& t, const Workload& w, const EngineLimits& l,
              int64_t replicas) {
  out.notes.push_back(
      "each iteration is timed by the per-op time model (docs/speed-model.md) with the work of "
      "its prompt chunks and decode tokens; network, tokenizer and detokenizer time are not "
      "included");
  if (replicas > 1) {
    out.notes.push_back(std::to_string(replicas) +
                        " replicas behind a round-robin router; the timeline is the first's");
  }
  if (t.sliding_window > 0 && l.policy != BatchPolicy::kStatic) {
    out.notes.push_back(
        "sliding-window layers hold the whole context in the simulated pool: a lower bound on "
        "how many requests run at once");
  }
  if (w.images.value_or(0) > 0) {
    out.notes.push_back(
        "prompts are counted in tokens; the vision tower's work per image is "
        "not simulated");
  }
}

/// One instance's run over `requests` (sorted by arrival; closed loop: `concurrency` > 0
/// issues the next request when one finishes). Returns its timeline.
std::vector<LoadSample> runInstance(EngineInstance& engine, std::vector<LoadRequest> requests,
                                    int64_t concurrency, LoadStats& stats) {
  const auto n = static_cast<int64_t>(requests.size());
  int64_t next = 0, finished = 0;
  double now = 0;
  std::vector<LoadSample> timeline;
  int64_t stride = 1;
  // Every iteration runs at least one token; a run of more iterations than tokens to run, with
  // generous room for recomputation after preemptions, has stopped making progress.
  double tokens = 0;
  for (const LoadRequest& q : requests)
    tokens += static_cast<double>(q.prompt_tokens + q.output_tokens);
  const double max_iterations = 50 * tokens + 1e6;
  const auto issue = [&](double at) {
    if (concurrency > 0) requests[static_cast<size_t>(next)].arrival_s = at;
    const LoadRequest& q = requests[static_cast<size_t>(next++)];
    if (stats.first_arrival < 0) stats.first_arrival = q.arrival_s;
    Sequence s;
    s.arrival = q.arrival_s;
    s.prompt = q.prompt_tokens;
    s.output = q.output_tokens;
    if (engine.arrive(s)) return true;
    ++finished;  // rejected: it can never run
    return false;
  };
  // A closed loop issues one request per user at the start and one per request finished or
  // rejected.
  const auto issueClosed = [&](double at) {
    while (next < n && !issue(at)) {
    }
  };
  for (int64_t u = 0; u < concurrency; ++u) issueClosed(0);
  while (finished < n) {
    while (concurrency == 0 && next < n && requests[static_cast<size_t>(next)].arrival_s <= now) {
      issue(requests[static_cast<size_t>(next)].arrival_s);
    }
    stats.max_waiting = std::max(stats.max_waiting, engine.waiting());
    int64_t done = 0;
    const double dt = engine.idle() ? 0 : engine.step(now, done);
    if (dt == 0) {
      if (next >= n) {
        // Requests inside that no iteration can run: a scheduler bug, never a partial result.
        if (!engine.idle()) throw std::logic_error("load simulation: requests left unrunnable");
        break;
      }
      now = std::max(now, requests[static_cast<size_t>(next)].arrival_s);
      continue;
    }
    now += dt;
    finished += done;
    for (int64_t i = 0; concurrency > 0 && i < done; ++i) issueClosed(now);
    if (static_cast<double>(stats.iterations) > max_iterations) {
      throw InputError(ErrorCode::kTooLarge, "/load",
                       "the simulation stopped making progress (more iterations than tokens)");
    }
    if (stats.iterations % stride == 0) {
      timeline.push_back({now, engine.running(), engine.waiting(), engine.kvUsed()});
      if (static_cast<int64_t>(timeline.size()) >= 2 * kLoadTimelinePoints) {
        for (size_t i = 0; i < timeline.size() / 2; ++i) timeline[i] = timeline[2 * i + 1];
        timeline.resize(timeline.size() / 2);
        stride *= 2;
      }
    }
  }
  return timeline;
}

/// The requests replica `k` of `replicas` gets from a round-robin router.
std::vector<LoadRequest> share(const std::vector<LoadRequest>& all, int64_t k, int64_t replicas) {
  std::vector<LoadRequest> out;
  for (size_t i = static_cast<size_t>(k); i < all.size(); i += static_cast<size_t>(replicas)) {
    out.push_back(all[i]);
  }
  return out;
}

}  // namespace

LoadResult simulateLoad(const Transformer& t, const Workload& w, const Report& r,
                        const LoadSettings& s) {
  const IterationModel model(t, w, r);
  const ServingPlan& plan = *r.serving;
  if (!plan.fits) {
    throw InputError(ErrorCode::kValue, "/workload/users",
                     "the serving plan does not fit: " + std::to_string(plan.users) + " users of " +
                         std::to_string(plan.context) + " tokens; the engine could not start");
  }
  const EngineLimits limits = limitsFor(plan);
  const std::vector<LoadRequest> all = loadRequests(s);
  const int64_t replicas = std::max<int64_t>(1, s.replicas);
  LoadStats stats;
  LoadResult out;
  for (int64_t k = 0; k < replicas; ++k) {
    LoadStats mine;
    EngineInstance engine(model, limits, mine);
    const int64_t concurrency =
        s.arrivals == LoadSettings::Arrivals::kConcurrency ? (s.concurrency + k) / replicas : 0;
    std::vector<LoadSample> timeline =
        runInstance(engine, share(all, k, replicas), concurrency, mine);
    if (k == 0) out.timeline = std::move(timeline);
    mergeStats(stats, mine);
  }
  if (stats.e2e.empty() && stats.rejected > 0) {
    throw InputError(ErrorCode::kValue, "/load/prompt",
                     "every request is longer than the engine takes (" +
                         std::to_string(plan.context) + " tokens of context" +
                         (limits.policy == BatchPolicy::kContinuous ||
                                  limits.policy == BatchPolicy::kPrefillFirst
                              ? ", " + std::to_string(limits.pool_units * limits.block_tokens) +
                                    " in the KV pool"
                              : std::string()) +
                         "): shorten prompt or output, or give a larger context");
  }
  fillResult(out, stats);
  out.engine = engineName(plan.engine);
  out.scheduler = schedulerText(limits.policy);
  if (s.slo_ttft_s || s.slo_itl_s) {
    out.meets_slo = out.rejected == 0 && (!s.slo_ttft_s || out.ttft_s.p99 <= *s.slo_ttft_s) &&
                    (!s.slo_itl_s || out.itl_s.p99 <= *s.slo_itl_s);
  }
  addNotes(out, t, w, limits, replicas);
  return out;
}

}  // namespace dlcost
