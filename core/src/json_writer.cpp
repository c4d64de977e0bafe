#include "json_writer.hpp"

#include <algorithm>
#include <cmath>

namespace dlcost {

void appendJson(std::string& out, bool value) {
  out += value ? "true" : "false";
}

void appendJson(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  // nlohmann::json's own shortest round-trip formatting (its serializer's dump_float).
  char buffer[64];
  const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, static_cast<size_t>(end - buffer));
}

void appendJson(std::string& out, std::string_view text) {
  // Plain printable ASCII is written as it is; anything else (escapes, UTF-8 to check and
  // replace where invalid) by nlohmann::json's serializer, so the two cannot differ.
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    out += '"';
    out += text;
    out += '"';
  } else {
    appendJson(out, nlohmann::json(std::string(text)));
  }
}

void appendJson(std::string& out, std::nullptr_t) {
  out += "null";
}

void appendJson(std::string& out, const nlohmann::json& value) {
  out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void appendJson(std::string& out, const JsonObject& object) {
  object.appendTo(out);
}

void appendJson(std::string& out, const JsonArray& array) {
  out += array.str();
}

void appendSigned(std::string& out, int64_t value) {
  out += std::to_string(value);
}

void appendUnsigned(std::string& out, uint64_t value) {
  out += std::to_string(value);
}

void JsonObject::appendTo(std::string& out) const {
  std::vector<size_t> order(members_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return members_[a].key < members_[b].key; });
  out += '{';
  for (size_t n = 0; n < order.size(); ++n) {
    const size_t i = order[n];
    const size_t end = i + 1 < members_.size() ? members_[i + 1].begin : values_.size();
    if (n) out += ',';
    appendJson(out, members_[i].key);
    out += ':';
    out.append(values_, members_[i].begin, end - members_[i].begin);
  }
  out += '}';
}

std::string JsonObject::str() const {
  std::string out;
  appendTo(out);
  return out;
}

}  // namespace dlcost
