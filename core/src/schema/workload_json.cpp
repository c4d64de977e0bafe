// The workload object in JSON and as text, by the workload schema: one reader for documents,
// CLI flags and the page's form, so that "2.0", "1e3" and " 4 " mean the same everywhere.

#include "dlcost/schema/workload_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "dlcost/base/error.hpp"
#include "dlcost/serving/serving.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

/// Doubles hold every integer up to 2^53 exactly; a larger one written with a fraction or an
/// exponent may already have been rounded by the JSON reader.
constexpr double kExactIntegerLimit = 9007199254740992.0;

/// Throws `problem`, followed by what the field accepts, in both languages.
[[noreturn]] void fail(ErrorCode code, const WorkloadField& f, const std::string& path,
                       const Text& problem) {
  const Text accepts = describeAcceptedText(f);
  throw InputError(code, path,
                   Text{problem.en + " (" + f.key + ": " + accepts.en + ")",
                        problem.zh + "（" + f.key + "：" + accepts.zh + "）"});
}

Text atLeast(const WorkloadField& f, const std::string& value) {
  return {"must be at least " + formatBound(f.min) + ", not " + value,
          "必须至少为 " + formatBound(f.min) + "，而不是 " + value};
}

Text aboveLargest(const std::string& value, const WorkloadField& f) {
  return {"is " + value + ", above the largest allowed " + formatBound(f.max),
          "为 " + value + "，超过允许的最大值 " + formatBound(f.max)};
}

/// "must be <what>, not <value>".
Text mustBe(const std::string& what_en, const std::string& what_zh, const std::string& value) {
  return {"must be " + what_en + ", not " + value, "必须是" + what_zh + "，而不是 " + value};
}

json checkInteger(const WorkloadField& f, const json& v, const std::string& path) {
  int64_t n = 0;
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    fail(ErrorCode::kTooLarge, f, path, aboveLargest(v.dump(), f));
  } else if (v.is_number_integer()) {
    n = v.get<int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::floor(d) != d) fail(ErrorCode::kType, f, path, mustBe("an integer", "整数", v.dump()));
    if (std::fabs(d) > kExactIntegerLimit)
      fail(ErrorCode::kTooLarge, f, path, aboveLargest(v.dump(), f));
    n = static_cast<int64_t>(d);
  } else {
    fail(ErrorCode::kType, f, path, mustBe("an integer", "整数", jsonTypeName(v)));
  }
  // Integer bounds are whole and at most 2^60, exact as doubles: compare as integers.
  if (n < static_cast<int64_t>(f.min)) {
    fail(ErrorCode::kValue, f, path, atLeast(f, std::to_string(n)));
  }
  if (n > static_cast<int64_t>(f.max))
    fail(ErrorCode::kTooLarge, f, path, aboveLargest(std::to_string(n), f));
  return n;
}

json checkNumber(const WorkloadField& f, const json& v, const std::string& path) {
  if (!v.is_number()) {
    fail(ErrorCode::kType, f, path, mustBe("a number", "数字", jsonTypeName(v)));
  }
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < f.min) fail(ErrorCode::kValue, f, path, atLeast(f, v.dump()));
  if (d > f.max || (f.max_exclusive && d >= f.max)) {
    const std::string max = formatBound(f.max);
    fail(ErrorCode::kValue, f, path,
         f.max_exclusive ? mustBe("below " + max, "小于 " + max + " 的数字", v.dump())
                         : mustBe("at most " + max, "不大于 " + max + " 的数字", v.dump()));
  }
  return d;
}

json checkEnum(const WorkloadField& f, const json& v, const std::string& path) {
  if (!v.is_string()) {
    fail(ErrorCode::kType, f, path, mustBe("a string", "字符串", jsonTypeName(v)));
  }
  const std::string& s = v.get_ref<const std::string&>();
  for (const EnumValue& e : f.values)
    if (e.name == s) return s;
  for (const auto& [other, value] : f.aliases)
    if (other == s) return value;
  Text accepts = describeAcceptedText(f);
  throw InputError(ErrorCode::kValue, path,
                   Text{accepts.en.replace(0, 6, "must be one of") + ", not \"" + s + "\"",
                        "必须是" + accepts.zh + "，而不是 \"" + s + "\""});
}

