#pragma once
// The unit tables of units.hpp as JSON, for formatters outside the engine (the page's
// web/js/units.js reads them once through the first WebAssembly module's numberUnits()).

#include <nlohmann/json.hpp>

namespace dlcost {

/// {"bytes": {"GiB": {"step": 1024, "names": ["B", "KiB", ...], "bytes_per_unit": 2^30},
///            "GB": {"step": 1000, "names": ["B", "kB", ...], "bytes_per_unit": 10^9}},
///  "count": {"step": 1000, "names": ["", "K", "M", ...]},
///  "scaled_decimals": {"decimals": 2, "large_from": 100, "large_decimals": 1}}. The keys of
/// "bytes" are the page's names of the two conventions (the CLI's --units binary and
/// decimal); "scaled_decimals" is ScaledDecimals, the digits of a scaled figure.
nlohmann::json numberUnitsJson();

}  // namespace dlcost
