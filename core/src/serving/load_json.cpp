// The load's JSON (load_json.hpp): settings in, results out.
#include "dlcost/serving/load_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "dlcost/base/error.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

[[noreturn]] void bad(ErrorCode code, const std::string& path, const std::string& why) {
  throw InputError(code, path, why);
}

double number(const json& j, const std::string& path, double lo, double hi, const char* unit) {
  if (!j.is_number()) bad(ErrorCode::kType, path, std::string("must be a number (") + unit + ")");
  const double v = j.get<double>();
  if (!(v >= lo && v <= hi)) {
    const auto text = [](double x) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", x);
      return std::string(buf);
    };
    bad(ErrorCode::kValue, path, "must be between " + text(lo) + " and " + text(hi) + " " + unit);
  }
  return v;
}

int64_t integer(const json& j, const std::string& path, int64_t lo, int64_t hi, const char* unit) {
  if (!j.is_number_integer()) {
    bad(ErrorCode::kType, path, std::string("must be an integer (") + unit + ")");
  }
  const auto v = j.get<int64_t>();
  if (v < lo || v > hi) {
    bad(ErrorCode::kValue, path,
        "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " " + unit);
  }
  return v;
}

/// Longest prompt or answer a length may name: a million tokens (no model has more context).
constexpr int64_t kMaxLength = 1'000'000;

LengthDistribution length(const json& j, const std::string& path) {
  LengthDistribution d;
  if (j.is_number()) {
    d.mean = static_cast<double>(integer(j, path, 1, kMaxLength, "tokens"));
    return d;
  }
  if (!j.is_object() || j.size() != 1) {
    bad(ErrorCode::kType, path,
        "must be tokens, {\"fixed\": n}, {\"uniform\": [lo, hi]} or {\"normal\": [mean, sd]}");
  }
  const std::string kind = j.begin().key();
  const json& v = j.begin().value();
  const std::string at = path + "/" + kind;
  if (kind == "fixed") return length(v, at);
  if ((kind != "uniform" && kind != "normal") || !v.is_array() || v.size() != 2) {
    bad(ErrorCode::kValue, at,
        "a length is {\"fixed\": n}, {\"uniform\": [lo, hi]} or {\"normal\": [mean, sd]}");
  }
  if (kind == "uniform") {
    d.kind = LengthDistribution::Kind::kUniform;
    d.lo = integer(v[0], at + "/0", 1, kMaxLength, "tokens");
    d.hi = integer(v[1], at + "/1", d.lo, kMaxLength, "tokens (at least lo)");
    d.mean = (static_cast<double>(d.lo) + static_cast<double>(d.hi)) / 2;
  } else {
    d.kind = LengthDistribution::Kind::kNormal;
    d.mean = number(v[0], at + "/0", 1, kMaxLength, "tokens");
    d.sd = number(v[1], at + "/1", 0, kMaxLength, "tokens");
  }
  return d;
}

LoadRequest traceRow(const json& row, const std::string& at) {
  LoadRequest q;
  if (row.is_array() && row.size() == 3) {
    q.arrival_s = number(row[0], at + "/0", 0, 1e9, "seconds");
    q.prompt_tokens = integer(row[1], at + "/1", 1, kMaxLength, "tokens");
    q.output_tokens = integer(row[2], at + "/2", 1, kMaxLength, "tokens");
    return q;
  }
  if (!row.is_object()) {
    bad(ErrorCode::kType, at, "must be [arrival_s, prompt_tokens, output_tokens] or an object");
  }
  const auto field = [&](std::initializer_list<const char*> names) -> const json& {
    for (const char* n : names) {
      if (row.contains(n)) return row[n];
    }
    bad(ErrorCode::kMissingField, at + "/" + *names.begin(), "missing");
  };
  q.arrival_s = number(field({"arrival_s", "timestamp"}), at + "/arrival_s", 0, 1e9, "seconds");
  q.prompt_tokens = integer(field({"prompt_tokens", "input_len"}), at + "/prompt_tokens", 1,
                            kMaxLength, "tokens");
  q.output_tokens = integer(field({"output_tokens", "output_len"}), at + "/output_tokens", 1,
                            kMaxLength, "tokens");
  return q;
}

std::vector<LoadRequest> traceOf(const json& j, const std::string& path) {
  if (!j.is_array() || j.empty()) bad(ErrorCode::kType, path, "must be a non-empty array of rows");
  if (j.size() > static_cast<size_t>(kMaxLoadRequests)) {
    bad(ErrorCode::kTooLarge, path,
        "at most " + std::to_string(kMaxLoadRequests) + " requests per simulation");
  }
  std::vector<LoadRequest> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = path + "/" + std::to_string(i);
    out.push_back(traceRow(j[i], at));
    if (i > 0 && out[i].arrival_s < out[i - 1].arrival_s) {
      bad(ErrorCode::kValue, at, "arrivals must be sorted (earlier than the row before)");
    }
  }
  return out;
}