json checkNameList(const WorkloadField& f, const json& v, const std::string& path) {
  std::vector<std::string> names;
  if (v.is_string()) {
    // "q_proj,v_proj", as the CLI flag and the page's field give it.
    std::string item;
    for (char ch : v.get<std::string>() + ",") {
      if (ch == ',') {
        if (!item.empty()) names.push_back(item);
        item.clear();
      } else if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
        item += ch;  // module names hold no white space: drop it wherever it is
      }
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        throw InputError(ErrorCode::kType, childPath(path, i),
                         mustBe("a module name", "模块名", jsonTypeName(v[i])));
      }
      names.push_back(v[i].get<std::string>());
    }
  } else {
    fail(ErrorCode::kType, f, path, mustBe("names", "名称", jsonTypeName(v)));
  }
  // Which names exist depends on the architecture: the estimate checks them.
  std::vector<std::string> unique;
  for (const std::string& n : names)
    if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
  if (unique.empty())
    throw InputError(ErrorCode::kValue, path, Text{"names no module", "未给出任何模块"});
  return unique;
}

/// Bytes per unit of a size field (unit "bytes" or a byte unit such as "GiB"); 0 otherwise.
double sizeUnitBytes(const WorkloadField& f) {
  return f.unit == "bytes" ? 1.0 : bytesPerUnitName(f.unit);
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && isSpace(s[b])) ++b;
  while (e > b && isSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

/// Length of the decimal literal at the start of `s` ([+-]digits[.digits][e[+-]digits]),
/// 0 when there is none; `integral` tells whether it has neither fraction nor exponent.
size_t literalLength(const std::string& s, bool& integral) {
  size_t i = 0, digits = 0;
  auto isDigit = [&](size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  while (isDigit(i)) ++i, ++digits;
  integral = true;
  if (i < s.size() && s[i] == '.') {
    integral = false;
    ++i;
    while (isDigit(i)) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t k = i + 1;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    if (!isDigit(k)) return 0;
    while (isDigit(k)) ++k;
    integral = false;
    i = k;
  }
  return i;
}

json numberFromText(const WorkloadField& f, const std::string& text, const std::string& path,
                    const std::string& bare_byte_unit) {
  const std::string s = trim(text);
  bool integral = false;
  const size_t n = literalLength(s, integral);
  const double field_unit = sizeUnitBytes(f);
  std::string unit = trim(s.substr(n));
  if (n == 0 || (!unit.empty() && field_unit == 0)) {
    fail(ErrorCode::kType, f, path, mustBe("a number", "数字", "\"" + text + "\""));
  }
  const std::string literal = s.substr(0, n);
  double scale = 1;  // from the written (or bare) unit to the field's unit
  if (field_unit > 0) {
    const std::string given = unit.empty() ? (f.unit == "bytes" ? bare_byte_unit : f.unit) : unit;
    const double per = bytesPerUnitName(given);
    if (per == 0) {
      fail(ErrorCode::kValue, f, path,
           Text{"has an unknown unit \"" + given + "\" (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)",
                "的单位 \"" + given + "\" 未知（B、kB、MB、GB、TB、KiB、MiB、GiB、TiB）"});
    }
    scale = per / field_unit;
  }
  if (integral && scale == 1) {
    // Exactly, so that integers beyond 2^53 are not rounded on the way.
    int64_t v = 0;
    const char* begin = literal.data() + (literal[0] == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, literal.data() + literal.size(), v);
    if (ec == std::errc() && end == literal.data() + literal.size())
      return checkFieldValue(f, v, path);
    fail(ErrorCode::kTooLarge, f, path, aboveLargest(literal, f));
  }
  const double d = std::strtod(literal.c_str(), nullptr) * scale;
  if (!std::isfinite(d)) fail(ErrorCode::kTooLarge, f, path, aboveLargest(literal, f));
  // A size given in a larger unit is rounded to the nearest byte.
  if (scale != 1 && f.type == FieldType::kInteger && std::fabs(d) < kExactIntegerLimit) {
    return checkFieldValue(f, std::round(d), path);
  }
  return checkFieldValue(f, d, path);
}

/// `value` (in a unit of `unit_bytes` bytes) in the fewest significant digits, at least 6, that
/// read back to the same byte: "1.5", "24", and exact bytes for an odd size.
std::string sizeText(double value, double unit_bytes) {
  char buf[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (std::round(std::strtod(buf, nullptr) * unit_bytes) == std::round(value * unit_bytes)) break;
  }
  return buf;
}

}  // namespace

json checkFieldValue(const WorkloadField& f, const json& v, const std::string& path) {
  switch (f.type) {
    case FieldType::kInteger:
      return checkInteger(f, v, path);
    case FieldType::kNumber:
      return checkNumber(f, v, path);
    case FieldType::kEnum:
      return checkEnum(f, v, path);
    case FieldType::kBoolean:
      if (!v.is_boolean()) {
        fail(ErrorCode::kType, f, path, mustBe("true or false", " true 或 false", jsonTypeName(v)));
      }
      return v;
    case FieldType::kNameList:
      return checkNameList(f, v, path);
    case FieldType::kGpu:
      if (!v.is_string() && !v.is_object()) {
        fail(ErrorCode::kType, f, path,
             mustBe("a GPU name or object", " GPU 名称或对象", jsonTypeName(v)));
      }
      return v;  // parseGpu checks the name or the object
  }
  return v;
}

Workload parseWorkload(const json& workload, const std::string& path, const Workload& base) {
  const json& v = workload;
  ObjectReader r(v, path);
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() == "comment" || findWorkloadField(it.key())) continue;
    std::string list;
    for (const WorkloadField& f : workloadFields()) list += (list.empty() ? "" : ", ") + f.key;
    throw InputError(ErrorCode::kUnknownField, r.pathOf(it.key()),
                     Text{"unknown field '" + it.key() + "' (allowed here: " + list + ", comment)",
                          "未知字段 '" + it.key() + "'（此处允许：" + list + ", comment）"});
  }
  if (r.has("memory_gib") && r.has("memory_bytes")) {
    throw InputError(ErrorCode::kValue, r.pathOf("memory_bytes"),
                     Text{"give memory_gib or memory_bytes, not both",
                          "memory_gib 与 memory_bytes 只能给出一个"});
  }
  Workload w = base;
  for (const WorkloadField& f : workloadFields()) {
    const json* value = r.find(f.key);
    if (!value) continue;
    const std::string fpath = r.pathOf(f.key);
    f.apply(checkFieldValue(f, *value, fpath), w, fpath);
  }
  // With a serving engine and no dtype, the engine's own compute precision (not fp32).
  if (!r.has("dtype") && base.precision == Workload{}.precision && w.mode == Mode::kInfer &&
      w.serving.engine != Engine::kNone) {
    w.precision =
        engineDefaultPrecision(w.serving.engine, w.hardware.gpu ? &*w.hardware.gpu : nullptr);
  }
  if (w.finetune != Finetune::kNone && w.mode != Mode::kTrain) {
    throw InputError(ErrorCode::kValue, r.pathOf(r.has("mode") ? "mode" : "finetune"),
                     Text{"fine-tuning trains: give mode \"train\" with finetune",
                          "微调需要训练：请与 finetune 一起给出 mode \"train\""});
  }
  const Parallelism& p = w.hardware.parallel;
  const int64_t model_split = p.tp * p.pp;  // both <= 2^20: no overflow
  if (p.gpus % model_split != 0) {
    const char* field = r.has("tp") ? "tp" : r.has("pp") ? "pp" : "gpus";
    throw InputError(ErrorCode::kValue, r.pathOf(field),
                     Text{"tp x pp = " + std::to_string(model_split) + " must divide gpus " +
                              std::to_string(p.gpus),
                          "tp × pp = " + std::to_string(model_split) + " 必须整除 gpus " +
                              std::to_string(p.gpus)});
  }
  return w;
}

