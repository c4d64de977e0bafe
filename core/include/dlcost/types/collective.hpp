#pragma once
// Time of the collectives a multi-GPU step runs, by the bandwidth-latency ("alpha-beta")
// model of NCCL's ring algorithm: a ring of n ranks moves 2(n-1)/n of the buffer through each
// rank's link in an all-reduce and (n-1)/n in a reduce-scatter or all-gather (Patarasuk and
// Yuan 2009, "Bandwidth optimal all-reduce algorithms for clusters of workstations"; NCCL's
// performance notes, nccl-tests doc/PERFORMANCE.md, "bus bandwidth"), plus NCCL's latency:
// a base per call and a per-step figure for each step of the ring (src/graph/tuning.cc).
// A group spanning several nodes runs hierarchically: reduce-scatter inside each node, the
// collective between nodes on each GPU's 1/k share through its own network adapter, then
// all-gather inside the node (k = the group's GPUs per node).

#include <cstdint>
#include <string>

#include "dlcost/types/interconnect.hpp"

namespace dlcost {

enum class Collective {
  kAllReduce,      ///< bytes: each rank's buffer (input = output)
  kReduceScatter,  ///< bytes: each rank's whole input (it keeps 1/n of it)
  kAllGather,      ///< bytes: each rank's whole output (it contributes 1/n of it)
  kAllToAll,       ///< bytes: each rank's send buffer (1/n of it stays)
  kSendRecv,       ///< bytes: the message between two neighbouring ranks
};

/// "all-reduce", "reduce-scatter", "all-gather", "all-to-all", "send-recv".
const char* collectiveName(Collective c);

/// How a communicating group sits on the nodes.
struct GroupPlacement {
  int64_t ranks = 1;     ///< GPUs in the group
  int64_t per_node = 1;  ///< of them in one node
  int64_t nodes = 1;     ///< nodes the group spans
};

}  // namespace dlcost
