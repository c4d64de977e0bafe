#include "dlcost/base/units_json.hpp"

#include "dlcost/base/units.hpp"

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
  nlohmann::json j = {
      {"bytes",
       {{"GiB", byteUnitJson(ByteUnits::kBinary)}, {"GB", byteUnitJson(ByteUnits::kDecimal)}}},
      {"count", prefixesJson(countPrefixes())}};
  // Assigned, not a fourth entry of the list above: nlohmann's nested initializer lists cost
  // the first WebAssembly module 389 B gzipped more for these three numbers.
  const ScaledDecimals d = scaledDecimals();
  nlohmann::json& decimals = j["scaled_decimals"];
  decimals["decimals"] = d.decimals;
  decimals["large_from"] = d.large_from;
  decimals["large_decimals"] = d.large_decimals;
  return j;
}

}  // namespace dlcost
