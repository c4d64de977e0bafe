#include "dlcost/units_json.hpp"

#include "dlcost/units.hpp"

namespace dlcost {

namespace {

nlohmann::json prefixesJson(const UnitPrefixes& p) {
  nlohmann::json names = nlohmann::json::array();
  for (int i = 0; i < p.count; ++i) names.push_back(p.names[i]);
  return {{"step", p.step}, {"names", names}};
}

nlohmann::json byteUnitJson(ByteUnits units) {
  nlohmann::json j = prefixesJson(bytePrefixes(units));
  j["bytes_per_unit"] = bytesPerGigaUnit(units);
  return j;
}

}  // namespace

nlohmann::json numberUnitsJson() {
  return {{"bytes",
           {{"GiB", byteUnitJson(ByteUnits::kBinary)}, {"GB", byteUnitJson(ByteUnits::kDecimal)}}},
          {"count", prefixesJson(countPrefixes())}};
}

}  // namespace dlcost
