#include "serve_sim_print.hpp"

#include <string>
#include <vector>

#include "table.hpp"

namespace dlcost::cli {

using nlohmann::json;

namespace {

std::string ms(const json& seconds) {
  return fixed(seconds.get<double>() * 1e3, 1);
}

void printPercentiles(std::ostream& out, const json& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& [key, label] :
       std::vector<std::pair<const char*, const char*>>{{"ttft_s", "time to first token"},
                                                        {"itl_s", "inter-token latency"},
                                                        {"e2e_s", "end to end"},
                                                        {"queue_s", "queued before running"}}) {
    const json& p = r[key];
    rows.push_back({label, ms(p["mean"]), ms(p["p50"]), ms(p["p90"]), ms(p["p99"])});
  }
  printTable(out, {"latency (ms)", "mean", "P50", "P90", "P99"}, rows, 1, "  ");
}

void printResult(std::ostream& out, const json& r) {
  out << "  scheduler: " << r["scheduler"].get<std::string>() << "\n";
  out << "  " << r["requests"] << " requests in " << fixed(r["duration_s"].get<double>(), 2)
      << " s";
  if (r["rejected"].get<int64_t>() > 0) {
    out << " (" << r["rejected"] << " rejected: longer than the context or the KV pool)";
  }
  out << "\n";
  printPercentiles(out, r);
  out << "  throughput: " << fixed(r["requests_per_s"].get<double>(), 2) << " requests/s, "
      << fixed(r["output_tokens_per_s"].get<double>(), 1) << " generated tokens/s, "
      << fixed(r["total_tokens_per_s"].get<double>(), 1) << " tokens/s with prompts\n";
  out << "  engine: " << r["iterations"] << " iterations of "
      << fixed(r["mean_batch_tokens"].get<double>(), 1) << " tokens on average, "
      << r["preemptions"] << " preemptions, longest queue " << r["max_waiting"] << "\n";
  if (r.contains("meets_slo")) {
    out << "  objectives: " << (r["meets_slo"].get<bool>() ? "met" : "MISSED") << "\n";
  }
}

}  // namespace

void printServeSim(std::ostream& out, const json& doc) {
  out << doc["engine"].get<std::string>() << " on "
      << (doc["gpu"].is_string() ? doc["gpu"].get<std::string>() : "no GPU") << " under load\n";
  printResult(out, doc["result"]);
  const json& steady = doc["steady_state"];
  out << "  steady state of the serving plan (" << steady["users"] << " users at "
      << steady["context"] << " tokens): " << fixed(steady["tokens_per_s"].get<double>(), 1)
      << " tokens/s, TTFT " << ms(steady["ttft_s"]) << " ms on an idle engine\n";
  if (doc.contains("capacity")) {
    const json& c = doc["capacity"];
    out << "\ncapacity within the objectives: " << fixed(c["max_rate"].get<double>(), 2)
        << " requests/s per instance (" << c["simulations"]
        << " simulations); the asked rate needs " << c["replicas"] << " instance(s), " << c["gpus"]
        << " GPU(s)";
    if (!c["usd_per_hour"].is_null()) {
      out << ", $" << fixed(c["usd_per_hour"].get<double>(), 2) << " per hour";
    }
    out << "\n";
  }
  for (const json& n : doc["result"]["notes"]) out << "  note: " << n.get<std::string>() << "\n";
}

void printLoadTimelineCsv(std::ostream& out, const json& result) {
  const json& t = result["timeline"];
  out << "time_s,running,waiting,kv_used\n";
  for (size_t i = 0; i < t["time_s"].size(); ++i) {
    out << t["time_s"][i].dump() << "," << t["running"][i] << "," << t["waiting"][i] << ","
        << t["kv_used"][i].dump() << "\n";
  }
}

}  // namespace dlcost::cli
