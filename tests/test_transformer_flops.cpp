// Transformer FLOPs: training steps, prefill and decode, against published formulas.
#include <catch2/catch.hpp>

#include "transformer_test_util.hpp"

using dlcost::testing::phase;
using dlcost::testing::runPreset;
using nlohmann::json;

TEST_CASE("a GPT training step costs Megatron's 72 or 96 B s l h^2 (1 + s/6h + V/(12|16)lh)",
          "[transformer][flops]") {
  // Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training on GPU Clusters
  // Using Megatron-LM"), section 5.1: one step of a GPT model with full activation
  // recomputation is 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) FLOPs = 4 forward passes of
  // the layers plus 3 of the logits; without recomputation 3 forward passes of each, i.e.
  // 72 B s l h^2 (1 + s/(6h) + V/(12 l h)). GPT-2 small has exactly that layer (4h MLP).
  const int64_t l = 12, h = 768, v = 50257;
  const int64_t b = GENERATE(1, 4);
  const int64_t s = GENERATE(128, 1024);
  CAPTURE(b, s);
  // Megatron's count is for standard (eager) attention.
  const json w = {{"batch", b}, {"seq_len", s}, {"dtype", "mixed"}, {"attention", "eager"}};
  const dlcost::Report none = runPreset("gpt2", w);
  const int64_t forward = 24 * b * s * l * h * h + 4 * b * s * s * l * h + 2 * b * s * h * v;
  CHECK(phase(none, "forward").flops == forward);
  CHECK(phase(none, "forward").flops + phase(none, "backward").flops ==
        72 * b * s * l * h * h + 12 * b * s * s * l * h + 6 * b * s * h * v);
  json wf = w;
  wf["recompute"] = "full";
  const dlcost::Report full = runPreset("gpt2", wf);
  CHECK(phase(full, "forward").flops + phase(full, "backward").flops ==
        96 * b * s * l * h * h + 16 * b * s * s * l * h + 6 * b * s * h * v);
  // FLOPs = 2 x MACs, and the report's MACs are the phases' halves.
  CHECK(2 * none.macs.forward == phase(none, "forward").flops);
  CHECK(2 * none.macs.backward == phase(none, "backward").flops);
  // Selective recomputation re-runs the attention matmuls (4 B s^2 l h) in the backward.
  json ws = w;
  ws["recompute"] = "selective";
  const dlcost::Report sel = runPreset("gpt2", ws);
  CHECK(phase(sel, "backward").flops - phase(none, "backward").flops == 4 * b * s * s * l * h);
  // FlashAttention's backward costs 2.5x its forward attention matmuls instead of 2x.
  json wflash = w;
  wflash["attention"] = "flash";
  const dlcost::Report flash = runPreset("gpt2", wflash);
  CHECK(phase(flash, "backward").flops - phase(none, "backward").flops == 2 * b * s * s * l * h);
}

TEST_CASE("decoding one token costs 2 x non-embedding parameters plus the attention term",
          "[transformer][flops]") {
  // Kaplan et al. 2020 ("Scaling Laws for Neural Language Models"), Table 1 and section
  // 2.1: a forward pass costs 2N FLOPs per token (N: weights of the matmuls, LM head
  // included) plus the attention over the context. dlcost counts QK^T and AV in full:
  // 4 x layers x context x heads x head_dim. For Llama-2-7b, N = all parameters minus the
  // embedding table (32000 x 4096) and the 65 RMSNorms (65 x 4096).
  const int64_t prompt = GENERATE(1, 1000, 4000);
  const int64_t batch = GENERATE(1, 8);
  CAPTURE(prompt, batch);
  const dlcost::Report r = runPreset(
      "llama-2-7b",
      {{"mode", "infer"}, {"dtype", "fp16"}, {"batch", batch}, {"prompt_tokens", prompt}});
  const int64_t n = 6738415616 - 32000LL * 4096 - 65 * 4096;
  CHECK(phase(r, "decode").flops == batch * (2 * n + 4 * 32 * prompt * 4096));
  CHECK(phase(r, "decode").tokens == batch);
  CHECK(r.transformer->forward_flops_per_token == 2 * n + 4 * 32 * prompt * 4096);
  // The prefill of the prompt: every block matmul for each prompt token, attention over
  // the full prompt square, the LM head for the last token only (what generation needs).
  const int64_t blocks = n - 32000LL * 4096;
  CHECK(phase(r, "prefill").flops ==
        batch * (2 * prompt * blocks + 4 * 32 * prompt * prompt * 4096 + 2 * 32000LL * 4096));
}

TEST_CASE("an MoE token costs the FLOPs of its active parameters", "[transformer][flops][moe]") {
  // Mixtral of Experts (Jiang et al. 2024), section 2: each token uses 13B active
  // parameters; decode FLOPs are 2 x (active - embeddings - norms) + the attention term.
  const dlcost::Report r =
      runPreset("mixtral-8x7b", {{"mode", "infer"}, {"dtype", "bf16"}, {"prompt_tokens", 512}});
  const int64_t active = 12879925248 - 32000LL * 4096 - 65 * 4096;
  CHECK(phase(r, "decode").flops == 2 * active + 4 * 32 * 512 * 4096);
}

