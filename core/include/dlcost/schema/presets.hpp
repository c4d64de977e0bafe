#pragma once
// Built-in model presets: architectures written in the model schema, never totals.

#include <string>
#include <vector>

namespace dlcost {

struct PresetInfo {
  std::string name;       ///< e.g. "resnet50"
  std::string family;     ///< e.g. "cnn"
  std::string source;     ///< where the architecture comes from
  std::string source_zh;  ///< the same line in Simplified Chinese, written by hand
};

/// All presets in a stable order.
const std::vector<PresetInfo>& presetList();

/// The preset's model document as JSON text, or nullptr for an unknown name.
const char* presetJson(const std::string& name);

}  // namespace dlcost
