#include "dlcost/schema/presets.hpp"

#include "schema/presets_data.hpp"

namespace dlcost {

const std::vector<PresetInfo>& presetList() {
  static const std::vector<PresetInfo> kList = [] {
    std::vector<PresetInfo> list;
    for (size_t i = 0; i < kPresetCount; ++i) {
      const PresetEntry& e = kPresetEntries[i];
      list.push_back({e.name, e.family, e.source, e.source_zh});
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
