// `dlcost timeline` as text or CSV (timeline_print.hpp).

#include "timeline_print.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "table.hpp"

namespace dlcost::cli {

using nlohmann::json;

namespace {

int64_t totalOf(const json& point) {
  int64_t sum = 0;
  for (const json& b : point["bytes"]) sum += b.get<int64_t>();
  return sum;
}

/// Op names may hold commas or quotes (an ONNX node's name): quoted as RFC 4180 says.
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

void printTimeline(std::ostream& out, const json& doc, ByteUnits units) {
  const json& terms = doc["terms"];
  const json& points = doc["points"];
  out << doc["model"].get<std::string>() << "  (" << doc["mode"].get<std::string>() << ", batch "
      << doc["batch"].get<int64_t>() << "): " << points.size() << " events\n";
  if (doc.contains("peak")) {
    const json& peak = doc["peak"];
    out << "peak " << formatBytes(peak["total"].get<int64_t>(), units) << " at "
        << peak["where"]["en"].get<std::string>() << " (event " << peak["index"].get<int64_t>()
        << ")\n\n";
  }
  std::vector<size_t> shown;  // terms that are ever non-zero
  for (size_t t = 0; t < terms.size(); ++t) {
    for (const json& p : points) {
      if (p["bytes"][t].get<int64_t>() != 0) {
        shown.push_back(t);
        break;
      }
    }
  }
  std::vector<std::string> head = {"#", "phase", "op", "total"};
  for (size_t t : shown) head.push_back(terms[t].get<std::string>());
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    std::vector<std::string> row = {std::to_string(i), p["phase"].get<std::string>(),
                                    p["op"].get<std::string>(), formatBytes(totalOf(p), units)};
    for (size_t t : shown) row.push_back(formatBytes(p["bytes"][t].get<int64_t>(), units));
    rows.push_back(std::move(row));
  }
  printTable(out, head, rows, 3);
}

void printTimelineCsv(std::ostream& out, const json& doc) {
  out << "index,phase,op";
  for (const json& t : doc["terms"]) out << "," << t.get<std::string>();
  out << ",total\n";
  const json& points = doc["points"];
  for (size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    out << i << "," << p["phase"].get<std::string>() << "," << csvField(p["op"].get<std::string>());
    for (const json& b : p["bytes"]) out << "," << b.get<int64_t>();
    out << "," << totalOf(p) << "\n";
  }
}

void printMeasured(std::ostream& out, const json& doc, ByteUnits units) {
  const json& m = doc["measured"];
  const json& c = doc["comparison"];
  const json& peak = m["peak"];
  out << "\nmeasured (PyTorch memory snapshot, device " << m["device"].get<int>() << ", "
      << m["events"].get<int64_t>() << " trace events): active peak "
      << formatBytes(c["measured_peak_bytes"].get<int64_t>(), units);
  if (peak["event"].get<int64_t>() >= 0) out << " at trace event " << peak["event"].get<int64_t>();
  out << "\npredicted peak " << formatBytes(c["predicted_peak_bytes"].get<int64_t>(), units)
      << "; measured - predicted = ";
  const int64_t diff = c["difference_bytes"].get<int64_t>();
  out << (diff < 0 ? "-" : "+") << formatBytes(diff < 0 ? -diff : diff, units);
  if (!c["difference_percent"].is_null()) {
    char pct[32];
    std::snprintf(pct, sizeof pct, " (%+.1f %%)", c["difference_percent"].get<double>());
    out << pct;
  }
  out << "\nreserved by the allocator: " << formatBytes(m["reserved_bytes"].get<int64_t>(), units)
      << " at the snapshot, peak " << formatBytes(m["peak_reserved_bytes"].get<int64_t>(), units)
      << "\nnot modelled:\n";
  for (const json& n : doc["not_modelled"]) {
    out << "  - " << n["en"].get<std::string>();
    if (n.contains("bytes")) out << " (" << formatBytes(n["bytes"].get<int64_t>(), units) << ")";
    out << "\n";
  }
}

void printMeasuredCsv(std::ostream& out, const json& measured) {
  out << "point,event,time_us,active_bytes\n";
  const json& points = measured["points"];
  for (size_t i = 0; i < points.size(); ++i) {
    const json& p = points[i];
    out << i << "," << p["event"].get<int64_t>() << "," << p["time_us"].get<int64_t>() << ","
        << p["bytes"].get<int64_t>() << "\n";
  }
}

}  // namespace dlcost::cli
