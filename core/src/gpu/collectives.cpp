// The alpha-beta time of ring collectives, flat inside a node and hierarchical across nodes
// (see dlcost/collectives.hpp for the model and its sources).

#include "dlcost/gpu/collectives.hpp"
#include "dlcost/types/collective.hpp"

#include <algorithm>

namespace dlcost {

namespace {

/// Share of the buffer that crosses each rank's link, and ring steps, for a ring of k ranks.
struct RingCost {
  double share = 0;
  double steps = 0;
};

RingCost ring(Collective c, int64_t k) {
  const double n = static_cast<double>(k);
  if (k <= 1) return {};
  switch (c) {
    case Collective::kAllReduce:
      return {2 * (n - 1) / n, 2 * (n - 1)};
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll:
      return {(n - 1) / n, n - 1};
    case Collective::kSendRecv:
      return {1, 1};
  }
  return {};
}

double seconds(double bytes, double share, const Interconnect* link) {
  return share > 0 ? share * bytes / link->achievableBandwidth() : 0.0;
}

}  // namespace

const char* collectiveName(Collective c) {
  switch (c) {
    case Collective::kAllReduce:
      return "all-reduce";
    case Collective::kReduceScatter:
      return "reduce-scatter";
    case Collective::kAllGather:
      return "all-gather";
    case Collective::kAllToAll:
      return "all-to-all";
    case Collective::kSendRecv:
      return "send-recv";
  }
  return "";
}

GroupPlacement placeGroup(int64_t ranks, int64_t stride, int64_t gpus_per_node) {
  GroupPlacement g;
  g.ranks = std::max<int64_t>(1, ranks);
  // Members `stride` apart share a node while the stride is below the node's size.
  const int64_t fit = stride < gpus_per_node ? gpus_per_node / std::max<int64_t>(1, stride) : 1;
  g.per_node = std::max<int64_t>(1, std::min(g.ranks, fit));
  g.nodes = (g.ranks + g.per_node - 1) / g.per_node;
  return g;
}

double collectiveTime(Collective c, double bytes, const GroupPlacement& g, const Network& net) {
  if (g.ranks <= 1 || bytes <= 0) return 0;
  const Interconnect* intra = net.intra;
  const Interconnect* inter = net.inter;
  if (g.nodes <= 1) {
    const RingCost r = ring(c, g.ranks);
    return kCollectiveBaseLatency + seconds(bytes, r.share, intra) +
           r.steps * intra->step_latency_s;
  }
  const int64_t k = g.per_node;
  const double nk = static_cast<double>(k);
  const double nl = k > 1 ? intra->step_latency_s : 0;
  if (c == Collective::kSendRecv) {
    return kCollectiveBaseLatency + seconds(bytes, 1, inter) + inter->step_latency_s;
  }
  if (c == Collective::kAllToAll) {
    // Each rank's n - 1 sends run at once: the on-node part over the intra-node link, the
    // rest through its own adapter.
    const double n = static_cast<double>(g.ranks);
    const double on_node = k > 1 ? seconds(bytes, (nk - 1) / n, intra) : 0.0;
    const double off_node = seconds(bytes, (n - nk) / n, inter);
    return kCollectiveBaseLatency + std::max(on_node, off_node) + nl + inter->step_latency_s;
  }
  // Hierarchical: inside the node the ring's reduce-scatter and/or all-gather phases on the
  // whole buffer; between nodes the same collective on this GPU's 1/k share.
  const RingCost in = ring(c, k);
  const RingCost out = ring(c, g.nodes);
  return kCollectiveBaseLatency + seconds(bytes, in.share, intra) + in.steps * nl +
         seconds(bytes / nk, out.share, inter) + out.steps * inter->step_latency_s;
}

std::string groupLinks(const GroupPlacement& g, const Network& net) {
  if (g.ranks <= 1) return "";
  std::string s = g.per_node > 1 && net.intra ? net.intra->id : "";
  if (g.nodes > 1 && net.inter) s += (s.empty() ? "" : " + ") + net.inter->id;
  return s;
}

}  // namespace dlcost
