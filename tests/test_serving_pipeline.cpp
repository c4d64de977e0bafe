// vLLM over pipeline stages (--pipeline-parallel-size): the layer split, each stage's weights,
// the KV pool of the smallest stage, and decode with a batch in flight per stage.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "dlcost/base/error.hpp"
#include "dlcost/explore/serve_sim.hpp"
#include "dlcost/serving/load_json.hpp"
#include "dlcost/serving/load_sim.hpp"
#include "dlcost/serving/serving.hpp"
#include "input_error_path.hpp"
#include "serving/vllm_stages.hpp"
#include "transformer_test_util.hpp"

using dlcost::MemoryKey;
using dlcost::Report;
using dlcost::testing::errorPath;
using dlcost::testing::runPreset;
using nlohmann::json;

namespace {

json vllmOn(int64_t tp, int64_t pp, int64_t users) {
  return {{"mode", "infer"},  {"dtype", "bf16"},
          {"engine", "vllm"}, {"gpu", "h100-sxm"},
          {"gpus", tp * pp},  {"tp", tp},
          {"pp", pp},         {"context", 8192},
          {"users", users},   {"prompt_tokens", 512}};
}

}  // namespace

TEST_CASE("vLLM splits the layers over its stages as get_pp_indices does", "[serving][pipeline]") {
  // vllm/distributed/utils.py get_pp_indices (v0.11 to v0.19): layers // pp each; the
  // remainder one more each to partitions[-2], [-3], ... (the last stage holds the norm and
  // the LM head).
  struct Case {
    int64_t layers, pp;
    std::vector<int64_t> split;
  };
  const Case c =
      GENERATE(Case{80, 2, {40, 40}}, Case{80, 3, {27, 27, 26}}, Case{32, 5, {6, 6, 7, 7, 6}},
               Case{61, 4, {15, 15, 16, 15}}, Case{126, 8, {15, 16, 16, 16, 16, 16, 16, 15}});
  CAPTURE(c.layers, c.pp);
  CHECK(dlcost::vllmStageLayers(c.layers, c.pp) == c.split);
}

TEST_CASE("The stages' weights add up to the model's, the tied LM head's table once more",
          "[serving][pipeline]") {
  struct Case {
    const char* preset;
    bool tied;
  };
  const Case c = GENERATE(Case{"llama-3-70b", false}, Case{"llama-3.2-1b", true});
  CAPTURE(c.preset);
  json w = vllmOn(1, 2, 1);
  const Report one = runPreset(c.preset, vllmOn(1, 1, 1));
  const dlcost::Config cfg =
      dlcost::parseConfig(json{{"model", {{"preset", c.preset}}}, {"workload", w}});
  const auto& t = std::get<dlcost::Transformer>(cfg.model.body);
  int64_t sum = 0;
  for (const dlcost::PipelineStage& s : dlcost::vllmStages(t, cfg.workload)) sum += s.weight_bytes;
  const int64_t whole = one.memory.bytesOf(MemoryKey::kWeights);
  // vLLM builds embed_tokens on the last rank too when the LM head is tied to it.
  const int64_t table = t.vocab * t.hidden * 2;
  CHECK(sum == whole + (c.tied ? table : 0));
}

TEST_CASE("vLLM's pool over stages is the smallest stage's blocks", "[serving][pipeline]") {
  // Llama 3 70B on 4 H100s, tp 2 x pp 2: 40 layers a stage. The last stage holds the LM head
  // and runs the sampler, so it keeps the fewest blocks; vLLM V1 gives every stage that many
  // (get_kv_cache_configs). A block is 16 tokens x 40 layers x K and V of 4 KV heads (8 over
  // tp 2) x 128 x 2 bytes.
  const Report r = runPreset("llama-3-70b", vllmOn(2, 2, 64));
  const dlcost::ServingPlan& p = *r.serving;
  CHECK(p.stage_layers == std::vector<int64_t>{40, 40});
  CHECK(p.limiting_stage == 1);
  CHECK(p.block_bytes == int64_t{16} * 40 * 2 * 4 * 128 * 2);
  const int64_t left = p.budget_bytes - p.device.bytesOf(MemoryKey::kWeights) -
                       p.device.bytesOf(MemoryKey::kActivations);
  CHECK(p.num_blocks == left / p.block_bytes);
  CHECK(p.kv_tokens == p.num_blocks * 16);
  CHECK(p.command.find("--tensor-parallel-size 2 --pipeline-parallel-size 2") != std::string::npos);
  // Half the layers a GPU: more than twice the blocks of the same GPUs at tp 2 alone, which
  // hold every layer's weights and KV.
  const Report flat = runPreset("llama-3-70b", vllmOn(2, 1, 1));
  CHECK(p.num_blocks > 2 * flat.serving->num_blocks);
}

TEST_CASE("Two batches in flight over two stages double the tokens/s at about the latency",
          "[serving][pipeline][speed]") {
  // Each batch passes both stages in turn (every weight once, its own KV), so a user's token
  // takes about one forward of the whole model plus a send between the stages, while the
  // other batch keeps the other stage busy.
  const Report one = runPreset("llama-3-70b", vllmOn(2, 1, 1));
  const Report two = runPreset("llama-3-70b", vllmOn(2, 2, 2));
  const double itl1 = one.serving->speed.itl_s, itl2 = two.serving->speed.itl_s;
  CHECK(itl2 > itl1);
  CHECK(itl2 < itl1 * 1.05);
  CHECK(two.serving->speed.tokens_per_s > 1.9 * one.serving->speed.tokens_per_s);
}

TEST_CASE("Pipeline stages the plan does not model are errors at /workload/pp",
          "[serving][pipeline][errors]") {
  json sglang = vllmOn(2, 2, 1);
  sglang["engine"] = "sglang";
  CHECK(errorPath([&] { runPreset("llama-3-70b", sglang); }) == "/workload/pp");
  // gemma-2's sliding-window layers: vLLM's hybrid KV groups over stages.
  CHECK(errorPath([&] { runPreset("gemma-2-9b", vllmOn(1, 2, 1)); }) == "/workload/pp");
  // The simulation under load runs one stage's iterations.
  json w = vllmOn(2, 2, 1);
  const dlcost::Config cfg =
      dlcost::parseConfig(json{{"model", {{"preset", "llama-3-70b"}}}, {"workload", w}});
  const Report r = dlcost::estimate(cfg.model, cfg.workload);
  const dlcost::LoadSettings load =
      dlcost::loadSettingsFromJson(json{{"rate", 1.0}, {"requests", 10}, {"output", 64}}, "/load",
                                   r.transformer->seq_len, r.transformer->generated_tokens);
  CHECK(errorPath([&] {
          dlcost::simulateLoad(std::get<dlcost::Transformer>(cfg.model.body), cfg.workload, r,
                               load);
        }) == "/workload/pp");
}