json writeWorkload(const Workload& w) {
  json j = json::object();
  for (const WorkloadField& f : workloadFields()) {
    json value = f.write(w);
    if (!value.is_null()) j[f.key] = std::move(value);
  }
  return j;
}

json writeAppliedWorkload(const Workload& w, bool transformer) {
  json j = json::object();
  for (const WorkloadField& f : workloadFields()) {
    if (!fieldApplies(f, w, transformer)) continue;
    json value = f.write(w);
    if (!value.is_null()) j[f.key] = std::move(value);
  }
  return j;
}

json fieldFromText(const WorkloadField& f, const std::string& text, const std::string& path,
                   const std::string& bare_byte_unit) {
  switch (f.type) {
    case FieldType::kInteger:
    case FieldType::kNumber:
      return numberFromText(f, text, path, bare_byte_unit);
    case FieldType::kBoolean: {
      const std::string s = trim(text);
      if (s == "true" || s == "false") return s == "true";
      fail(ErrorCode::kType, f, path,
           mustBe("true or false", " true 或 false", "\"" + text + "\""));
    }
    case FieldType::kEnum:
    case FieldType::kNameList:
    case FieldType::kGpu:
      return checkFieldValue(f, trim(text), path);
  }
  return text;
}

json workloadFromText(const std::map<std::string, std::string>& texts,
                      const std::string& bare_byte_unit) {
  if (bytesPerUnitName(bare_byte_unit) == 0) {
    throw InputError(ErrorCode::kValue, "", "unknown byte unit \"" + bare_byte_unit + "\"");
  }
  json out = json::object();
  for (const auto& [key, text] : texts) {
    const std::string path = childPath("/workload", key);
    const WorkloadField* f = findWorkloadField(key);
    if (!f)
      throw InputError(
          ErrorCode::kUnknownField, path,
          Text{"unknown workload field '" + key + "'", "未知的工作负载字段 '" + key + "'"});
    out[key] = fieldFromText(*f, text, path, bare_byte_unit);
  }
  return out;
}

