#pragma once
// Reading one layer object's type-specific fields (schema version 1).

#include <string>

#include "dlcost/types/layer.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

/// Every layer `type` the schema accepts, in documentation order.
const std::vector<std::string>& layerTypeNames();

/// Parses the fields of a layer of `type` (already known to be a string). Rejects unknown
/// fields; `common` are the fields every layer may carry (type, name, inputs).
LayerSpec parseLayerSpec(const std::string& type, const ObjectReader& reader);

/// How many inputs a layer of this spec takes: 1, 2, 0 for "two or more", -1 for "one or
/// more".
int inputArity(const LayerSpec& spec);

}  // namespace dlcost
