#include "dlcost/base/units.hpp"

#include <cmath>
#include <cstdio>

namespace dlcost {

std::optional<ByteUnits> parseByteUnits(const std::string& name) {
  if (name == "binary" || name == "gib" || name == "iec") return ByteUnits::kBinary;
  if (name == "decimal" || name == "gb" || name == "si") return ByteUnits::kDecimal;
  return std::nullopt;
}

namespace {

const char* const kBinaryNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
const char* const kDecimalNames[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
const char* const kCountNames[] = {"", "K", "M", "G", "T", "P", "E"};

/// A whole number below the first prefix, else scaledDecimals()'s decimals, then " " and the
/// name unless it is empty.
std::string scaled(double value, const UnitPrefixes& p) {
  int i = 0;
  double v = value;
  while (i + 1 < p.count && std::fabs(v) >= p.step) {
    v /= p.step;
    ++i;
  }
  const ScaledDecimals d = scaledDecimals();
  const int decimals = i == 0 ? 0 : std::fabs(v) >= d.large_from ? d.large_decimals : d.decimals;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string out = buf;
  if (*p.names[i] != '\0') out.append(" ").append(p.names[i]);
  return out;
}

}  // namespace

UnitPrefixes bytePrefixes(ByteUnits units) {
  return units == ByteUnits::kBinary ? UnitPrefixes{1024.0, kBinaryNames, 7}
                                     : UnitPrefixes{1000.0, kDecimalNames, 7};
}

UnitPrefixes countPrefixes() {
  return {1000.0, kCountNames, 7};
}

double bytesPerGigaUnit(ByteUnits units) {
  const UnitPrefixes p = bytePrefixes(units);
  return p.step * p.step * p.step;
}

ScaledDecimals scaledDecimals() {
  return {2, 100.0, 1};
}

std::string formatCount(int64_t count) {
  return scaled(static_cast<double>(count), countPrefixes());
}

std::string formatCount(int64_t count, const std::string& unit) {
  const std::string n = formatCount(count);
  return n + (n.back() >= '0' && n.back() <= '9' ? " " : "") + unit;
}

std::string formatCount(WideCount count) {
  return scaled(count.toDouble(), countPrefixes());
}

std::string formatCount(WideCount count, const std::string& unit) {
  const std::string n = formatCount(count);
  return n + (n.back() >= '0' && n.back() <= '9' ? " " : "") + unit;
}

std::string formatBytes(int64_t bytes, ByteUnits units) {
  return scaled(static_cast<double>(bytes), bytePrefixes(units));
}

std::string groupDigits(int64_t value) {
  return groupDigits(WideCount(value));
}

std::string groupDigits(WideCount value) {
  const bool negative = value < 0;
  std::string digits = value.toString();
  if (negative) digits.erase(0, 1);
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n && n % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return negative ? "-" + out : out;
}

}  // namespace dlcost
