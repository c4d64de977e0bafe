#pragma once
// One way to read an enum from its name: every enum of the engine lists its values in a
// kXxx array and names each with an xxxName function; parsing is the inverse of that name,
// so a value's spelling is written once.

#include <cstddef>
#include <optional>
#include <string>

namespace dlcost {

/// The value of `all` whose `name` is `text`, or nullopt.
template <typename Enum, size_t N>
std::optional<Enum> parseEnum(const Enum (&all)[N], const char* (*name)(Enum),
                              const std::string& text) {
  for (Enum e : all) {
    if (text == name(e)) return e;
  }
  return std::nullopt;
}

}  // namespace dlcost
