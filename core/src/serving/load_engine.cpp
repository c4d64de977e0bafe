// One engine instance's scheduler (load_engine.hpp); load_sim.hpp says which engine forms its
// batches which way, with the source it follows.
#include "serving/load_engine.hpp"

#include <algorithm>
#include <limits>

namespace dlcost {

EngineInstance::EngineInstance(const IterationModel& model, const EngineLimits& limits,
                               LoadStats& stats)
    : model_(model), limits_(limits), stats_(stats) {}

int64_t EngineInstance::unitsFor(int64_t tokens) const {
  if (limits_.policy == BatchPolicy::kSlots) return 1;
  return (tokens + limits_.block_tokens - 1) / limits_.block_tokens;
}

double EngineInstance::kvUsed() const {
  if (limits_.policy == BatchPolicy::kStatic) {
    return static_cast<double>(running_.size()) / static_cast<double>(limits_.max_seqs);
  }
  return static_cast<double>(used_) / static_cast<double>(std::max<int64_t>(1, limits_.pool_units));
}

bool EngineInstance::arrive(const Sequence& s) {
  const int64_t tokens = s.prompt + s.output;
  const bool paged =
      limits_.policy == BatchPolicy::kContinuous || limits_.policy == BatchPolicy::kPrefillFirst;
  if (tokens > limits_.context || (paged && unitsFor(tokens) > limits_.pool_units)) {
    stats_.rejected++;
    return false;
  }
  auto seq = std::make_unique<Sequence>(s);
  seq->target = s.prompt;
  waiting_.push_back(std::move(seq));
  return true;
}

void EngineInstance::preemptLast() {
  std::unique_ptr<Sequence> p = std::move(running_.back());
  running_.pop_back();
  used_ -= p->held;
  p->held = 0;
  // Recomputation: the prompt and every token generated so far are prefilled again; the
  // last of them samples the next token.
  p->computed = 0;
  p->target = p->prompt + p->generated;
  waiting_.push_front(std::move(p));
  stats_.preemptions++;
}

/// Blocks for `s` to hold `tokens`, preempting from the back of the running list (vLLM's
/// lowest priority) until they are free; false when `s` itself is the last.
bool EngineInstance::reserve(Sequence& s, int64_t tokens) {
  const int64_t need = unitsFor(tokens) - s.held;
  while (need > limits_.pool_units - used_) {
    if (running_.back().get() == &s) return false;
    preemptLast();
  }
  if (need > 0) {
    used_ += need;
    s.held += need;
  }
  return true;
}

void EngineInstance::scheduleRunning(std::vector<Scheduled>& out, int64_t& budget, bool decode,
                                     bool prefill) {
  for (size_t i = 0; i < running_.size() && budget > 0; ++i) {
    Sequence& s = *running_[i];
    const bool in_prefill = s.computed < s.target;
    if (in_prefill ? !prefill : !decode) continue;
    const int64_t n = in_prefill ? std::min(s.target - s.computed, budget) : 1;
    if (!reserve(s, s.computed + n)) {
      preemptLast();  // `s` is the last running request: it makes room for no one
      break;
    }
    out.push_back({&s, n});
    budget -= n;
  }
}

void EngineInstance::admitWaiting(std::vector<Scheduled>& out, int64_t& budget, double now) {
  while (budget > 0 && !waiting_.empty() && running() < limits_.max_seqs) {
    Sequence& s = *waiting_.front();
    const int64_t n = std::min(s.target - s.computed, budget);
    const int64_t need = unitsFor(s.computed + n) - s.held;
    if (need > limits_.pool_units - used_) break;
    used_ += need;
    s.held += need;
    if (s.first_run < 0) {
      s.first_run = now;
      stats_.queue.push_back(now - s.arrival);
    }
    out.push_back({&s, n});
    budget -= n;
    running_.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
  }
}

/// HF generate(): a batch of up to max_seqs waiting requests, its prompts padded to the
/// longest, then decode steps for all of them until the longest answer ends.
std::vector<Scheduled> EngineInstance::scheduleStatic(double now) {
  std::vector<Scheduled> out;
  if (running_.empty()) {
    static_width_ = 0;
    while (!waiting_.empty() && running() < limits_.max_seqs) {
      std::unique_ptr<Sequence> s = std::move(waiting_.front());
      waiting_.pop_front();
      s->first_run = now;
      stats_.queue.push_back(now - s->arrival);
      static_width_ = std::max(static_width_, s->prompt);
      running_.push_back(std::move(s));
    }
    for (auto& s : running_) s->target = static_width_;
  }
  for (auto& s : running_) {
    out.push_back({s.get(), s->computed < s->target ? s->target - s->computed : 1});
  }
  return out;
}

std::vector<Scheduled> EngineInstance::schedule(double now) {
  std::vector<Scheduled> out;
  int64_t budget = limits_.token_budget;
  switch (limits_.policy) {
    case BatchPolicy::kContinuous:
      scheduleRunning(out, budget, true, true);
      admitWaiting(out, budget, now);
      break;
    case BatchPolicy::kSlots:
      scheduleRunning(out, budget, true, false);
      scheduleRunning(out, budget, false, true);
      admitWaiting(out, budget, now);
      break;
    case BatchPolicy::kPrefillFirst:
      scheduleRunning(out, budget, false, true);
      admitWaiting(out, budget, now);
      if (out.empty()) {
        budget = std::numeric_limits<int64_t>::max();
        scheduleRunning(out, budget, true, false);
      }
      break;
    case BatchPolicy::kStatic:
      return scheduleStatic(now);
  }
  return out;
}

void EngineInstance::tokenOut(Sequence& s, double now) {
  if (s.first_token < 0) {
    s.first_token = now;
    stats_.ttft.push_back(now - s.arrival);
  } else {
    stats_.itl.add(now - s.last_token);
  }
  s.last_token = now;
  s.generated++;
  stats_.output_tokens++;
  if (s.generated == s.output) {
    stats_.e2e.push_back(now - s.arrival);
    stats_.prompt_tokens += s.prompt;
    stats_.last_done = std::max(stats_.last_done, now);
  }
}

void EngineInstance::finishIteration(const std::vector<Scheduled>& done, double now,
                                     int64_t& finished) {
  for (const Scheduled& sch : done) {
    Sequence& s = *sch.seq;
    const bool was_prefill = s.computed < s.target;
    s.computed += sch.tokens;
    if (was_prefill && s.computed < s.target) continue;  // a chunk: no token yet
    if (s.generated >= s.output) continue;               // HF: a finished row's padding
    tokenOut(s, now);
    if (s.generated == s.output) finished++;
  }
  const auto done_with = [](const std::unique_ptr<Sequence>& s) {
    return s->generated >= s->output;
  };
  if (limits_.policy == BatchPolicy::kStatic) {
    if (std::all_of(running_.begin(), running_.end(), done_with)) running_.clear();
    return;
  }
  for (const auto& s : running_) {
    if (done_with(s)) used_ -= s->held;
  }
  running_.erase(std::remove_if(running_.begin(), running_.end(), done_with), running_.end());
}

double EngineInstance::step(double now, int64_t& finished) {
  const std::vector<Scheduled> batch = schedule(now);
  if (batch.empty()) return 0;
  IterationWork work;
  for (const Scheduled& sch : batch) {
    const Sequence& s = *sch.seq;
    if (s.computed < s.target) {
      model_.addChunk(work, s.computed, s.computed + sch.tokens,
                      s.computed + sch.tokens == s.target);
    } else {
      model_.addDecode(work, s.computed + 1);
    }
  }
  const double seconds = model_.seconds(work);
  stats_.iterations++;
  stats_.batch_tokens += work.tokens;
  finishIteration(batch, now + seconds, finished);
  return seconds;
}

}  // namespace dlcost
