#pragma once
// Collective communication time on a network: ring and tree algorithms over the links a
// group spans, with NCCL's base latency per call.

#include <cstdint>
#include <string>

#include "dlcost/types/collective.hpp"
#include "dlcost/types/interconnect.hpp"

namespace dlcost {

/// A group of `ranks` GPUs whose global ranks are `stride` apart, on nodes of
/// `gpus_per_node` consecutive ranks (Megatron-LM's order: tensor-parallel ranks adjacent,
/// then data-parallel, then pipeline stages).
GroupPlacement placeGroup(int64_t ranks, int64_t stride, int64_t gpus_per_node);

/// Seconds for one call of `c` on `bytes` within group `g` on `net` (0 for a group of one).
/// Send-recv between two ranks of a group spanning nodes goes over the network (the
/// slowest boundary of a pipeline sets its pace).
double collectiveTime(Collective c, double bytes, const GroupPlacement& g, const Network& net);

/// The link(s) a group's collective crosses: "nvlink4", "ib-ndr" or "nvlink4 + ib-ndr".
std::string groupLinks(const GroupPlacement& g, const Network& net);

}  // namespace dlcost
