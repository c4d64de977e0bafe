#include "types/json_reader.hpp"

#include <cmath>

namespace dlcost {

using nlohmann::json;

const char* jsonTypeName(const json& value) {
  if (value.is_object()) return "object";
  if (value.is_array()) return "array";
  if (value.is_string()) return "string";
  if (value.is_boolean()) return "boolean";
  if (value.is_number_integer()) return "integer";
  if (value.is_number()) return "number";
  if (value.is_null()) return "null";
  return "value";
}

ObjectReader::ObjectReader(const json& object, std::string path, const FieldOrigins* origins)
    : object_(object), path_(std::move(path)), origins_(origins) {
  if (!object_.is_object()) {
    throw InputError(ErrorCode::kType, path_,
                     std::string("must be an object, not ") + jsonTypeName(object_));
  }
}

std::string ObjectReader::pathOf(const std::string& key) const {
  if (origins_) {
    auto it = origins_->find(key);
    if (it != origins_->end()) return it->second;
  }
  return childPath(path_, key);
}

std::string elementOriginKey(const std::string& key, size_t index) {
  // The unit separator cannot clash with a field name anyone writes.
  return key + '\x1f' + std::to_string(index);
}

std::string ObjectReader::pathOf(const std::string& key, size_t index) const {
  if (origins_) {
    auto it = origins_->find(elementOriginKey(key, index));
    if (it != origins_->end()) return it->second;
  }
  return childPath(pathOf(key), index);
}

const json* ObjectReader::find(const std::string& key) const {
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

const json& ObjectReader::require(const std::string& key) const {
  const json* v = find(key);
  if (!v) {
    throw InputError(ErrorCode::kMissingField, childPath(path_, key),
                     Text{"required field '" + key + "' is missing", "缺少必填字段 '" + key + "'"});
  }
  return *v;
}

namespace {

Text mustBe(const std::string& what_en, const std::string& what_zh, const std::string& value) {
  return {"must be " + what_en + ", not " + value, "必须是" + what_zh + "，而不是 " + value};
}

Text atLeast(int64_t min, int64_t value) {
  return {"must be at least " + std::to_string(min) + ", not " + std::to_string(value),
          "必须至少为 " + std::to_string(min) + "，而不是 " + std::to_string(value)};
}

Text aboveLargest(const std::string& value, int64_t max) {
  return {"is " + value + ", above the largest allowed " + std::to_string(max),
          "为 " + value + "，超过允许的最大值 " + std::to_string(max)};
}

}  // namespace

int64_t readInt(const json& value, const std::string& path, int64_t min, int64_t max) {
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() > static_cast<uint64_t>(max)) {
      throw InputError(ErrorCode::kTooLarge, path, aboveLargest(value.dump(), max));
    }
    int64_t v = static_cast<int64_t>(value.get<uint64_t>());
    if (v < min) {
      throw InputError(ErrorCode::kValue, path, atLeast(min, v));
    }
    return v;
  }
  if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    if (v < min) {
      throw InputError(ErrorCode::kValue, path, atLeast(min, v));
    }
    if (v > max) {
      throw InputError(ErrorCode::kTooLarge, path, aboveLargest(std::to_string(v), max));
    }
    return v;
  }
  if (value.is_number_float()) {
    throw InputError(ErrorCode::kType, path, mustBe("an integer", "整数", value.dump()));
  }
  throw InputError(ErrorCode::kType, path, mustBe("an integer", "整数", jsonTypeName(value)));
}

int64_t ObjectReader::requiredInt(const std::string& key, int64_t min, int64_t max) const {
  return readInt(require(key), pathOf(key), min, max);
}

int64_t ObjectReader::optionalInt(const std::string& key, int64_t fallback, int64_t min,
                                  int64_t max) const {
  const json* v = find(key);
  return v ? readInt(*v, pathOf(key), min, max) : fallback;
}

double ObjectReader::optionalNumber(const std::string& key, double fallback, double min,
                                    double max) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_number()) {
    throw InputError(ErrorCode::kType, pathOf(key), mustBe("a number", "数字", jsonTypeName(*v)));
  }
  double d = v->get<double>();
  if (!std::isfinite(d) || d < min || d > max) {
    throw InputError(ErrorCode::kValue, pathOf(key),
                     Text{"must be between " + json(min).dump() + " and " + json(max).dump() +
                              ", not " + v->dump(),
                          "必须在 " + json(min).dump() + " 到 " + json(max).dump() +
                              " 之间，而不是 " + v->dump()});
  }
  return d;
}

bool ObjectReader::optionalBool(const std::string& key, bool fallback) const {
  const json* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) {
    throw InputError(ErrorCode::kType, pathOf(key),
                     mustBe("true or false", " true 或 false", jsonTypeName(*v)));
  }
  return v->get<bool>();
}

std::string ObjectReader::requiredString(const std::string& key) const {
  const json& v = require(key);
  if (!v.is_string()) {
    throw InputError(ErrorCode::kType, pathOf(key), mustBe("a string", "字符串", jsonTypeName(v)));
  }
  return v.get<std::string>();
}

std::string ObjectReader::optionalString(const std::string& key,
                                         const std::string& fallback) const {
  return has(key) ? requiredString(key) : fallback;
}

Pair2 ObjectReader::requiredPair(const std::string& key, int64_t min, int64_t max) const {
  const json& v = require(key);
  const std::string p = pathOf(key);
  if (v.is_array()) {
    if (v.size() != 2) {
      throw InputError(
          ErrorCode::kValue, p,
          Text{
              "must be one integer or [height, width], not " + std::to_string(v.size()) + " values",
              "必须是一个整数或 [高, 宽]，而不是 " + std::to_string(v.size()) + " 个值"});
    }
    return {readInt(v[0], pathOf(key, 0), min, max), readInt(v[1], pathOf(key, 1), min, max)};
  }
  int64_t n = readInt(v, p, min, max);
  return {n, n};
}

Pair2 ObjectReader::optionalPair(const std::string& key, Pair2 fallback, int64_t min,
                                 int64_t max) const {
  return has(key) ? requiredPair(key, min, max) : fallback;
}

void ObjectReader::rejectUnknown(std::initializer_list<const char*> allowed) const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    bool known = false;
    for (const char* a : allowed) known = known || it.key() == a;
    if (!known) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      throw InputError(ErrorCode::kUnknownField, pathOf(it.key()),
                       Text{"unknown field '" + it.key() + "' (allowed here: " + list + ")",
                            "未知字段 '" + it.key() + "'（此处允许：" + list + "）"});
    }
  }
}

}  // namespace dlcost
