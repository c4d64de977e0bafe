#pragma once
// The one rule both WebAssembly modules follow at their boundary: no exception crosses into
// JavaScript (it would arrive as a bare pointer). Every bound function runs its body through
// guarded(), which turns any escaping exception into {"error": {"code", "path", "message"}}.
// This only works because the modules are compiled and linked with the exception flag (see
// wasm/CMakeLists.txt).

#include <cstdint>
#include <exception>
#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/report/report_json.hpp"

namespace dlcost_wasm {

inline std::string internalError(const std::string& what) {
  return dlcost::dumpJson(dlcost::errorToJson(
      dlcost::Error{dlcost::ErrorCode::kInternal, "", "internal error: " + what}));
}

/// Runs `body`, turning any escaping exception into the structured error object.
template <typename Body>
std::string guarded(Body body) {
  try {
    return body();
  } catch (const dlcost::InputError& e) {
    return dlcost::dumpJson(dlcost::errorToJson(e.error()));
  } catch (const std::exception& e) {
    return internalError(e.what());
  } catch (...) {
    return internalError("unknown exception");
  }
}

/// For debugging only: the message of a C++ exception whose pointer reached JavaScript
/// (e.g. from an abort), which Embind otherwise shows as a bare number. Both modules bind it.
inline std::string exceptionMessage(uintptr_t exception_ptr) {
  if (exception_ptr == 0) return "";
  return reinterpret_cast<const std::exception*>(exception_ptr)->what();
}

}  // namespace dlcost_wasm
