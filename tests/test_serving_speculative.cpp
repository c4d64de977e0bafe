// Speculative decoding with a draft model (vLLM's draft_model method): the tokens a step
// yields, the draft's weights and KV pages in the plan, and the refusals.
#include <catch2/catch.hpp>

#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/serving/serving.hpp"
#include "input_error_path.hpp"
#include "serving/draft_model.hpp"
#include "transformer_test_util.hpp"

using dlcost::MemoryKey;
using dlcost::Report;
using dlcost::testing::errorPath;
using dlcost::testing::runPreset;
using nlohmann::json;

namespace {

json vllm70b(double acceptance) {
  json w = {{"mode", "infer"}, {"dtype", "bf16"}, {"engine", "vllm"}, {"gpu", "h100-sxm"},
            {"gpus", 4},       {"tp", 4},         {"context", 4096},  {"users", 1}};
  if (acceptance > 0) {
    w["draft_preset"] = "llama-3.2-1b";
    w["draft_acceptance"] = acceptance;
  }
  return w;
}

}  // namespace

TEST_CASE("A step yields (1 - a^(k+1)) / (1 - a) tokens", "[serving][speculative]") {
  // Leviathan, Kalman and Matias 2023, "Fast Inference from Transformers via Speculative
  // Decoding", eq. 1: the expected number of tokens a step of k proposals generates.
  struct Case {
    double a;
    int64_t k;
    double tokens;
  };
  const Case c =
      GENERATE(Case{0.8, 5, 3.68928}, Case{0.5, 4, 1.9375}, Case{0.9, 1, 1.9}, Case{0.6, 3, 2.176});
  CAPTURE(c.a, c.k);
  CHECK(dlcost::tokensPerStep(c.a, c.k) == Approx(c.tokens).epsilon(1e-5));
}

TEST_CASE("The draft's weights and KV pages sit beside the model's", "[serving][speculative]") {
  const Report plain = runPreset("llama-3-70b", vllm70b(0));
  const Report spec = runPreset("llama-3-70b", vllm70b(0.7));
  const dlcost::ServingPlan &a = *plain.serving, &b = *spec.serving;
  // Llama 3.2 1B in bf16: meta-llama/Llama-3.2-1B's model.safetensors holds 2,471,628,800
  // bytes of tensors (1,235,814,400 parameters, the LM head tied), over tp 4.
  CHECK(b.device.bytesOf(MemoryKey::kWeights) - a.device.bytesOf(MemoryKey::kWeights) ==
        int64_t{2471628800} / 4);
  // A block: 16 tokens of the model's 80 layers and the draft's 16, K and V of 8 KV heads of
  // 128 (70B) and of 64 (1B) over tp 4, 2 bytes each.
  CHECK(b.block_bytes == int64_t{16} * (80 * 2 * 2 * 128 * 2 + 16 * 2 * 2 * 64 * 2));
  CHECK(b.command.find("\"method\": \"draft_model\", \"model\": \"meta-llama/Llama-3.2-1B\", "
                       "\"num_speculative_tokens\": 5") != std::string::npos);
}

TEST_CASE("Speculation pays when the draft is accepted, and costs when it is not",
          "[serving][speculative][speed]") {
  const double plain = runPreset("llama-3-70b", vllm70b(0)).serving->speed.itl_s;
  const auto itl = [](double a) { return runPreset("llama-3-70b", vllm70b(a)).serving->speed; };
  const dlcost::ServingSpeed good = itl(0.8), bad = itl(0.1);
  CHECK(good.itl_s < plain);
  CHECK(bad.itl_s > plain);
  // A step is the draft's five forwards and one check over six tokens a sequence.
  CHECK(good.itl_s == Approx((good.draft_s + good.verify_s) / good.tokens_per_step));
  // The check reads the same weights as a plain step: at batch 1 it takes about as long.
  CHECK(good.verify_s == Approx(plain).epsilon(0.1));
}

TEST_CASE("A draft the plan does not model is an error at its field", "[serving][speculative]") {
  json other = vllm70b(0.7);
  other["engine"] = "sglang";
  CHECK(errorPath([&] { runPreset("llama-3-70b", other); }) == "/workload/draft_preset");
  json no_rate = vllm70b(0.7);
  no_rate.erase("draft_acceptance");
  CHECK(errorPath([&] { runPreset("llama-3-70b", no_rate); }) == "/workload/draft_acceptance");
  // Llama 2's 32,000-token vocabulary cannot draft for Llama 3's 128,256.
  json vocab = vllm70b(0.7);
  vocab["draft_preset"] = "llama-2-7b";
  CHECK(errorPath([&] { runPreset("llama-3-70b", vocab); }) == "/workload/draft_preset");
  json encoder = vllm70b(0.7);
  encoder["draft_preset"] = "bert-base-uncased";
  CHECK(errorPath([&] { runPreset("llama-3-70b", encoder); }) == "/workload/draft_preset");
}
