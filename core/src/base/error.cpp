#include "dlcost/base/error.hpp"

namespace dlcost {

const char* errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kParse:
      return "parse";
    case ErrorCode::kMissingField:
      return "missing_field";
    case ErrorCode::kUnknownField:
      return "unknown_field";
    case ErrorCode::kType:
      return "type";
    case ErrorCode::kValue:
      return "value";
    case ErrorCode::kShape:
      return "shape";
    case ErrorCode::kGraph:
      return "graph";
    case ErrorCode::kTooLarge:
      return "too_large";
    case ErrorCode::kInternal:
      return "internal";
  }
  return "value";
}

InputError::InputError(ErrorCode code, std::string path, std::string message)
    : InputError(Error{code, std::move(path), std::move(message)}) {}

InputError::InputError(ErrorCode code, std::string path, Text message)
    : InputError(Error{code, std::move(path), std::move(message.en), std::move(message.zh)}) {}

InputError::InputError(Error error)
    : std::runtime_error((error.path.empty() ? std::string("/") : error.path) + ": " +
                         error.message),
      error_(std::move(error)) {}

std::string childPath(const std::string& path, const std::string& key) {
  std::string out = path + "/";
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string childPath(const std::string& path, size_t index) {
  return path + "/" + std::to_string(index);
}

}  // namespace dlcost
