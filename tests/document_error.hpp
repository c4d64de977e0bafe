#pragma once
// The error a whole document ({"model", "workload"}) is refused with, for tests that check a
// refusal's field and message. Include after catch2/catch.hpp.

#include <nlohmann/json.hpp>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"

namespace dlcost::testing {

/// The InputError estimateDocument(doc) throws; a failed test when it throws none.
inline dlcost::Error errorOf(const nlohmann::json& doc) {
  try {
    dlcost::estimateDocument(doc);
  } catch (const dlcost::InputError& e) {
    return e.error();
  }
  FAIL("no error for " << doc.dump());
  return {};
}

}  // namespace dlcost::testing
