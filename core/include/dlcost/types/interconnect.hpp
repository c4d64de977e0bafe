#pragma once
// Links between GPUs as data: NVLink generations and PCIe inside a node, InfiniBand and RoCE
// Ethernet between nodes, each with its datasheet or specification. The collective-time model
// (collectives.hpp) reads a link's bandwidth and per-step latency from here.
//
// Conventions:
// - bandwidth_bytes_per_s is what ONE GPU can send in one direction at the same time as it
//   receives as much (NVIDIA's headline NVLink figures are both directions added: H100's
//   "900 GB/s" is 450 GB/s each way). Decimal: 1 GB/s = 10^9 B/s.
// - An inter-node link is one network adapter per GPU, as in NVIDIA's DGX A100/H100/B200
//   (eight adapters for eight GPUs); its bandwidth is that adapter's line rate.
// - bus_efficiency scales the line rate to what NCCL reaches (nccl-tests' bus bandwidth, as
//   NCCL's maintainers state it for each link class); the collectives run at that rate.
// - step_latency_s is NCCL's per-step latency of its ring algorithm with the Simple protocol
//   (src/graph/tuning.cc, hwLat: NVLink 3.4 us, PCI 5.7 us, network 9.6 us per step), added
//   to its base latency kCollectiveBaseLatency once per collective.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

struct Gpu;

/// Where a link sits: between the GPUs of one node, or between nodes.
enum class LinkScope { kIntraNode, kInterNode };

const char* linkScopeName(LinkScope scope);

struct Interconnect {
  std::string id;    ///< "nvlink4", "pcie5-x16", "ib-ndr", "roce-400g", ...
  std::string name;  ///< "NVLink 4 (H100, through NVSwitch)"
  LinkScope scope = LinkScope::kIntraNode;
  double bandwidth_bytes_per_s = 0;  ///< per GPU, per direction, at the line rate
  double step_latency_s = 0;         ///< per ring step (NCCL's hwLat, Simple protocol)
  std::string source;                ///< the specification or datasheet of the figure
  /// Share of the line rate NCCL's ring reaches on this link ("bus bandwidth" of nccl-tests
  /// at large sizes over the line rate): NVLink loses about 20 % to its protocol, a network
  /// adapter a few per cent. 1 where no published figure exists (then the link's collectives
  /// stay a lower bound).
  double bus_efficiency = 1;
  std::string efficiency_source;  ///< the published measurement behind bus_efficiency

  /// What the collectives use: bandwidth_bytes_per_s x bus_efficiency.
  double achievableBandwidth() const { return bandwidth_bytes_per_s * bus_efficiency; }
};

/// NCCL's base latency of one ring collective with the Simple protocol (tuning.cc baseLat,
/// Ring/Simple: 8.4 us), paid once per collective call.
constexpr double kCollectiveBaseLatency = 8.4e-6;

/// How the workload places its GPUs on nodes and links them ("nodes", "gpus_per_node",
/// "intra_node_link", "inter_node_link" in the workload; see workload_schema.cpp).
struct NetworkSettings {
  std::optional<int64_t> nodes;          ///< absent: gpus / gpus_per_node
  std::optional<int64_t> gpus_per_node;  ///< absent: min(gpus, 8), or gpus / nodes
  std::optional<std::string> intra_link;
  std::optional<std::string> inter_link;
};

/// NetworkSettings with every default resolved for a number of GPUs.
struct Network {
  int64_t nodes = 1;
  int64_t gpus_per_node = 1;
  const Interconnect* intra = nullptr;  ///< null only with one GPU per node
  const Interconnect* inter = nullptr;  ///< null only with one node
};

/// GPUs per node when the workload names neither nodes nor GPUs per node: an 8-GPU server
/// (DGX/HGX), or all of them when fewer.
constexpr int64_t kDefaultGpusPerNode = 8;

}  // namespace dlcost
