#pragma once
// Expected failures: bad input named by the JSON pointer of the offending field.

#include <stdexcept>
#include <string>
#include <utility>

#include "dlcost/base/text.hpp"

namespace dlcost {

/// What kind of input problem an Error reports; stable names appear in JSON as `code`.
enum class ErrorCode {
  kParse,         ///< the text is not JSON
  kMissingField,  ///< a required field is absent
  kUnknownField,  ///< a field this schema does not define
  kType,          ///< a field has the wrong JSON type
  kValue,         ///< a field has a value outside its range (zero, negative, unknown name, ...)
  kShape,         ///< shapes do not fit together (conv output <= 0, add of unequal shapes, ...)
  kGraph,         ///< `inputs` names an unknown or later layer
  kTooLarge,      ///< sizes overflow 64-bit arithmetic or the model exceeds the engine's limits
  kInternal,      ///< a bug in dlcost, not in the input (front ends report it, never crash)
};

/// Stable lower-case name of a code, e.g. "missing_field".
const char* errorCodeName(ErrorCode code);

/// One input error: which field (RFC 6901 JSON pointer into the input document, "" for the
/// whole document) and why, in a sentence meant for the user.
struct Error {
  Error() = default;
  Error(ErrorCode c, std::string at, std::string en, std::string zh = "")
      : code(c), path(std::move(at)), message(std::move(en)), message_zh(std::move(zh)) {}

  ErrorCode code = ErrorCode::kValue;
  std::string path;
  std::string message;     ///< English (the CLI's)
  std::string message_zh;  ///< Chinese, where the sentence is written in both; else empty
};

/// Thrown inside the engine and caught at its boundaries (CLI, wasm bindings), which turn it
/// back into an Error value; no partial result escapes with it.
class InputError : public std::runtime_error {
 public:
  InputError(ErrorCode code, std::string path, std::string message);
  /// A message written in both languages.
  InputError(ErrorCode code, std::string path, Text message);
  explicit InputError(Error error);
  const Error& error() const { return error_; }

 private:
  Error error_;
};

/// Appends a key or index to a JSON pointer, escaping '~' and '/' as RFC 6901 requires.
std::string childPath(const std::string& path, const std::string& key);
std::string childPath(const std::string& path, size_t index);

}  // namespace dlcost
