#include "dlcost/memory/memory_timeline.hpp"

#include "dlcost/base/checked.hpp"

namespace dlcost {

namespace {

/// Where a term alive all step goes in the stack.
TimelineTerm stackOf(MemoryKey key) {
  switch (key) {
    case MemoryKey::kGradients:
    case MemoryKey::kAdapterGradients:
      return TimelineTerm::kGradients;
    case MemoryKey::kOptimizerStates:
    case MemoryKey::kAdapterOptimizerStates:
      return TimelineTerm::kOptimizerStates;
    case MemoryKey::kMasterWeights:
      return TimelineTerm::kMasterWeights;
    case MemoryKey::kKvCache:
      return TimelineTerm::kKvCache;
    case MemoryKey::kOverhead:
    case MemoryKey::kComputeBuffer:
      return TimelineTerm::kOverhead;
    default:
      return TimelineTerm::kWeights;  // weights, scales, buffers, adapter weights
  }
}

/// The terms every point holds: those alive all step, less the activations (each event
/// has its own).
std::array<int64_t, kTimelineTerms> constantStack(const MemoryBreakdown& m) {
  std::array<int64_t, kTimelineTerms> base{};
  for (const MemoryTerm& t : m.terms) {
    if (t.phase != MemoryPhase::kAlways || t.key == MemoryKey::kActivations) continue;
    int64_t& slot = base[static_cast<size_t>(stackOf(t.key))];
    slot = checkedAdd(slot, t.bytes);
  }
  return base;
}

}  // namespace

MemoryTimeline stackTimeline(const MemoryBreakdown& m, int64_t batch,
                             const std::vector<TimelineEvent>& events) {
  const std::array<int64_t, kTimelineTerms> base = constantStack(m);
  const MemoryTerm* act = m.find(MemoryKey::kActivations);
  const int64_t act_fixed = act ? act->fixed : 0;
  const int64_t step_bytes = m.bytesOf(MemoryKey::kOptimizerStep);
  const auto at = [](TimelinePoint& p, TimelineTerm t) -> int64_t& {
    return p.bytes[static_cast<size_t>(t)];
  };
  MemoryTimeline out;
  out.points.reserve(events.size());
  int64_t best = 0;
  for (const TimelineEvent& e : events) {
    TimelinePoint& p = out.points.emplace_back();
    p.op = e.op;
    p.phase = e.phase;
    p.bytes = base;
    if (e.phase == TimelinePhase::kOptimizerStep) {
      at(p, TimelineTerm::kTransients) = step_bytes;
    } else {
      at(p, TimelineTerm::kGradients) =
          checkedAdd(at(p, TimelineTerm::kGradients), e.gradient_delta);
      const int64_t saved = checkedMul(batch, e.saved_per_sample);
      at(p, TimelineTerm::kActivations) = checkedAdd(act_fixed, saved);
      at(p, TimelineTerm::kTransients) = checkedSub(checkedMul(batch, e.live_per_sample), saved);
    }
    int64_t total = 0;
    for (int64_t b : p.bytes) total = checkedAdd(total, b);
    if (out.points.size() == 1 || total > best) {
      best = total;
      out.peak = out.points.size() - 1;
    }
  }
  return out;
}

}  // namespace dlcost
