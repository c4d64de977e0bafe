// Native timings of one estimate as a front end makes it (document text in, report JSON
// text out): every preset, and synthetic chains that show cost growing linearly with layers.
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/api.hpp"
#include "dlcost/presets.hpp"

namespace {

std::string presetDocument(const std::string& name, const char* mode) {
  return nlohmann::json{{"model", {{"preset", name}}},
                        {"workload", {{"mode", mode}, {"batch", 32}}}}
      .dump();
}

/// A chain of `layers` layers (linear + relu pairs) on a 512-wide input.
std::string chainDocument(int64_t layers) {
  nlohmann::json list = nlohmann::json::array();
  for (int64_t i = 0; i < layers; ++i) {
    if (i % 2 == 0) {
      list.push_back({{"type", "linear"}, {"out_features", 512}});
    } else {
      list.push_back({{"type", "relu"}, {"inplace", true}});
    }
  }
  return nlohmann::json{{"model", {{"input", {512}}, {"layers", list}}},
                        {"workload", {{"batch", 32}}}}
      .dump();
}

void estimateText(benchmark::State& state, const std::string& document) {
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string out = dlcost::estimateText(document);
    bytes = out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["report_bytes"] = static_cast<double>(bytes);
}

void registerAll() {
  for (const auto& p : dlcost::presetList()) {
    for (const char* mode : {"train", "infer"}) {
      const std::string doc = presetDocument(p.name, mode);
      benchmark::RegisterBenchmark(("estimate/" + p.name + "/" + mode).c_str(),
                                   [doc](benchmark::State& s) { estimateText(s, doc); })
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (int64_t n : {100, 1000, 10000}) {
    const std::string doc = chainDocument(n);
    benchmark::RegisterBenchmark(("estimate/chain/" + std::to_string(n) + "_layers").c_str(),
                                 [doc](benchmark::State& s) { estimateText(s, doc); })
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