std::map<std::string, std::string> workloadToText(const json& workload,
                                                  const std::string& byte_unit) {
  std::map<std::string, std::string> out;
  const double per_unit = bytesPerUnitName(byte_unit);
  if (!workload.is_object() || per_unit == 0) return out;
  for (auto it = workload.begin(); it != workload.end(); ++it) {
    const WorkloadField* f = findWorkloadField(it.key());
    if (!f) continue;
    const json& v = *it;
    const double field_unit = sizeUnitBytes(*f);
    if (v.is_number() && field_unit > 0) {
      const double bytes = v.get<double>() * field_unit;
      std::string text = sizeText(bytes / per_unit, per_unit);
      if (v.is_number_integer() &&
          (field_unit == per_unit || std::fabs(bytes) >= kExactIntegerLimit)) {
        // Exactly, in the field's own unit: past 2^53 a double would round the bytes.
        out[f->key] =
            v.dump() +
            (field_unit == per_unit ? "" : " " + (f->unit == "bytes" ? std::string("B") : f->unit));
        continue;
      }
      // A bare number in a field with a unit of its own (memory_gib) is read in that unit:
      // when the text is in another, it says so, so that it reads back to the same size.
      if (f->unit != "bytes" && f->unit != byte_unit) text += " " + byte_unit;
      out[f->key] = text;
    } else if (v.is_string()) {
      out[f->key] = v.get<std::string>();
    } else if (v.is_array()) {
      std::string list;
      for (const json& name : v)
        if (name.is_string()) list += (list.empty() ? "" : ",") + name.get<std::string>();
      out[f->key] = list;
    } else if (v.is_number_float()) {
      out[f->key] = sizeText(v.get<double>(), 0);
    } else if (v.is_primitive() && !v.is_null()) {
      out[f->key] = v.dump();
    }
  }
  return out;
}

}  // namespace dlcost
