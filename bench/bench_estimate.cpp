// Native timings of one estimate as a front end makes it (document text in, report JSON
// text out): every preset, and synthetic chains that show cost growing linearly with layers.
// For a few presets the three phases alone as well: the document read (text to Config), the
// estimate itself (parsed model in, report values out) and the report writer (values to text).
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/api.hpp"
#include "dlcost/explore/serve_sim.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"

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

// The document read as estimateText reads it.
void parseOnly(benchmark::State& state, const std::string& document) {
  for (auto _ : state) {
    const dlcost::SharedConfig config = dlcost::parseSharedConfigText(document);
    benchmark::DoNotOptimize(&config);
  }
}

void estimateOnly(benchmark::State& state, const std::string& document) {
  const dlcost::Config config = dlcost::parseConfigText(document);
  for (auto _ : state) {
    const dlcost::Report report = dlcost::estimate(config.model, config.workload);
    benchmark::DoNotOptimize(&report);
  }
}

void writeOnly(benchmark::State& state, const std::string& document) {
  const dlcost::Config config = dlcost::parseConfigText(document);
  const dlcost::Report report = dlcost::estimate(config.model, config.workload);
  for (auto _ : state) {
    const std::string out = dlcost::reportJsonText(report);
    benchmark::DoNotOptimize(out.data());
  }
}

void registerPhases() {
  using Phase = void (*)(benchmark::State&, const std::string&);
  const std::pair<const char*, Phase> phases[] = {
      {"parse", parseOnly}, {"estimate_only", estimateOnly}, {"write", writeOnly}};
  for (const char* name : {"resnet50", "densenet169", "gpt2"}) {
    for (const char* mode : {"train", "infer"}) {
      const std::string doc = presetDocument(name, mode);
      for (const auto& [phase, run] : phases) {
        benchmark::RegisterBenchmark((std::string(phase) + "/" + name + "/" + mode).c_str(),
                                     [doc, run = run](benchmark::State& s) { run(s, doc); })
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
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

/// The simulation under load (issue #30): llama-3-8b on an H100 with vLLM at 80 % of the rate
/// it sustains (prompts 100-1,000 tokens, answers around 200), `requests` requests: the
/// estimate plus the discrete-event run, as `dlcost serve-sim` makes it.
void registerServeSim() {
  for (int64_t n : {1000, 10000, 100000}) {
    const nlohmann::json doc = {
        {"model", {{"preset", "llama-3-8b"}}},
        {"workload", {{"engine", "vllm"}, {"gpu", "h100-sxm"}, {"context", 4096}}},
        {"load",
         {{"rate", 20},
          {"requests", n},
          {"prompt", {{"uniform", {100, 1000}}}},
          {"output", {{"normal", {200, 50}}}}}}};
    benchmark::RegisterBenchmark(("serve_sim/" + std::to_string(n) + "_requests").c_str(),
                                 [doc](benchmark::State& s) {
                                   for (auto _ : s) {
                                     const nlohmann::json out = dlcost::serveSimDocument(doc);
                                     benchmark::DoNotOptimize(&out);
                                   }
                                 })
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  registerPhases();
  registerServeSim();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