TEST_CASE("generating tokens adds one decode step each", "[transformer][flops]") {
  // Decode step j (j = 1..g) attends to prompt + j tokens: the report's forward MACs are
  // the prefill plus the sum of the steps, the decode phase is the last step.
  const json w = {{"mode", "infer"}, {"dtype", "fp16"}, {"prompt_tokens", 100}};
  const dlcost::Report base = runPreset("gpt2", w);
  json wg = w;
  wg["generated_tokens"] = 10;
  const dlcost::Report gen = runPreset("gpt2", wg);
  const int64_t l = 12, h = 768;
  const int64_t step_linear = l * 12 * h * h + h * 50257;  // MACs of one token's matmuls
  int64_t steps = 0;
  for (int64_t j = 1; j <= 10; ++j) steps += step_linear + 2 * l * (100 + j) * h;
  CHECK(gen.macs.forward - base.macs.forward == steps);
  CHECK(phase(gen, "decode").flops == 2 * (step_linear + 2 * l * 110 * h));
}

TEST_CASE("gradient accumulation multiplies the step's MACs, not its memory or phases",
          "[transformer][flops]") {
  const json w = {{"batch", 2}, {"seq_len", 512}, {"dtype", "mixed"}};
  const dlcost::Report one = runPreset("gpt2", w);
  json w4 = w;
  w4["grad_accum"] = 4;
  const dlcost::Report four = runPreset("gpt2", w4);
  CHECK(four.macs.forward == 4 * one.macs.forward);
  CHECK(four.macs.backward == 4 * one.macs.backward);
  // Phases describe one micro-batch, what a roofline times.
  CHECK(phase(four, "backward").flops == phase(one, "backward").flops);
  CHECK(four.transformer->tokens_per_step == 4 * 2 * 512);
  CHECK(four.memory.total == one.memory.total);
}

TEST_CASE("LoRA's backward skips the frozen weights' gradients", "[transformer][flops][lora]") {
  // Frozen base matmuls need only input gradients (1x forward); the attention matmuls
  // (2x) and the adapters (2x) keep both. Hu et al. 2021 (LoRA), section 4.2.
  const json w = {{"dtype", "bf16"}, {"seq_len", 256}, {"attention", "eager"}};
  const dlcost::Report full = runPreset("llama-2-7b", w);
  json wl = w;
  wl["finetune"] = "lora";
  const dlcost::Report lora = runPreset("llama-2-7b", wl);
  const int64_t s = 256;
  const int64_t core = 32 * 2 * s * s * 4096;               // QK^T + AV MACs
  const int64_t adapters = s * 32 * 2 * 8 * (4096 + 4096);  // q_proj, v_proj, r = 8
  const dlcost::WideCount linear = full.macs.forward - core;
  CHECK(lora.macs.forward == full.macs.forward + adapters);
  CHECK(lora.macs.backward == linear + 2 * core + 2 * adapters);
  CHECK(full.macs.backward == 2 * full.macs.forward);
}

TEST_CASE("a decode step moves every weight once plus the whole KV cache",
          "[transformer][flops][roofline]") {
  // The memory-bound decode of Pope et al. 2022 ("Efficiently Scaling Transformer
  // Inference", section 2): one step reads all weights and the KV cache. Llama-2-7b in
  // fp16: 2 bytes per parameter; 512 KiB of cache per token.
  const int64_t batch = GENERATE(1, 16);
  CAPTURE(batch);
  const dlcost::Report r = runPreset("llama-2-7b", {{"mode", "infer"},
                                                    {"dtype", "fp16"},
                                                    {"batch", batch},
                                                    {"prompt_tokens", 1000},
                                                    {"generated_tokens", 24}});
  CHECK(phase(r, "decode").bytes == 2 * 6738415616 + batch * 1024 * 512 * 1024);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kGradients) == 0);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kOptimizerStates) == 0);
  // Mixtral at batch 1 reaches 2 of its 8 experts per layer: the other six experts'
  // weights (32 x 6 x 3 x 4096 x 14336 bf16 values) are not read.
  const dlcost::Report m = runPreset(
      "mixtral-8x7b",
      {{"mode", "infer"}, {"dtype", "bf16"}, {"prompt_tokens", 1000}, {"generated_tokens", 24}});
  const int64_t kv = 1024 * 2 * 32 * 8 * 128 * 2;
  CHECK(phase(m, "decode").bytes == 2 * (46702792704 - 32LL * 6 * 3 * 4096 * 14336) + kv);
}

TEST_CASE("each row's traffic is its weights plus its input and output",
          "[transformer][flops][roofline]") {
  // Llama-2-7b, fp16, one prompt token: an MLP row reads its 3 x 4096 x 11008 weights and
  // RMSNorm (2 bytes each) and moves a 4096-wide input and output; the tied-or-not LM head
  // reads the whole 32000 x 4096 matrix; an embedding lookup reads one row per token.
  const dlcost::Report r =
      runPreset("llama-2-7b", {{"mode", "infer"}, {"dtype", "fp16"}, {"prompt_tokens", 1}});
  CHECK(dlcost::testing::row(r, "layers.0.mlp").bytes_accessed ==
        2 * (3 * 4096LL * 11008 + 4096) + 2 * (4096 + 4096));
  CHECK(dlcost::testing::row(r, "lm_head").bytes_accessed ==
        2 * 32000LL * 4096 + 2 * (4096 + 32000));
  CHECK(dlcost::testing::row(r, "embeddings").bytes_accessed == 2 * 4096 + 2 * (4096 + 4096));
}
