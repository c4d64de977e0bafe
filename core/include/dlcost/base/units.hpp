#pragma once
// Human-readable numbers. Counts use decimal prefixes (G = 10^9, as "GMACs" are published);
// bytes use either binary (GiB = 2^30) or decimal (GB = 10^9) units, always labelled.

#include <cstdint>
#include <optional>
#include <string>

#include "dlcost/base/wide_count.hpp"

namespace dlcost {

enum class ByteUnits { kBinary, kDecimal };

std::optional<ByteUnits> parseByteUnits(const std::string& name);

/// "25.56 M", "4.09 G" (decimal prefixes, 3 significant digits at least); "512" below 1000.
std::string formatCount(int64_t count);
/// A count with its unit: "4.09 GMACs", "512 MACs".
std::string formatCount(int64_t count, const std::string& unit);
/// The same for a step's totals (MACs, FLOPs), which may pass 64 bits.
std::string formatCount(WideCount count);
std::string formatCount(WideCount count, const std::string& unit);
/// "97.49 MiB" or "102.2 MB".
std::string formatBytes(int64_t bytes, ByteUnits units);
/// "25,557,032"
std::string groupDigits(int64_t value);
std::string groupDigits(WideCount value);

/// A unit and its prefixes, each `step` times the one before: "B", "KiB", "MiB", ... with step
/// 1024. The formatters above and the page's (web/js/units.js, through numberUnitsJson) read
/// these tables, so the convention is written once.
struct UnitPrefixes {
  double step;
  const char* const* names;  ///< names[0] is the unit itself ("B", or "" for a bare count)
  int count;
};
UnitPrefixes bytePrefixes(ByteUnits units);
UnitPrefixes countPrefixes();
/// Bytes in one GiB (binary) or GB (decimal): the unit of the page's memory fields.
double bytesPerGigaUnit(ByteUnits units);

/// The decimals of a figure scaled to a prefix (1 K, 1 KiB, 1 kB and up; figures below the
/// first prefix are whole): `decimals`, or `large_decimals` from `large_from` up, so that
/// three or four digits show ("97.49 MiB", "512.0 GiB"). The formatters above and the page's
/// (through numberUnitsJson) read it.
struct ScaledDecimals {
  int decimals;
  double large_from;
  int large_decimals;
};
ScaledDecimals scaledDecimals();

}  // namespace dlcost
