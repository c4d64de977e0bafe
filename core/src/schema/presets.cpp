#include "dlcost/schema/presets.hpp"

#include "schema/presets_data.hpp"

namespace dlcost {

const std::vector<PresetInfo>& presetList() {
  static const std::vector<PresetInfo> kList = [] {
    std::vector<PresetInfo> list;
    for (size_t i = 0; i < kPresetCount; ++i) {
      list.push_back({kPresetEntries[i].name, kPresetEntries[i].family, kPresetEntries[i].source});
    }
    return list;
  }();
  return kList;
}

const char* presetJson(const std::string& name) {
  for (size_t i = 0; i < kPresetCount; ++i) {
    if (name == kPresetEntries[i].name) return kPresetEntries[i].json;
  }
  return nullptr;
}

}  // namespace dlcost
