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
  const ScaledDecimals d = scaledDecimals();
  return {{"bytes",
           {{"GiB", byteUnitJson(ByteUnits::kBinary)}, {"GB", byteUnitJson(ByteUnits::kDecimal)}}},
          {"count", prefixesJson(countPrefixes())},
          {"scaled_decimals",
           {{"decimals", d.decimals},
            {"large_from", d.large_from},
            {"large_decimals", d.large_decimals}}}};
}

}  // namespace dlcost
