#pragma once
// The embedded preset table, generated at build time by cmake/embed_presets.cmake.

#include <cstddef>

namespace dlcost {

struct PresetEntry {
  const char* name;
  const char* family;
  const char* source;
  const char* source_zh;  // "" where the preset has no Chinese line
  const char* json;
};

extern const PresetEntry kPresetEntries[];
extern const size_t kPresetCount;

}  // namespace dlcost
