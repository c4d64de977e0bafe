#pragma once
// The JSON path an InputError names, for tests that check which field a refusal points at.

#include <string>

#include "dlcost/base/error.hpp"

namespace dlcost::testing {

/// Runs `f`; the path of the InputError it throws, or "" when it throws none.
template <typename F>
std::string errorPath(F f) {
  try {
    f();
  } catch (const dlcost::InputError& e) {
    return e.error().path;
  }
  return "";
}

}  // namespace dlcost::testing
