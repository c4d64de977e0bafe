// The serving engine under load (issue #30): the simulation agrees with the steady-state plan
// it is built on, queues behave as queues do, and bad loads and traces get clear errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/explore/serve_sim.hpp"
#include "dlcost/serving/load_json.hpp"
#include "dlcost/serving/load_sim.hpp"
#include "dlcost/serving/serving.hpp"
#include "input_error_path.hpp"
#include "transformer_test_util.hpp"

using dlcost::LoadSettings;
using dlcost::testing::errorPath;
using nlohmann::json;

namespace {

struct Served {
  dlcost::Config config;
  dlcost::Report report;
  const dlcost::Transformer& model() const {
    return std::get<dlcost::Transformer>(config.model.body);
  }
};

Served serve(const std::string& preset, const json& workload) {
  Served s;
  json w = workload;
  w["mode"] = "infer";
  s.config = dlcost::parseConfig(json{{"model", {{"preset", preset}}}, {"workload", w}});
  s.report = dlcost::estimate(s.config.model, s.config.workload);
  return s;
}

dlcost::LoadResult simulate(const Served& s, const json& load) {
  const LoadSettings settings = dlcost::loadSettingsFromJson(
      load, "/load", s.report.transformer->seq_len, s.report.transformer->generated_tokens);
  return dlcost::simulateLoad(s.model(), s.config.workload, s.report, settings);
}

const json kVllmH100 = {{"engine", "vllm"}, {"gpu", "h100-sxm"}, {"context", 4096}};

}  // namespace

TEST_CASE("at a constant concurrency the simulation gives the serving plan's tokens/s",
          "[serving][load]") {
  // 16 users, prompts of 16 tokens and answers of 2,048: almost every iteration is a decode
  // step of 16 sequences whose contexts run from 17 to 2,063 tokens, evenly: the plan's speed
  // at 16 users of the mean context (16 + 1,024) is the same work per step (weights, KV read
  // and FLOPs are linear in the context).
  const Served s = serve("llama-3-8b", kVllmH100);
  const dlcost::LoadResult r =
      simulate(s, {{"concurrency", 16}, {"requests", 64}, {"prompt", 16}, {"output", 2048}});
  const dlcost::ServingSpeed plan =
      dlcost::servingSpeed(s.model(), s.config.workload, s.report, *s.report.serving, 16, 1040);
  CHECK(r.requests == 64);
  CHECK(r.preemptions == 0);
  CHECK(r.output_tokens_per_s == Approx(plan.tokens_per_s).epsilon(0.02));
  CHECK(r.itl_s.p50 == Approx(plan.itl_s).epsilon(0.05));
}

TEST_CASE("at a trickle of requests TTFT is the single request's prefill", "[serving][load]") {
  // One request every 100 s on average: none waits for another, so the time to first token is
  // one prefill of the prompt on an idle engine, the plan's ttft_s (same time model; the plan
  // takes the forward's FLOPs from the report, the simulation counts them per chunk).
  json workload = kVllmH100;
  workload["prompt_tokens"] = 1024;
  workload["generated_tokens"] = 16;
  const Served s = serve("llama-3-8b", workload);
  const dlcost::LoadResult r = simulate(s, {{"rate", 0.01}, {"requests", 50}});
  CHECK(r.queue_s.p99 == 0);
  CHECK(r.ttft_s.p50 == Approx(s.report.serving->speed.ttft_s).epsilon(0.02));
  CHECK(r.ttft_s.p99 == Approx(r.ttft_s.p50).epsilon(1e-9));
}

