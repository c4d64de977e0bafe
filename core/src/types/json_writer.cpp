#include "types/json_writer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
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
  bool plain = true;  // without branches, so the loop vectorises
  for (const char c : text) plain &= (c >= 0x20) & (c < 0x7f) & (c != '"') & (c != '\\');
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
  array.appendTo(out);
}

// std::to_chars writes the digits std::to_string does, without a string of its own: the
// report has thousands of integers.
void appendJson(std::string& out, const Shape& shape) {
  out += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    appendSigned(out, shape[i]);
  }
  out += ']';
}

void appendSigned(std::string& out, int64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, static_cast<size_t>(result.ptr - buffer));
}

void appendUnsigned(std::string& out, uint64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, static_cast<size_t>(result.ptr - buffer));
}

void JsonObject::appendTo(std::string& out) const {
  // The members' order by key, on the stack for the usual small object.
  constexpr size_t kInline = 32;
  std::array<size_t, kInline> inline_order;
  std::vector<size_t> heap_order;
  size_t* order = inline_order.data();
  if (members_.size() > kInline) {
    heap_order.resize(members_.size());
    order = heap_order.data();
  }
  for (size_t i = 0; i < members_.size(); ++i) order[i] = i;
  std::sort(order, order + members_.size(),
            [&](size_t a, size_t b) { return members_[a].key < members_[b].key; });
  out += '{';
  for (size_t n = 0; n < members_.size(); ++n) {
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

nlohmann::json toDocument(const JsonObject& object) {
  return nlohmann::json::parse(object.str());
}

}  // namespace dlcost
