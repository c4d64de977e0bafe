#pragma once
// Expanding a layer-graph model document into its layers.

#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/types/model.hpp"

namespace dlcost {

/// The layer graph of a model document of schema version 1 found at `path`: its "input"
/// shape and its "layers" with every block instance, repeat and parameter expanded, each layer
/// wired to its inputs by name. Throws InputError naming the JSON pointer of the bad field; a
/// model expanding to more than kMaxLayers layers or nesting blocks deeper than
/// kMaxBlockDepth is refused.
LayerGraph expandLayerGraph(const nlohmann::json& model, const std::string& path);

}  // namespace dlcost