void readArrivals(const json& j, const std::string& path, LoadSettings& s) {
  const int given = static_cast<int>(j.contains("rate")) +
                    static_cast<int>(j.contains("concurrency")) +
                    static_cast<int>(j.contains("trace"));
  if (given != 1) {
    bad(given == 0 ? ErrorCode::kMissingField : ErrorCode::kValue, path + "/rate",
        "give exactly one of rate (requests/s), concurrency (requests in flight) or trace");
  }
  if (j.contains("rate")) {
    s.arrivals = LoadSettings::Arrivals::kPoisson;
    s.rate = number(j["rate"], path + "/rate", 1e-6, 1e6, "requests/s");
  } else if (j.contains("concurrency")) {
    s.arrivals = LoadSettings::Arrivals::kConcurrency;
    s.concurrency = integer(j["concurrency"], path + "/concurrency", 1, 1'000'000, "requests");
  } else {
    s.arrivals = LoadSettings::Arrivals::kTrace;
    s.trace = traceOf(j["trace"], path + "/trace");
    s.requests = static_cast<int64_t>(s.trace.size());
  }
}

}  // namespace

const std::vector<std::string>& loadFieldNames() {
  static const std::vector<std::string> keys = {"rate",        "concurrency", "trace", "requests",
                                                "prompt",      "output",      "seed",  "replicas",
                                                "slo_ttft_ms", "slo_itl_ms"};
  return keys;
}

LoadSettings loadSettingsFromJson(const json& j, const std::string& path, int64_t prompt,
                                  int64_t output) {
  if (!j.is_object()) bad(ErrorCode::kType, path, "must be an object");
  const std::vector<std::string>& names = loadFieldNames();
  for (const auto& [key, value] : j.items()) {
    if (std::find(names.begin(), names.end(), key) == names.end()) {
      bad(ErrorCode::kUnknownField, path + "/" + key, "unknown field of the load");
    }
  }
  LoadSettings s;
  s.prompt.mean = static_cast<double>(std::max<int64_t>(1, prompt));
  s.output.mean = static_cast<double>(std::max<int64_t>(1, output));
  if (j.contains("requests")) {
    s.requests = integer(j["requests"], path + "/requests", 1, kMaxLoadRequests, "requests");
  }
  readArrivals(j, path, s);
  if (j.contains("prompt")) s.prompt = length(j["prompt"], path + "/prompt");
  if (j.contains("output")) {
    s.output = length(j["output"], path + "/output");
  } else if (output < 1 && s.arrivals != LoadSettings::Arrivals::kTrace) {
    bad(ErrorCode::kMissingField, path + "/output",
        "give the answers' length: output (tokens) in the load, or the workload's "
        "generated_tokens (the prompt then fills the rest of the context)");
  }
  if (j.contains("seed")) {
    s.seed = static_cast<uint64_t>(integer(j["seed"], path + "/seed", 0, INT64_MAX, ""));
  }
  if (j.contains("replicas")) {
    s.replicas = integer(j["replicas"], path + "/replicas", 1, 1024, "engine instances");
  }
  if (s.arrivals == LoadSettings::Arrivals::kConcurrency && s.concurrency < s.replicas) {
    bad(ErrorCode::kValue, path + "/concurrency", "must be at least replicas");
  }
  if (j.contains("slo_ttft_ms")) {
    s.slo_ttft_s = number(j["slo_ttft_ms"], path + "/slo_ttft_ms", 1e-3, 1e9, "ms") / 1000;
  }
  if (j.contains("slo_itl_ms")) {
    s.slo_itl_s = number(j["slo_itl_ms"], path + "/slo_itl_ms", 1e-3, 1e9, "ms") / 1000;
  }
  return s;
}

namespace {

json percentilesJson(const Percentiles& p) {
  return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}};
}

json timelineJson(const std::vector<LoadSample>& samples) {
  json time = json::array(), running = json::array(), waiting = json::array(), kv = json::array();
  for (const LoadSample& x : samples) {
    time.push_back(x.time_s);
    running.push_back(x.running);
    waiting.push_back(x.waiting);
    kv.push_back(x.kv_used);
  }
  return {{"time_s", time}, {"running", running}, {"waiting", waiting}, {"kv_used", kv}};
}

}  // namespace

json loadResultToJson(const LoadResult& r) {
  json j = {{"engine", r.engine},
            {"scheduler", r.scheduler},
            {"requests", r.requests},
            {"rejected", r.rejected},
            {"duration_s", r.duration_s},
            {"ttft_s", percentilesJson(r.ttft_s)},
            {"itl_s", percentilesJson(r.itl_s)},
            {"e2e_s", percentilesJson(r.e2e_s)},
            {"queue_s", percentilesJson(r.queue_s)},
            {"requests_per_s", r.requests_per_s},
            {"output_tokens_per_s", r.output_tokens_per_s},
            {"total_tokens_per_s", r.total_tokens_per_s},
            {"iterations", r.iterations},
            {"preemptions", r.preemptions},
            {"max_waiting", r.max_waiting},
            {"mean_batch_tokens", r.mean_batch_tokens},
            {"timeline", timelineJson(r.timeline)},
            {"notes", r.notes}};
  if (r.meets_slo) j["meets_slo"] = *r.meets_slo;
  return j;
}

}  // namespace dlcost
