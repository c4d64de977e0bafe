#include "dlcost/units.hpp"

#include <cmath>
#include <cstdio>

namespace dlcost {

std::optional<ByteUnits> parseByteUnits(const std::string& name) {
  if (name == "binary" || name == "gib" || name == "iec") return ByteUnits::kBinary;
  if (name == "decimal" || name == "gb" || name == "si") return ByteUnits::kDecimal;
  return std::nullopt;
}

namespace {

std::string scaled(double value, double base, const char* const* suffixes, int count) {
  int i = 0;
  double v = value;
  while (i + 1 < count && std::fabs(v) >= base) {
    v /= base;
    ++i;
  }
  char buf[64];
  if (i == 0) {
    std::snprintf(buf, sizeof buf, "%.0f%s", v, suffixes[0]);
  } else {
    std::snprintf(buf, sizeof buf, std::fabs(v) >= 100 ? "%.1f%s" : "%.2f%s", v, suffixes[i]);
  }
  return buf;
}

}  // namespace

std::string formatCount(int64_t count) {
  static const char* const kSuffixes[] = {"", " K", " M", " G", " T", " P", " E"};
  return scaled(static_cast<double>(count), 1000.0, kSuffixes, 7);
}

std::string formatCount(int64_t count, const std::string& unit) {
  const std::string n = formatCount(count);
  return n + (n.back() >= '0' && n.back() <= '9' ? " " : "") + unit;
}

std::string formatBytes(int64_t bytes, ByteUnits units) {
  static const char* const kBinary[] = {" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB"};
  static const char* const kDecimal[] = {" B", " kB", " MB", " GB", " TB", " PB", " EB"};
  return units == ByteUnits::kBinary ? scaled(static_cast<double>(bytes), 1024.0, kBinary, 7)
                                     : scaled(static_cast<double>(bytes), 1000.0, kDecimal, 7);
}

std::string groupDigits(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -(value + 1) + uint64_t{1} : uint64_t(value));
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n && n % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return value < 0 ? "-" + out : out;
}

}  // namespace dlcost
