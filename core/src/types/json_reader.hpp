#pragma once
// Strict reading of JSON objects: every error names the field's JSON pointer, and fields a
// schema does not define are rejected instead of silently ignored.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/base/error.hpp"
#include "dlcost/types/layer.hpp"

namespace dlcost {

/// Where each field of an object really came from, when a block template substituted a
/// "$parameter" with an argument: errors then point at the argument. Keyed by the field
/// name when the whole field was substituted, by elementOriginKey when one element of an
/// array field was.
using FieldOrigins = std::map<std::string, std::string>;

/// The FieldOrigins key of element `index` of array field `key`.
std::string elementOriginKey(const std::string& key, size_t index);

/// "object", "array", "string", "integer", "number", "boolean" or "null".
const char* jsonTypeName(const nlohmann::json& value);

class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& object, std::string path,
               const FieldOrigins* origins = nullptr);

  const nlohmann::json& object() const { return object_; }
  const std::string& path() const { return path_; }
  std::string pathOf(const std::string& key) const;
  /// JSON pointer of element `index` of array field `key`, following block arguments.
  std::string pathOf(const std::string& key, size_t index) const;
  bool has(const std::string& key) const { return object_.contains(key); }
  const nlohmann::json* find(const std::string& key) const;
  const nlohmann::json& require(const std::string& key) const;

  int64_t requiredInt(const std::string& key, int64_t min, int64_t max) const;
  int64_t optionalInt(const std::string& key, int64_t fallback, int64_t min, int64_t max) const;
  double optionalNumber(const std::string& key, double fallback, double min, double max) const;
  bool optionalBool(const std::string& key, bool fallback) const;
  std::string requiredString(const std::string& key) const;
  std::string optionalString(const std::string& key, const std::string& fallback) const;
  /// An integer or a two-element [h, w] array.
  Pair2 requiredPair(const std::string& key, int64_t min, int64_t max) const;
  Pair2 optionalPair(const std::string& key, Pair2 fallback, int64_t min, int64_t max) const;

  /// Rejects any field not in `allowed`, naming the allowed ones.
  void rejectUnknown(std::initializer_list<const char*> allowed) const;

 private:
  const nlohmann::json& object_;
  std::string path_;
  const FieldOrigins* origins_;
};

/// Reads an integer in [min, max] from `value` at `path`.
int64_t readInt(const nlohmann::json& value, const std::string& path, int64_t min, int64_t max);

}  // namespace dlcost
