// The link table and the placement of a workload's GPUs on nodes. Every bandwidth is per GPU
// and per direction (dlcost/interconnect.hpp); every latency is NCCL's per-step figure for
// its ring algorithm with the Simple protocol (NVIDIA/nccl src/graph/tuning.cc, hwLat).

#include "dlcost/types/interconnect.hpp"

#include <algorithm>

#include "dlcost/base/error.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "dlcost/types/gpu.hpp"

namespace dlcost {

namespace {

constexpr double kGBs = 1e9;
// NCCL tuning.cc hwLat, Ring/Simple column, in seconds per step.
constexpr double kNvlinkStep = 3.4e-6;
constexpr double kPciStep = 5.7e-6;
constexpr double kNetStep = 9.6e-6;
// Bus bandwidth NCCL reaches at large sizes over the line rate, as NCCL's maintainers state it.
constexpr double kNvlinkEfficiency = 370.0 / 450.0;
constexpr const char* kNvlinkSource =
    "NVIDIA/nccl-tests issue 212 (S. Jeaugey, NCCL, 2024-05): H100's 450 GB/s line rate less "
    "~20 % NVLink protocol overhead: an effective 370 GB/s (ring); the same protocol on every "
    "NVLink generation (DGX A100 measures 232 GB/s of 300 all-reduce bus bandwidth, "
    "nccl-tests issue 175)";
constexpr const char* kEdrSource =
    "NVIDIA/nccl-tests issue 29 (S. Jeaugey, NCCL, 2019-12): 12.2 GB/s is as good as a "
    "100 Gb/s adapter gets";
constexpr const char* kHdrSource =
    "NVIDIA/nccl issue 412 (S. Jeaugey, NCCL, 2023-04): 24 GB/s inter-node bus bandwidth on "
    "one 200 Gb/s HDR adapter";
/// NDR: 46-48 GB/s per 400 Gb/s adapter; the middle, 47.
constexpr double kNdrEfficiency = 47.0 / 50.0;
constexpr const char* kNdrSource =
    "NVIDIA/nccl-tests issues 290 and 267 (D. Addison, NCCL, 2025): 46-48 GB/s per 400 Gb/s "
    "NDR adapter (47 taken), the same for ConnectX-7 over RoCE";
constexpr const char* kXdrSource =
    "no published NCCL figure for XDR: NDR's 47 of 50 GB/s (nccl-tests issue 290) carried over";
constexpr const char* kNoEfficiency =
    "no published NCCL bus bandwidth for this link: the line rate (a lower bound on the time)";

/// One PCIe link in one direction: lanes x transfer rate x 128b/130b encoding / 8 bits.
constexpr double pcie(int lanes, double gigatransfers) {
  return lanes * gigatransfers * 1e9 * 128.0 / 130.0 / 8.0;
}
constexpr double pcieX16(double gigatransfers) {
  return pcie(16, gigatransfers);
}
/// A network adapter's line rate in Gb/s as bytes per second.
constexpr double gigabits(double gbps) {
  return gbps * 1e9 / 8.0;
}

std::vector<Interconnect> buildTable() {
  const LinkScope intra = LinkScope::kIntraNode, inter = LinkScope::kInterNode;
  return {
      {"pcie3-x16", "PCIe 3.0 x16", intra, pcieX16(8), kPciStep,
       "PCI Express Base Specification 3.0: 8 GT/s per lane, 128b/130b encoding", 1, kNoEfficiency},
      {"pcie4-x16", "PCIe 4.0 x16", intra, pcieX16(16), kPciStep,
       "PCI Express Base Specification 4.0: 16 GT/s per lane, 128b/130b encoding", 1,
       kNoEfficiency},
      // Mid-range cards wire half the lanes (RTX 4060 Ti: PCI Express 4.0 x8).
      {"pcie4-x8", "PCIe 4.0 x8", intra, pcie(8, 16), kPciStep,
       "PCI Express Base Specification 4.0: 16 GT/s per lane, 128b/130b encoding; 8 lanes", 1,
       kNoEfficiency},
      {"pcie5-x16", "PCIe 5.0 x16", intra, pcieX16(32), kPciStep,
       "PCI Express Base Specification 5.0: 32 GT/s per lane, 128b/130b encoding", 1,
       kNoEfficiency},
      // NVLink figures are NVIDIA's per-GPU totals of both directions, halved; within a node
      // every GPU reaches every other at that rate through NVSwitch (HGX-2/DGX-2 for V100,
      // DGX A100, DGX H100, DGX B200).
      {"nvlink2", "NVLink 2 (V100, through NVSwitch)", intra, 150 * kGBs, kNvlinkStep,
       "NVIDIA Tesla V100 datasheet: NVLink 300 GB/s (6 links x 25 GB/s each way); "
       "NVSwitch in HGX-2/DGX-2",
       kNvlinkEfficiency, kNvlinkSource},
      {"nvlink3", "NVLink 3 (A100, through NVSwitch)", intra, 300 * kGBs, kNvlinkStep,
       "NVIDIA A100 Tensor Core GPU datasheet: NVLink 600 GB/s (12 links x 25 GB/s each way); "
       "NVSwitch in DGX A100",
       kNvlinkEfficiency, kNvlinkSource},
      {"nvlink4", "NVLink 4 (H100/H200, through NVSwitch)", intra, 450 * kGBs, kNvlinkStep,
       "NVIDIA H100 Tensor Core GPU datasheet: NVLink 900 GB/s (18 links x 25 GB/s each way); "
       "NVSwitch in DGX H100",
       kNvlinkEfficiency, kNvlinkSource},
      {"nvlink5", "NVLink 5 (B200, through NVSwitch)", intra, 900 * kGBs, kNvlinkStep,
       "NVIDIA DGX B200 datasheet: fifth-generation NVLink, 1.8 TB/s per GPU (18 links x "
       "50 GB/s each way)",
       kNvlinkEfficiency, kNvlinkSource},
      // AMD's xGMI: the 8 OAM GPUs of an MI300X platform are fully connected; RCCL rings use
      // every link at once. Latency: NCCL's NVLink figure (RCCL files xGMI as its NVLink class).
      {"xgmi-mi300x", "AMD Infinity Fabric (MI300X platform, fully connected)", intra, 448 * kGBs,
       kNvlinkStep,
       "AMD Instinct MI300X data sheet: 7 Infinity Fabric links of 128 GB/s peak (both "
       "directions) per GPU: 448 GB/s each way",
       1, kNoEfficiency},
      {"roce-100g", "RoCE Ethernet 100 Gb/s", inter, gigabits(100), kNetStep,
       "IEEE 802.3 100GBASE Ethernet line rate (one adapter per GPU)", 12.2 / 12.5, kEdrSource},
      {"ib-edr", "InfiniBand EDR 100 Gb/s", inter, gigabits(100), kNetStep,
       "InfiniBand Trade Association roadmap: EDR 4x = 100 Gb/s (DGX-2: 8 EDR adapters)",
       12.2 / 12.5, kEdrSource},
      {"roce-200g", "RoCE Ethernet 200 Gb/s", inter, gigabits(200), kNetStep,
       "IEEE 802.3 200GBASE Ethernet line rate (one adapter per GPU)", 24.0 / 25.0, kHdrSource},
      {"ib-hdr", "InfiniBand HDR 200 Gb/s", inter, gigabits(200), kNetStep,
       "InfiniBand Trade Association roadmap: HDR 4x = 200 Gb/s (DGX A100: 8 ConnectX-6 HDR "
       "adapters for compute)",
       24.0 / 25.0, kHdrSource},
      {"roce-400g", "RoCE Ethernet 400 Gb/s", inter, gigabits(400), kNetStep,
       "IEEE 802.3 400GBASE Ethernet line rate (one adapter per GPU)", kNdrEfficiency, kNdrSource},
      {"ib-ndr", "InfiniBand NDR 400 Gb/s", inter, gigabits(400), kNetStep,
       "InfiniBand Trade Association roadmap: NDR 4x = 400 Gb/s (DGX H100/B200: 8 ConnectX-7 "
       "NDR adapters for compute)",
       kNdrEfficiency, kNdrSource},
      {"ib-xdr", "InfiniBand XDR 800 Gb/s", inter, gigabits(800), kNetStep,
       "InfiniBand Trade Association roadmap: XDR 4x = 800 Gb/s (NVIDIA Quantum-X800, "
       "ConnectX-8)",
       kNdrEfficiency, kXdrSource},
  };
}

const Interconnect& requireLink(const std::string& id, LinkScope scope, const std::string& path) {
  const Interconnect* link = findInterconnect(id);
  if (!link || link->scope != scope) {
    std::string known;
    for (const std::string& k : interconnectIds(scope)) known += (known.empty() ? "" : ", ") + k;
    throw InputError(ErrorCode::kValue, path, "unknown link '" + id + "' (known: " + known + ")");
  }
  return *link;
}

}  // namespace

const char* linkScopeName(LinkScope scope) {
  return scope == LinkScope::kIntraNode ? "intra_node" : "inter_node";
}

const std::vector<Interconnect>& interconnectPresets() {
  static const std::vector<Interconnect> kTable = buildTable();
  return kTable;
}

const Interconnect* findInterconnect(const std::string& id) {
  for (const Interconnect& l : interconnectPresets())
    if (l.id == id) return &l;
  return nullptr;
}

std::vector<std::string> interconnectIds(LinkScope scope) {
  std::vector<std::string> ids;
  for (const Interconnect& l : interconnectPresets())
    if (l.scope == scope) ids.push_back(l.id);
  return ids;
}

std::string defaultIntraNodeLink(const Gpu& gpu) {
  return gpu.intra_node_link;
}

std::string defaultInterNodeLink(const Gpu& gpu) {
  return gpu.inter_node_link;
}

Network resolveNetwork(const NetworkSettings& s, int64_t gpus, const Gpu& gpu) {
  Network n;
  if (s.nodes && s.gpus_per_node) {
    if (*s.nodes * *s.gpus_per_node != gpus) {
      throw InputError(ErrorCode::kValue, "/workload/nodes",
                       std::to_string(*s.nodes) + " nodes x " + std::to_string(*s.gpus_per_node) +
                           " GPUs per node is not the workload's " + std::to_string(gpus) +
                           " GPUs (gpus)");
    }
    n.nodes = *s.nodes;
    n.gpus_per_node = *s.gpus_per_node;
  } else if (s.nodes) {
    if (*s.nodes > gpus || gpus % *s.nodes != 0) {
      throw InputError(ErrorCode::kValue, "/workload/nodes",
                       std::to_string(gpus) + " GPUs (gpus) do not split evenly over " +
                           std::to_string(*s.nodes) + " nodes");
    }
    n.nodes = *s.nodes;
    n.gpus_per_node = gpus / n.nodes;
  } else {
    const int64_t per_node = s.gpus_per_node.value_or(kDefaultGpusPerNode);
    n.gpus_per_node = std::min(per_node, gpus);
    if (gpus % n.gpus_per_node != 0) {
      throw InputError(ErrorCode::kValue, "/workload/gpus_per_node",
                       std::to_string(gpus) + " GPUs (gpus) do not fill whole nodes of " +
                           std::to_string(n.gpus_per_node) + " GPUs");
    }
    n.nodes = gpus / n.gpus_per_node;
  }
  if (n.gpus_per_node > 1) {
    const std::string id = s.intra_link.value_or(defaultIntraNodeLink(gpu));
    if (id.empty()) {
      throw InputError(ErrorCode::kMissingField, "/workload/intra_node_link",
                       "dlcost knows no default link between " + gpu.name +
                           " GPUs in one node: name one (intra_node_link)");
    }
    n.intra = &requireLink(id, LinkScope::kIntraNode, "/workload/intra_node_link");
  }
  if (n.nodes > 1) {
    const std::string id = s.inter_link.value_or(defaultInterNodeLink(gpu));
    if (id.empty()) {
      throw InputError(ErrorCode::kMissingField, "/workload/inter_node_link",
                       "dlcost knows no reference network for " + gpu.name +
                           " nodes: name the link between nodes (inter_node_link)");
    }
    n.inter = &requireLink(id, LinkScope::kInterNode, "/workload/inter_node_link");
  }
  return n;
}

}  // namespace dlcost
