#pragma once
// Stacking an estimator's timeline events into the live-bytes curve at the report's batch.

#include <cstdint>
#include <vector>

#include "dlcost/types/memory.hpp"
#include "dlcost/types/timeline.hpp"

namespace dlcost {

/// The curve of `events` over the summed term list `m` at `batch`: each point is the terms
/// alive all step (model states, buffers, KV cache, overhead) plus the event's own
/// activations (m's kActivations fixed part + batch x live_per_sample, saved and transient
/// apart) and gradient delta; a kOptimizerStep event carries the kOptimizerStep term instead.
/// Because the events hold the backward candidates sumTerms chose from (and every other
/// event is dominated by one), the peak point's total is m.total. Throws ArithmeticOverflow.
MemoryTimeline stackTimeline(const MemoryBreakdown& m, int64_t batch,
                             const std::vector<TimelineEvent>& events);

}  // namespace dlcost
