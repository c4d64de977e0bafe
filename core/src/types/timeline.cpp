#include "dlcost/types/timeline.hpp"

namespace dlcost {

const char* timelinePhaseName(TimelinePhase p) {
  switch (p) {
    case TimelinePhase::kForward:
      return "forward";
    case TimelinePhase::kRecompute:
      return "recompute";
    case TimelinePhase::kBackward:
      return "backward";
    case TimelinePhase::kOptimizerStep:
      return "optimizer_step";
  }
  return "forward";
}

const char* timelineTermName(TimelineTerm t) {
  static const char* const kNames[kTimelineTerms] = {
      "weights",     "gradients",  "optimizer_states", "master_weights",
      "activations", "transients", "kv_cache",         "overhead"};
  return kNames[static_cast<size_t>(t)];
}

}  // namespace dlcost