TEST_CASE("past the engine's capacity the queue grows and P99 TTFT diverges", "[serving][load]") {
  const Served s = serve("llama-3-8b", kVllmH100);
  const json load = {{"rate", 200}, {"prompt", 1024}, {"output", 256}};
  json more = load;
  more["requests"] = 4000;
  json fewer = load;
  fewer["requests"] = 1000;
  const dlcost::LoadResult a = simulate(s, fewer);
  const dlcost::LoadResult b = simulate(s, more);
  CHECK(a.max_waiting > 100);
  CHECK(b.max_waiting > 2 * a.max_waiting);
  CHECK(b.ttft_s.p99 > 2 * a.ttft_s.p99);
  // Throughput saturates instead: the same rate of completions either way.
  CHECK(b.requests_per_s == Approx(a.requests_per_s).epsilon(0.15));
}

TEST_CASE("a full KV pool preempts and every request still finishes", "[serving][load]") {
  // An 8B model on a 24 GB card at vLLM's 0.9: a pool of some 6,000 tokens, and 64 requests
  // that each grow to 2,000.
  const Served s =
      serve("llama-3-8b",
            {{"engine", "vllm"}, {"gpu", "rtx-4090"}, {"context", 2048}, {"dtype", "bf16"}});
  const dlcost::LoadResult r =
      simulate(s, {{"concurrency", 64}, {"requests", 128}, {"prompt", 500}, {"output", 1500}});
  CHECK(r.requests == 128);
  CHECK(r.preemptions > 0);
}

TEST_CASE("each engine's scheduler runs its load to the end", "[serving][load]") {
  for (const char* engine : {"vllm", "sglang", "llamacpp", "hf"}) {
    CAPTURE(engine);
    const Served s = serve(
        "llama-3-8b", {{"engine", engine}, {"gpu", "h100-sxm"}, {"context", 2048}, {"users", 8}});
    const dlcost::LoadResult r = simulate(s, {{"rate", 4},
                                              {"requests", 200},
                                              {"prompt", {{"uniform", {100, 900}}}},
                                              {"output", {{"normal", {200, 50}}}}});
    CHECK(r.requests == 200);
    CHECK(r.rejected == 0);
    CHECK(r.ttft_s.p50 > 0);
    CHECK(r.itl_s.p50 > 0);
    CHECK(r.e2e_s.p99 >= r.ttft_s.p99);
  }
}

TEST_CASE("requests longer than the context are rejected, not run", "[serving][load]") {
  const Served s = serve(
      "llama-3-8b", {{"engine", "llamacpp"}, {"gpu", "h100-sxm"}, {"context", 1024}, {"users", 2}});
  const dlcost::LoadResult r = simulate(
      s, {{"rate", 1}, {"requests", 20}, {"prompt", {{"uniform", {500, 1000}}}}, {"output", 200}});
  CHECK(r.rejected > 0);
  CHECK(r.requests + r.rejected == 20);
}

TEST_CASE("the generated load is the same on every run and platform", "[serving][load]") {
  LoadSettings s;
  s.rate = 5;
  s.requests = 20000;
  s.seed = 7;
  s.prompt.kind = dlcost::LengthDistribution::Kind::kUniform;
  s.prompt.lo = 10;
  s.prompt.hi = 20;
  const auto a = dlcost::loadRequests(s);
  const auto b = dlcost::loadRequests(s);
  REQUIRE(a.size() == 20000);
  CHECK(a.back().arrival_s == b.back().arrival_s);
  // Poisson at 5/s: 20,000 arrivals take 4,000 s (standard deviation sqrt(20000)/5 = 28 s).
  CHECK(a.back().arrival_s == Approx(4000).margin(120));
  int64_t lo = 100, hi = 0;
  for (const auto& q : a) {
    lo = std::min(lo, q.prompt_tokens);
    hi = std::max(hi, q.prompt_tokens);
  }
  CHECK(lo == 10);
  CHECK(hi == 20);
}

