// A request trace as text (load_json.hpp's parseTraceText): CSV or JSON Lines, one request
// per line. Untrusted input: rows are counted before anything is allocated, every field is
// checked, and an error names its row.
#include <algorithm>
#include <cstdlib>

#include "dlcost/base/error.hpp"
#include "dlcost/serving/load_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

/// The CSV row's three fields as JSON numbers; false when the row is a header (no number in
/// its first field).
bool csvRow(const std::string& line, json& row, const std::string& at) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    const size_t comma = line.find(',', start);
    fields.push_back(trim(std::string_view(line).substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  row = json::array();
  for (size_t i = 0; i < fields.size(); ++i) {
    const std::string& f = fields[i];
    char* end = nullptr;
    const double v = f.empty() ? 0 : std::strtod(f.c_str(), &end);
    if (f.empty() || end != f.c_str() + f.size()) {
      if (i == 0) return false;
      throw InputError(ErrorCode::kParse, at + "/" + std::to_string(i),
                       "\"" + f.substr(0, 40) + "\" is not a number");
    }
    if (i == 0) {
      row.push_back(v);
    } else {
      row.push_back(v == std::floor(v) && std::abs(v) < 1e15 ? json(static_cast<int64_t>(v))
                                                             : json(v));
    }
  }
  if (fields.size() != 3) {
    throw InputError(ErrorCode::kShape, at,
                     "a CSV row is arrival_s,prompt_tokens,output_tokens (" +
                         std::to_string(fields.size()) + " fields)");
  }
  return true;
}

}  // namespace

std::vector<LoadRequest> parseTraceText(const std::string& text) {
  const auto lines = std::count(text.begin(), text.end(), '\n') + 1;
  if (lines > kMaxLoadRequests + 1) {
    throw InputError(ErrorCode::kTooLarge, "/load/trace",
                     "at most " + std::to_string(kMaxLoadRequests) + " requests per simulation (" +
                         std::to_string(lines) + " lines)");
  }
  json rows = json::array();
  size_t start = 0;
  bool header_allowed = true;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = trim(std::string_view(text).substr(start, end - start));
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    const std::string at = "/load/trace/" + std::to_string(rows.size());
    json row;
    if (line[0] == '{' || line[0] == '[') {
      row = json::parse(line, nullptr, false);
      if (row.is_discarded()) throw InputError(ErrorCode::kParse, at, "is not valid JSON");
    } else if (!csvRow(line, row, at)) {
      if (!header_allowed) {
        throw InputError(ErrorCode::kParse, at + "/0", "is not a number (arrival_s)");
      }
      header_allowed = false;
      continue;
    }
    header_allowed = false;
    rows.push_back(std::move(row));
  }
  LoadSettings s = loadSettingsFromJson(json{{"trace", rows}}, "/load", 1, 1);
  return std::move(s.trace);
}

}  // namespace dlcost
