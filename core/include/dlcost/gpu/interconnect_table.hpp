#pragma once
// The built-in links between GPUs and nodes, and the network a workload's GPUs resolve to.

#include <cstdint>
#include <string>
#include <vector>

#include "dlcost/types/gpu.hpp"
#include "dlcost/types/interconnect.hpp"

namespace dlcost {

/// The built-in links, intra-node first, each group fastest last.
const std::vector<Interconnect>& interconnectPresets();

/// The link with this id (case-sensitive), or nullptr.
const Interconnect* findInterconnect(const std::string& id);

/// The ids of the links of one scope, in table order (the schema's menu).
std::vector<std::string> interconnectIds(LinkScope scope);

/// The link that connects the GPUs of one node when the workload names none: NVLink through
/// NVSwitch for SXM parts of the HGX/DGX systems, the board's PCIe generation otherwise.
/// Empty when dlcost knows none for the GPU (custom GPUs, multi-die boards).
std::string defaultIntraNodeLink(const Gpu& gpu);

/// The network of the GPU's DGX system (one adapter per GPU) when the workload names none;
/// empty when there is no such reference system.
std::string defaultInterNodeLink(const Gpu& gpu);

/// Resolves `s` for `gpus` GPUs of `gpu`. Throws InputError naming the field
/// (/workload/nodes, /workload/gpus_per_node, /workload/intra_node_link,
/// /workload/inter_node_link) when the counts do not multiply to gpus or a needed link has no
/// default.
Network resolveNetwork(const NetworkSettings& s, int64_t gpus, const Gpu& gpu);

}  // namespace dlcost