TEST_CASE("bad loads and traces name the field", "[serving][load][errors]") {
  struct Case {
    json load;
    const char* path;
  };
  const Case cases[] = {
      {json::object(), "/load/rate"},
      {{{"rate", 1}, {"concurrency", 2}}, "/load/rate"},
      {{{"rate", -1}}, "/load/rate"},
      {{{"rate", 1}, {"prompt", 0}}, "/load/prompt"},
      {{{"rate", 1}, {"prompt", {{"uniform", {300, 100}}}}}, "/load/prompt/uniform/1"},
      {{{"rate", 1}, {"speed", 1}}, "/load/speed"},
      {{{"trace", {{0, 10, 10}, {1, -5, 10}}}}, "/load/trace/1/1"},
      {{{"trace", {{2, 10, 10}, {1, 5, 10}}}}, "/load/trace/1"},
      {{{"concurrency", 1}, {"replicas", 2}}, "/load/concurrency"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.load.dump());
    CHECK(errorPath([&] { dlcost::loadSettingsFromJson(c.load, "/load", 100, 100); }) == c.path);
  }
}

TEST_CASE("trace text: CSV with a header, JSON Lines, and refusals", "[serving][load][errors]") {
  const auto csv = dlcost::parseTraceText(
      "arrival_s,prompt_tokens,output_tokens\n0,10,5\n"
      "0.5, 20 ,6\n\n# a comment\n1.5,30,7\n");
  REQUIRE(csv.size() == 3);
  CHECK(csv[1].prompt_tokens == 20);
  CHECK(csv[2].arrival_s == 1.5);
  const auto jsonl = dlcost::parseTraceText(
      "{\"timestamp\": 0, \"input_len\": 12, \"output_len\": 3}\n"
      "{\"arrival_s\": 2, \"prompt_tokens\": 4, \"output_tokens\": 1}\n");
  REQUIRE(jsonl.size() == 2);
  CHECK(jsonl[0].prompt_tokens == 12);
  CHECK(errorPath([] { dlcost::parseTraceText("0,10,5\n1,x,5\n"); }) == "/load/trace/1/1");
  CHECK(errorPath([] { dlcost::parseTraceText("0,10\n"); }) == "/load/trace/0");
  CHECK(errorPath([] { dlcost::parseTraceText("{\"arrival_s\": 0\n"); }) == "/load/trace/0");
  // Ten million rows are refused by counting lines, before anything is read into memory.
  const std::string huge(10'000'001, '\n');
  CHECK(errorPath([&] { dlcost::parseTraceText(huge); }) == "/load/trace");
}

TEST_CASE("the capacity search finds the largest rate within the objectives", "[serving][load]") {
  const json doc = {{"model", {{"preset", "llama-3-8b"}}},
                    {"workload", kVllmH100},
                    {"load",
                     {{"rate", 20},
                      {"requests", 300},
                      {"prompt", 512},
                      {"output", 128},
                      {"slo_ttft_ms", 500},
                      {"slo_itl_ms", 50}}}};
  const json out = dlcost::serveSimDocument(doc);
  REQUIRE(out.contains("capacity"));
  const json& c = out["capacity"];
  CHECK(c["max_rate"].get<double>() > 0);
  CHECK(c["at_max"]["meets_slo"] == true);
  CHECK(c["at_max"]["ttft_s"]["p99"].get<double>() <= 0.5);
  CHECK(c["replicas"].get<int64_t>() ==
        static_cast<int64_t>(std::ceil(20 / c["max_rate"].get<double>() - 1e-9)));
  CHECK(c["simulations"].get<int>() <= dlcost::kMaxCapacitySimulations);
}

TEST_CASE("serve-sim starts each request from an empty cache: cached_tokens is refused",
          "[serving][load]") {
  // cached_tokens sets the steady-state plan's prefill (test_serving.cpp); the simulation
  // draws every prompt from the load and does not simulate a prefix cached before it.
  json w = kVllmH100;
  w["cached_tokens"] = 100;
  CHECK(errorPath([&] {
          dlcost::serveSimDocument(
              {{"model", {{"preset", "llama-3-8b"}}},
               {"workload", w},
               {"load", {{"rate", 1}, {"requests", 10}, {"prompt", 64}, {"output", 16}}}});
        }) == "/workload/cached_tokens");
}
