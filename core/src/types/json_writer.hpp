#pragma once
// JSON text written directly, byte for byte what dumpJson (nlohmann::json's dump(): no indent,
// invalid UTF-8 replaced) prints for the same values: an object's members sorted by key, as
// nlohmann::json's std::map keeps them, numbers as its serializer prints them. The report's
// writers use it instead of building nlohmann::json objects: that construction, inlined into
// each writer, was about a tenth of the first WebAssembly module (docs/benchmarks.md,
// "Session 5").

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "dlcost/base/wide_count.hpp"
#include "dlcost/types/shape.hpp"

namespace dlcost {

class JsonObject;
class JsonArray;

/// Appends one value's JSON text to `out`.
void appendJson(std::string& out, bool value);
void appendJson(std::string& out, double value);  ///< non-finite: null, as dump() writes it
void appendJson(std::string& out, std::string_view text);
void appendJson(std::string& out, std::nullptr_t);
void appendJson(std::string& out, const nlohmann::json& value);
void appendJson(std::string& out, const JsonObject& object);
void appendJson(std::string& out, const JsonArray& array);
void appendSigned(std::string& out, int64_t value);
void appendUnsigned(std::string& out, uint64_t value);
/// An exact integer however wide (JSON numbers have no width; readers beyond 64 bits round).
inline void appendJson(std::string& out, WideCount value) {
  out += value.toString();
}

inline void appendJson(std::string& out, const char* text) {
  appendJson(out, std::string_view(text));
}
inline void appendJson(std::string& out, const std::string& text) {
  appendJson(out, std::string_view(text));
}
template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
void appendJson(std::string& out, T value) {
  if constexpr (std::is_signed_v<T>) {
    appendSigned(out, value);
  } else {
    appendUnsigned(out, value);
  }
}
inline void appendJson(std::string& out, float value) {
  appendJson(out, static_cast<double>(value));
}
template <typename T>
void appendJson(std::string& out, const std::optional<T>& value) {
  if (value) {
    appendJson(out, *value);
  } else {
    out += "null";
  }
}
template <typename T>
void appendJson(std::string& out, const std::vector<T>& values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    appendJson(out, values[i]);
  }
  out += ']';
}
/// A shape as an array of integers (without this, it would go through nlohmann::json).
void appendJson(std::string& out, const Shape& shape);

/// An object whose members are added in any order and written sorted by key. Each key once;
/// keys are literals (or outlive the object).
class JsonObject {
 public:
  template <typename T>
  JsonObject& add(std::string_view key, const T& value) {
    // Room for a typical object at once instead of growing one member at a time.
    if (members_.empty()) members_.reserve(16);
    members_.push_back({key, values_.size()});
    appendJson(values_, value);
    return *this;
  }
  /// The object's JSON text.
  std::string str() const;
  /// Appends the object's JSON text to `out`.
  void appendTo(std::string& out) const;

 private:
  struct Member {
    std::string_view key;
    size_t begin;  ///< where its value starts in values_ (it ends where the next one starts)
  };
  std::vector<Member> members_;
  std::string values_;  ///< the members' values, one after another, in the order added
};

/// An array, its elements in the order pushed.
class JsonArray {
 public:
  template <typename T>
  JsonArray& push(const T& value) {
    text_ += text_.empty() ? '[' : ',';
    appendJson(text_, value);
    return *this;
  }
  /// The array's JSON text.
  std::string str() const { return text_.empty() ? "[]" : text_ + ']'; }
  /// Appends the array's JSON text to `out`.
  void appendTo(std::string& out) const {
    if (text_.empty()) {
      out += "[]";
    } else {
      out += text_;
      out += ']';
    }
  }

 private:
  std::string text_;
};

/// A wide count as a nlohmann::json number: an integer where 64 bits hold it, else the nearest
/// double (nlohmann::json has no wider integer; appendJson writes every digit).
inline nlohmann::json wideToJson(WideCount value) {
  return value.fitsInt64() ? nlohmann::json(value.toInt64()) : nlohmann::json(value.toDouble());
}

/// A JsonObject as a nlohmann::json document (for the callers that want a document).
nlohmann::json toDocument(const JsonObject& object);

}  // namespace dlcost
