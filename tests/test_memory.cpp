// Memory and compute rules: optimizer and precision multipliers, the saved-for-backward
// simulation checked by hand on small graphs, inference peaks, the backward MAC rule, and
// the fixed + batch x per_sample decomposition behind max_batch.
#include <algorithm>

#include <catch2/catch.hpp>

#include "support.hpp"

using dlcost::Report;
using dlcost::test::row;
using dlcost::test::run;
using dlcost::test::runPreset;
using nlohmann::json;

namespace {

// LeNet-300-100 (mlp_mnist): 784*300+300 + 300*100+100 + 100*10+10 parameters.
constexpr int64_t kMlpParams = 266610;

/// The sum of the breakdown's lines, which must equal total.
/// The bytes of the terms alive in the peak phase (every term outside training).
int64_t sumOfLines(const dlcost::MemoryBreakdown& m) {
  int64_t sum = 0;
  for (const dlcost::MemoryTerm& t : m.terms) {
    if (t.phase == dlcost::MemoryPhase::kAlways || t.phase == m.peak_phase) sum += t.bytes;
  }
  return sum;
}

/// The backward pass's activation peak on top of the saved tensors, per sample: the largest
/// over the backward steps that can peak (the one a large batch peaks at).
int64_t activationPeakExtra(const dlcost::Report& r) {
  int64_t best = 0;
  for (const dlcost::BackwardCandidate& c : r.memory.backward_candidates)
    best = std::max(best, c.extra_per_sample);
  return best;
}

}  // namespace

TEST_CASE("optimizer states per parameter: sgd 0, momentum 1, adam/adamw 2, rmsprop 1, adagrad 1",
          "[memory][optimizer]") {
  // PyTorch torch.optim state per parameter: SGD without momentum none; SGD momentum
  // `momentum_buffer`; Adam/AdamW `exp_avg` and `exp_avg_sq`; RMSprop `square_avg` (the
  // default momentum=0 and centered=False add none); Adagrad `sum`.
  // bitsandbytes' Adam8bit (Dettmers et al. 2022) keeps both states in 8 bits.
  struct Case {
    const char* optimizer;
    int states;
    int state_bytes;
  };
  const auto c =
      GENERATE(Case{"sgd", 0, 4}, Case{"momentum", 1, 4}, Case{"adam", 2, 4}, Case{"adamw", 2, 4},
               Case{"rmsprop", 1, 4}, Case{"adagrad", 1, 4}, Case{"adam8bit", 2, 1});
  CAPTURE(c.optimizer);
  const auto r = runPreset("mlp_mnist", {{"optimizer", c.optimizer}, {"dtype", "fp32"}});
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kWeights) == kMlpParams * 4);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kGradients) == kMlpParams * 4);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kOptimizerStates) ==
        c.states * c.state_bytes * kMlpParams);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kMasterWeights) == 0);
}

TEST_CASE("precision sets bytes per weight, gradient, state and activation", "[memory][dtype]") {
  // fp32 4 bytes, fp16 and bf16 2 bytes (IEEE 754 binary16; bfloat16). Pure 16-bit training
  // keeps Adam's states in the weights' format (torch.zeros_like(param)). Mixed precision
  // (Micikevicius et al. 2018): 16-bit weights, gradients and activations, an fp32 master
  // copy and fp32 states -- the ZeRO paper's (Rajbhandari et al. 2020, section 3.1)
  // 2 + 2 + 4 + 4 + 4 = 16 bytes per parameter with Adam.
  struct Case {
    const char* dtype;
    int64_t weight, grad, master, state, act;
  };
  const auto c = GENERATE(Case{"fp32", 4, 4, 0, 4, 4}, Case{"fp16", 2, 2, 0, 2, 2},
                          Case{"bf16", 2, 2, 0, 2, 2}, Case{"mixed", 2, 2, 4, 4, 2});
  CAPTURE(c.dtype);
  const auto r = runPreset("mlp_mnist", {{"dtype", c.dtype}, {"optimizer", "adam"}});
  const auto& m = r.memory;
  CHECK(m.bytesOf(dlcost::MemoryKey::kWeights) == c.weight * kMlpParams);
  CHECK(m.bytesOf(dlcost::MemoryKey::kGradients) == c.grad * kMlpParams);
  CHECK(m.bytesOf(dlcost::MemoryKey::kMasterWeights) == c.master * kMlpParams);
  CHECK(m.bytesOf(dlcost::MemoryKey::kOptimizerStates) == 2 * c.state * kMlpParams);
  // Saved activations (see the hand-checked MLP below): 784 + 300 + 100 values.
  CHECK(m.bytesOf(dlcost::MemoryKey::kActivations) == (784 + 300 + 100) * c.act);
  if (std::string(c.dtype) == "mixed") {
    CHECK(m.bytesOf(dlcost::MemoryKey::kWeights) + m.bytesOf(dlcost::MemoryKey::kGradients) +
              m.bytesOf(dlcost::MemoryKey::kMasterWeights) +
              m.bytesOf(dlcost::MemoryKey::kOptimizerStates) ==
          16 * kMlpParams);
  }
}

TEST_CASE("inference keeps weights only: no gradients, master weights or optimizer states",
          "[memory][mode]") {
  const char* dtype = GENERATE("fp32", "fp16", "bf16", "mixed");
  CAPTURE(dtype);
  const auto r = runPreset("mlp_mnist", {{"mode", "infer"}, {"dtype", dtype}});
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kWeights) ==
        (std::string(dtype) == "fp32" ? 4 : 2) * kMlpParams);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kGradients) == 0);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kMasterWeights) == 0);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kOptimizerStates) == 0);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kBackwardPeakExtra) == 0);
  CHECK(r.macs.backward == 0);
}

TEST_CASE("batchnorm buffers stay fp32 under mixed precision and follow fp16 otherwise",
          "[memory][dtype]") {
  // 2C running statistics in the buffer format plus one int64 num_batches_tracked.
  struct Case {
    const char* dtype;
    int64_t bytes;
  };
  const auto c = GENERATE(Case{"fp32", 2 * 16 * 4 + 8}, Case{"fp16", 2 * 16 * 2 + 8},
                          Case{"mixed", 2 * 16 * 4 + 8});
  CAPTURE(c.dtype);
  const auto r = run(json::array({{{"type", "conv2d"}, {"out_channels", 16}, {"kernel", 3}},
                                  {{"type", "batchnorm2d"}}}),
                     {3, 8, 8}, {{"dtype", c.dtype}});
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kBuffers) == c.bytes);
}

TEST_CASE("LeNet-300-100 training memory by hand", "[memory][simulation]") {
  // Steps: forward 0..5 (tensor t is made at step t), backward of layer i at step 10 - i.
  // Saved (fp32): the image (784, by fc1), relu1's result (300, by relu1 and fc2), relu2's
  // result (100): 1,184 values = 4,736 bytes. The peak is relu1's backward (step 9): the
  // saved image 784 + relu1's result 300 + its output gradient 300 + its input gradient 300
  // = 1,684 values; 1,684 - 1,184 = 500 values = 2,000 bytes on top of the saved ones.
  // fc1 computes no gradient for the image, so none of 784 values is ever allocated.
  const auto r = runPreset("mlp_mnist", {{"batch", 1}, {"dtype", "fp32"}});
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kActivations) == 4736);
  CHECK(activationPeakExtra(r) == 2000);
}

TEST_CASE("inference memory is the peak of live tensors, below training", "[memory][mode]") {
  // LeNet-300-100 inference: the caller holds the image (784 values) for the whole forward
  // (eager PyTorch: `out = model(x)`); the peak is relu1's step, which holds fc1's output
  // and its own (300 + 300): 1,384 values = 5,536 bytes at fp32. Everything else is freed
  // after its last use.
  const auto infer = runPreset("mlp_mnist", {{"mode", "infer"}});
  CHECK(infer.memory.bytesOf(dlcost::MemoryKey::kActivations) == 5536);
  CHECK(infer.memory.per_sample == 5536);
  CHECK(row(infer, "input").activation_bytes == 784 * 4);  // inference rows: bytes allocated
  CHECK(row(infer, "fc1").activation_bytes == 300 * 4);
  const auto train = runPreset("mlp_mnist", {{"mode", "train"}});
  CHECK(infer.memory.total < train.memory.total);

  // AlexNet inference: the image (held by the caller), features.0's output (which the
  // in-place ReLU overwrites), the pooled features.2 output and its int64 indices (8 bytes,
  // two fp32 values each; at::max_pool2d computes them and drops them on return,
  // aten/src/ATen/native/Pooling.cpp) are live at features.2: 3*224*224 + 64*55*55 +
  // 3 x 64*27*27 fp32 values; every later step holds less. Measured on PyTorch 1.13.1 by
  // scripts/validate-torch (docs/accuracy.md).
  CHECK(runPreset("alexnet", {{"mode", "infer"}}).memory.bytesOf(dlcost::MemoryKey::kActivations) ==
        (3 * 224 * 224 + 64 * 55 * 55 + 3 * 64 * 27 * 27) * 4);
  const auto alex_infer = runPreset("alexnet", {{"mode", "infer"}, {"batch", 8}});
  const auto alex_train = runPreset("alexnet", {{"mode", "train"}, {"batch", 8}});
  CHECK(alex_infer.memory.bytesOf(dlcost::MemoryKey::kActivations) <
        alex_train.memory.bytesOf(dlcost::MemoryKey::kActivations));
  CHECK(alex_infer.memory.total < alex_train.memory.total);
}

TEST_CASE("a residual block by hand", "[memory][simulation]") {
  // input[8] -> fc1 -> relu1 (in place) -> fc2 -> sum = relu1 + fc2 -> relu2; fp32, so
  // each tensor is 32 bytes. Saved: the input (fc1), relu1's result = fc1's memory (relu1,
  // fc2), relu2's result: 3 tensors = 96 bytes. Backward steps 6 (relu2) .. 10 (fc1):
  // at step 6 live are the 3 saved + relu2's output gradient + sum's gradient = 5 tensors;
  // at step 7 (the add) relu2's result is freed, sum's gradient and the gradients of both
  // branches are live: again 5. Peak 160 bytes, 64 on top of the saved ones.
  const json layers = json::array({{{"name", "fc1"}, {"type", "linear"}, {"out_features", 8}},
                                   {{"name", "relu1"}, {"type", "relu"}, {"inplace", true}},
                                   {{"name", "fc2"}, {"type", "linear"}, {"out_features", 8}},
                                   {{"name", "sum"}, {"type", "add"}, {"inputs", {"relu1", "fc2"}}},
                                   {{"name", "relu2"}, {"type", "relu"}}});
  const auto train = run(layers, {8});
  CHECK(train.memory.bytesOf(dlcost::MemoryKey::kActivations) == 96);
  CHECK(activationPeakExtra(train) == 64);
  CHECK(row(train, "fc1").activation_bytes == 32);  // kept via the in-place relu1
  CHECK(row(train, "relu1").activation_bytes == 0);
  CHECK(row(train, "sum").activation_bytes == 0);  // add saves nothing
  // Inference: at the add, the input (the caller holds it), relu1's memory (still needed),
  // fc2's output and the sum are live: 4 tensors = 128 bytes.
  const auto infer = run(layers, {8}, {{"mode", "infer"}});
  CHECK(infer.memory.bytesOf(dlcost::MemoryKey::kActivations) == 128);
}

TEST_CASE("an add passes its gradient through: a second reader accumulates into it",
          "[memory][simulation]") {
  // input[8] -> fc0 -> relu0 (y) -> fc1 -> sum = y + fc1 -> fc2 [1]; fp32, a [8] tensor is
  // 32 bytes. Saved: the input (fc0), y (relu0's result, also fc1's input), sum (fc2's
  // input): 96 bytes. Backward steps: fc2 6, sum 7, fc1 8, relu0 9, fc0 10.
  //   step 6: saved 96 + fc2's output gradient 4 + sum's gradient 32 = 132 (the peak);
  //   step 7: AddBackward hands sum's gradient to both inputs unchanged (no new memory)
  //           and the input/fc0 saved tensors remain: 96 - 32 (sum freed) + 32 = 96;
  //   step 8: fc1 computes its input gradient into a temporary (32) and accumulates it in
  //           place into y's gradient buffer, which is sum's gradient: 64 + 32 + 32 = 128;
  //   step 9: relu0 reads y and that buffer and makes fc0's output gradient: 128.
  // Counting each add input's gradient as a new tensor would give 160 at step 7.
  const json layers = json::array({{{"name", "fc0"}, {"type", "linear"}, {"out_features", 8}},
                                   {{"name", "y"}, {"type", "relu"}},
                                   {{"name", "fc1"}, {"type", "linear"}, {"out_features", 8}},
                                   {{"name", "sum"}, {"type", "add"}, {"inputs", {"y", "fc1"}}},
                                   {{"name", "fc2"}, {"type", "linear"}, {"out_features", 1}}});
  const auto r = run(layers, {8});
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kActivations) == 96);
  CHECK(activationPeakExtra(r) == 132 - 96);
}

TEST_CASE("a broadcast add input gets a new, reduced gradient", "[memory][simulation]") {
  // x [4, 2, 2] + s [4, 1, 1] (squeeze-excite-like, with add): s's gradient is sum_to(grad),
  // a new [4, 1, 1] tensor; x's is the output's gradient itself.
  const json layers =
      json::array({{{"name", "x"}, {"type", "conv2d"}, {"out_channels", 4}, {"kernel", 1}},
                   {{"name", "s"}, {"type", "global_avgpool2d"}},
                   {{"name", "m"}, {"type", "add"}, {"inputs", {"x", "s"}}},
                   {{"name", "fc"}, {"type", "conv2d"}, {"out_channels", 1}, {"kernel", 2}}});
  const auto r = run(layers, {1, 2, 2});
  // Saved: the input (4 values, x's input), x (16, the pool's input), m (16, fc's input):
  // 36 values = 144 bytes. Backward steps: fc 5, m 6, s 7, x 8.
  //   step 5: saved 144 + fc's output gradient 4 + m's gradient 64 = 212;
  //   step 6: the input 16 + x 64 + m's gradient (which is also x's) 64 + s's reduced
  //           gradient 16 = 160;
  //   step 7: the pool computes its input gradient into a temporary (64) and accumulates
  //           it into x's buffer: 16 + 64 + 64 + 16 + 64 = 224, the peak.
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kActivations) == 144);
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kBackwardPeakExtra) == 224 - 144);
}

TEST_CASE("a tensor no layer reads is an output: kept to the loss and given a gradient",
          "[memory][simulation]") {
  // input[2] -> fc0 [8] -> aux = fc_aux [2] (an auxiliary head, GoogLeNet-style) and
  // main = fc1 [2] (reading fc0). fp32. Saved: the input (8 bytes) and fc0's output (32,
  // read by both heads): 40. Backward steps: main 4, aux 5, fc0 6.
  //   step 4: saved 40 + both heads' loss gradients 8 + 8 + fc0's output gradient 32 = 88;
  //   step 5: the aux head's input gradient is a temporary (32) accumulated into fc0's:
  //           40 + 8 + 32 + 32 = 112, the peak.
  const json layers =
      json::array({{{"name", "fc0"}, {"type", "linear"}, {"out_features", 8}},
                   {{"name", "aux"}, {"type", "linear"}, {"out_features", 2}},
                   {{"name", "main"}, {"type", "linear"}, {"out_features", 2}, {"inputs", "fc0"}}});
  const auto r = run(layers, {2});
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kActivations) == 40);
  CHECK(activationPeakExtra(r) == 112 - 40);
  // Both heads are trained: fc0 1x (16 MACs), each head 2x (16 MACs each).
  CHECK(r.macs.backward == 16 + 2 * 16 + 2 * 16);
  // Inference: both outputs live to the end of the forward pass, with fc0's output and the
  // input the caller holds: the peak is 32 + 8 + 8 + 8 = 56 (fc0's own step holds 8 + 32).
  CHECK(run(layers, {2}, {{"mode", "infer"}}).memory.bytesOf(dlcost::MemoryKey::kActivations) ==
        56);
}

TEST_CASE("a concatenation by hand", "[memory][simulation]") {
  // input[4] -> a = linear 4, b = linear 6 (both read the input) -> cat [10] -> fc linear 2.
  // Saved (fp32): the input (16 bytes, by a and b, once) and cat's output (40, by fc);
  // concat itself saves nothing. Peak at fc's backward: input 16 + cat 40 + the gradients
  // of fc's output 8 and of cat 40 = 104 bytes, 48 on top of the saved 56.
  const json layers =
      json::array({{{"name", "a"}, {"type", "linear"}, {"out_features", 4}},
                   {{"name", "b"}, {"type", "linear"}, {"out_features", 6}, {"inputs", "input"}},
                   {{"name", "cat"}, {"type", "concat"}, {"inputs", {"a", "b"}}},
                   {{"name", "fc"}, {"type", "linear"}, {"out_features", 2}}});
  const auto train = run(layers, {4});
  CHECK(train.memory.bytesOf(dlcost::MemoryKey::kActivations) == 56);
  CHECK(activationPeakExtra(train) == 48);
  // Inference peak at cat: the input (16, held by the caller) + a (16) + b (24) + cat (40)
  // = 96 bytes.
  const auto infer = run(layers, {4}, {{"mode", "infer"}});
  CHECK(infer.memory.bytesOf(dlcost::MemoryKey::kActivations) == 96);
}

TEST_CASE("each op saves what its PyTorch gradient formula reads", "[memory][saved]") {
  // One layer after a conv2d(4, 1x1) on a [4, 6, 6] fp32 input (144 values, 576 bytes; the
  // conv keeps the input, 576 bytes, and gives the layer an input that needs a gradient),
  // training, batch 1. What autograd keeps (tools/autograd/derivatives.yaml): conv/linear/
  // pooling their input, max pooling also int64 indices per output, layernorm fp32 mean and
  // rstd per row, relu/sigmoid/tanh/softmax their result, relu6/gelu their input, in-place
  // silu a copy of the input it overwrites, dropout a 1-byte mask, multiply its factors,
  // add/concat/flatten nothing. The layer's own output is the model output, counted only
  // when saved. Inference: the layer alone on the input.
  struct Case {
    json layer;
    int64_t saved;
    int64_t infer_scratch = 0;  // max pooling's int64 indices, alive during its step
  };
  const int64_t input = 576;
  const auto c = GENERATE_COPY(
      Case{{{"type", "conv2d"}, {"out_channels", 2}, {"kernel", 1}}, input},
      Case{{{"type", "linear"}, {"out_features", 3}}, input},
      Case{{{"type", "maxpool2d"}, {"kernel", 2}}, input + 4 * 3 * 3 * 8, 4 * 3 * 3 * 8},
      Case{{{"type", "adaptive_maxpool2d"}, {"output_size", 3}},
           input + 4 * 3 * 3 * 8,
           4 * 3 * 3 * 8},
      Case{{{"type", "avgpool2d"}, {"kernel", 2}}, input},
      Case{{{"type", "global_avgpool2d"}}, input},
      Case{{{"type", "batchnorm2d"}}, input + 2 * 4 * 4},    // + mean, invstd per channel
      Case{{{"type", "layernorm"}}, input + 4 * 6 * 2 * 4},  // 24 rows of 6
      Case{{{"type", "relu"}}, input},                       // its result
      Case{{{"type", "relu"}, {"inplace", true}}, input},    // its result = the input memory
      Case{{{"type", "sigmoid"}}, input}, Case{{{"type", "tanh"}}, input},
      Case{{{"type", "softmax"}}, input}, Case{{{"type", "relu6"}}, input},
      Case{{{"type", "gelu"}}, input},
      Case{{{"type", "silu"}, {"inplace", true}}, input},                      // the copy
      Case{{{"type", "hardswish"}}, input}, Case{{{"type", "dropout"}}, 144},  // the mask only
      Case{{{"type", "flatten"}}, 0}, Case{{{"type", "add"}, {"inputs", {"c", "c"}}}, 0},
      Case{{{"type", "concat"}, {"inputs", {"c", "c"}}}, 0},
      Case{{{"type", "multiply"}, {"inputs", {"c", "c"}}}, input});  // kept once
  CAPTURE(c.layer.dump());
  const json conv = {{"name", "c"}, {"type", "conv2d"}, {"out_channels", 4}, {"kernel", 1}};
  const auto train = run(json::array({conv, c.layer}), {4, 6, 6});
  CHECK(train.memory.bytesOf(dlcost::MemoryKey::kActivations) == input + c.saved);
  json alone = c.layer;
  if (alone.contains("inputs")) alone["inputs"] = {"input", "input"};
  // Inference saves nothing: only the peak of live tensors (input and output, and max
  // pooling's indices while it runs) remains.
  const auto infer = run(json::array({alone}), {4, 6, 6}, {{"mode", "infer"}});
  CHECK(infer.memory.bytesOf(dlcost::MemoryKey::kActivations) ==
        input + row(infer, infer.layers[1].name).activation_bytes + c.infer_scratch);
}

TEST_CASE("embedding saves its int64 ids", "[memory][saved]") {
  const auto r = run(
      json::array({{{"type", "embedding"}, {"num_embeddings", 100}, {"embedding_dim", 8}}}), {16});
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kActivations) == 16 * 8);
}

TEST_CASE("in-place ReLU saves one tensor copy and is never counted twice", "[memory][inplace]") {
  // conv (3 -> 64 channels, 32x32) -> relu -> maxpool 2: the relu tensor is the largest.
  // Inference: out of place, the relu step holds its input and its output (2 x 64 x 32 x 32
  // values); in place only one, and the peak moves to the pooling step (64x32x32 + 64x16x16).
  // The image (3x32x32) is live throughout: the caller holds it; the pooling step also holds
  // its int64 indices (2 x 64x16x16 fp32-sized values), which at::max_pool2d drops on return.
  const int64_t image = 3 * 32 * 32 * 4;
  const int64_t big = 64 * 32 * 32 * 4;
  const int64_t pooled = 64 * 16 * 16 * 4;
  auto layers = [](bool inplace) {
    return json::array({{{"name", "conv"},
                         {"type", "conv2d"},
                         {"out_channels", 64},
                         {"kernel", 3},
                         {"padding", 1}},
                        {{"name", "relu"}, {"type", "relu"}, {"inplace", inplace}},
                        {{"name", "pool"}, {"type", "maxpool2d"}, {"kernel", 2}}});
  };
  const auto out_of_place = run(layers(false), {3, 32, 32}, {{"mode", "infer"}});
  const auto in_place = run(layers(true), {3, 32, 32}, {{"mode", "infer"}});
  CHECK(out_of_place.memory.bytesOf(dlcost::MemoryKey::kActivations) == image + 2 * big);
  CHECK(in_place.memory.bytesOf(dlcost::MemoryKey::kActivations) == image + big + 3 * pooled);
  CHECK(row(in_place, "relu").inplace);
  CHECK(row(in_place, "relu").activation_bytes == 0);  // allocates nothing

  // Training: ReLU's gradient reads its result, which is the conv's memory when in place
  // or a new tensor otherwise; the conv output is kept exactly once either way (a tensor
  // only counts in the row of the layer that allocated it).
  const auto t_out = run(layers(false), {3, 32, 32});
  const auto t_in = run(layers(true), {3, 32, 32});
  CHECK(t_out.memory.bytesOf(dlcost::MemoryKey::kActivations) ==
        t_in.memory.bytesOf(dlcost::MemoryKey::kActivations));
  CHECK(row(t_in, "conv").activation_bytes == big);
  CHECK(row(t_in, "relu").activation_bytes == 0);
  CHECK(row(t_out, "conv").activation_bytes == 0);  // freed after relu: nothing saves it
  CHECK(row(t_out, "relu").activation_bytes == big);
}

TEST_CASE("an in-place add (out += identity) allocates nothing", "[memory][inplace]") {
  // [4, 8, 8] fp32 tensors are 1,024 bytes. c = 1x1 conv of the input; sum = c + input;
  // relu in place. Inference at the add: out of place input + c + sum, in place input + c.
  // Training keeps the input (conv) and the relu's result either way.
  const int64_t tensor = 4 * 8 * 8 * 4;
  auto layers = [](bool inplace) {
    return json::array(
        {{{"name", "c"}, {"type", "conv2d"}, {"out_channels", 4}, {"kernel", 1}},
         {{"name", "sum"}, {"type", "add"}, {"inputs", {"c", "input"}}, {"inplace", inplace}},
         {{"type", "relu"}, {"inplace", true}}});
  };
  CHECK(run(layers(false), {4, 8, 8}, {{"mode", "infer"}})
            .memory.bytesOf(dlcost::MemoryKey::kActivations) == 3 * tensor);
  CHECK(run(layers(true), {4, 8, 8}, {{"mode", "infer"}})
            .memory.bytesOf(dlcost::MemoryKey::kActivations) == 2 * tensor);
  const auto in_place = run(layers(true), {4, 8, 8});
  CHECK(in_place.memory.bytesOf(dlcost::MemoryKey::kActivations) == 2 * tensor);
  CHECK(run(layers(false), {4, 8, 8}).memory.bytesOf(dlcost::MemoryKey::kActivations) ==
        2 * tensor);
  CHECK(row(in_place, "sum").inplace);
  CHECK(row(in_place, "c").activation_bytes == tensor);  // the relu's result lives in c
}

TEST_CASE("in-place activations whose gradient needs the input keep a copy of it",
          "[memory][inplace]") {
  // SiLU/hardswish/hardsigmoid/ReLU6 gradients read the input (derivatives.yaml:
  // `silu_backward(grad, self)`, `hardswish_backward(grad, self)`, `hardsigmoid_backward(grad,
  // self)`, `hardtanh_backward(grad, self, min_val, max_val)`, with no in-place entry of their
  // own); overwriting it in place makes autograd keep a clone of the original
  // (gen_variable_type.py: `original_self = self.clone()`), so in-place saves no activation
  // memory for them in training. Measured for ReLU6 on PyTorch 1.13.1: mobilenet_v2's saved
  // bytes match only with the copy (scripts/validate-torch, docs/accuracy.md).
  const char* type = GENERATE("silu", "hardswish", "hardsigmoid", "relu6");
  CAPTURE(type);
  auto layers = [&](bool inplace) {
    return json::array({{{"type", "linear"}, {"out_features", 16}},
                        {{"type", type}, {"inplace", inplace}},
                        {{"type", "linear"}, {"out_features", 4}}});
  };
  CHECK(run(layers(true), {8}).memory.bytesOf(dlcost::MemoryKey::kActivations) ==
        run(layers(false), {8}).memory.bytesOf(dlcost::MemoryKey::kActivations));
}

TEST_CASE("backward MACs: 2x forward, except 1x where the input needs no gradient",
          "[memory][backward]") {
  // Each conv/linear backward computes the weight gradient (= forward MACs) and the input
  // gradient (= forward MACs); the model input needs no gradient, so the first layer only
  // does the weight half. LeNet-300-100: 235,200 x 1 + (30,000 + 1,000) x 2 = 297,200.
  const auto mlp = runPreset("mlp_mnist");
  CHECK(mlp.macs.backward == 235200 + 2 * (30000 + 1000));
  // AlexNet: features.0 (70,276,800) once, the other 643,911,680 twice.
  const auto alex = runPreset("alexnet");
  CHECK(alex.macs.backward == 70276800 + 2 * (714188480 - 70276800));

  // A parameter-free layer first (max pooling) does not make its output need a gradient:
  // the conv after it still skips its input gradient.
  const auto pooled =
      run(json::array({{{"type", "maxpool2d"}, {"kernel", 2}},
                       {{"name", "c1"}, {"type", "conv2d"}, {"out_channels", 4}, {"kernel", 1}},
                       {{"name", "c2"}, {"type", "conv2d"}, {"out_channels", 4}, {"kernel", 1}}}),
          {2, 8, 8});
  const int64_t c1 = 4 * 4 * 4 * 2, c2 = 4 * 4 * 4 * 4;
  CHECK(pooled.macs.forward == c1 + c2);
  CHECK(pooled.macs.backward == c1 + 2 * c2);
}

TEST_CASE("FLOPs are twice the MACs in the report JSON", "[memory][backward]") {
  const json j = dlcost::estimateDocument(json{{"model", {{"preset", "alexnet"}}}});
  CHECK(j["flops"]["forward"] == 2 * j["macs"]["forward"].get<int64_t>());
  CHECK(j["flops"]["backward"] == 2 * j["macs"]["backward"].get<int64_t>());
  CHECK(j["macs"]["forward"] == 714188480);
}

TEST_CASE("depthwise-separable conv cuts MACs but keeps more activations", "[memory][conv]") {
  // MobileNet (Howard et al. 2017, section 3.1): a 3x3 conv 32 -> 64 on 56x56 costs
  // 56*56*64*32*9 MACs; depthwise 3x3 (56*56*32*9) + pointwise 1x1 (56*56*64*32) costs
  // 1/64 + 1/9 of that. The pointwise conv saves the depthwise output as its input, so
  // the separable pair keeps one more [32, 56, 56] tensor than the plain conv.
  const json plain = json::array(
      {{{"type", "conv2d"}, {"out_channels", 64}, {"kernel", 3}, {"padding", 1}, {"bias", false}}});
  const json separable =
      json::array({{{"type", "conv2d"},
                    {"out_channels", 32},
                    {"kernel", 3},
                    {"padding", 1},
                    {"groups", 32},
                    {"bias", false}},
                   {{"type", "conv2d"}, {"out_channels", 64}, {"kernel", 1}, {"bias", false}}});
  const auto p = run(plain, {32, 56, 56});
  const auto s = run(separable, {32, 56, 56});
  CHECK(p.macs.forward == int64_t{56} * 56 * 64 * 32 * 9);
  CHECK(s.macs.forward == int64_t{56} * 56 * 32 * 9 + int64_t{56} * 56 * 64 * 32);
  CHECK(s.macs.forward < p.macs.forward);
  CHECK(p.memory.bytesOf(dlcost::MemoryKey::kActivations) == 32 * 56 * 56 * 4);
  CHECK(s.memory.bytesOf(dlcost::MemoryKey::kActivations) == 2 * 32 * 56 * 56 * 4);
}

TEST_CASE("memory is fixed + batch x per_sample exactly", "[memory][batch]") {
  // A conv-bn-relu model has every kind of term: weights, buffers, batchnorm's per-batch
  // statistics (fixed) and per-sample activations; plus a fixed overhead. In training the
  // peak is the largest of a few lines (backward steps, the optimizer step), each
  // fixed + batch x per_sample: the report at batch 1 predicts every other batch exactly.
  const json layers = json::array({{{"type", "conv2d"}, {"out_channels", 16}, {"kernel", 3}},
                                   {{"type", "batchnorm2d"}},
                                   {{"type", "relu"}, {"inplace", true}},
                                   {{"type", "global_avgpool2d"}},
                                   {{"type", "flatten"}},
                                   {{"type", "linear"}, {"out_features", 10}}});
  const char* mode = GENERATE("train", "infer");
  const char* dtype = GENERATE("fp32", "mixed");
  CAPTURE(mode, dtype);
  const json w1 = {{"mode", mode}, {"dtype", dtype}, {"batch", 1}, {"overhead_bytes", 1000}};
  const Report one = run(layers, {3, 16, 16}, w1);
  for (int64_t batch : {1, 2, 7, 64, 1000}) {
    CAPTURE(batch);
    json w = w1;
    w["batch"] = batch;
    const Report r = run(layers, {3, 16, 16}, w);
    if (std::string(mode) == "infer") {
      CHECK(r.memory.fixed == one.memory.fixed);
      CHECK(r.memory.per_sample == one.memory.per_sample);
    }
    CHECK(r.memory.total == one.memory.totalAt(batch));
    CHECK(r.memory.total == r.memory.fixed + batch * r.memory.per_sample);
    CHECK(r.memory.total == sumOfLines(r.memory));
    CHECK(r.macs.forward == batch * one.macs.forward);
    CHECK(r.memory.bytesOf(dlcost::MemoryKey::kOverhead) == 1000);
  }
}

TEST_CASE("max_batch is the largest batch that fits: it fits and one more does not",
          "[memory][batch]") {
  struct Case {
    const char* preset;
    const char* mode;
    double gib;
  };
  const auto c = GENERATE(Case{"alexnet", "train", 2.0}, Case{"alexnet", "infer", 1.5},
                          Case{"mlp_mnist", "train", 0.01}, Case{"alexnet", "train", 24.0});
  CAPTURE(c.preset, c.mode, c.gib);
  const json w = {{"mode", c.mode}, {"memory_gib", c.gib}};
  const Report r = runPreset(c.preset, w);
  REQUIRE(r.max_batch);
  const int64_t capacity = static_cast<int64_t>(c.gib * 1073741824.0);
  const int64_t b = *r.max_batch;
  REQUIRE(b >= 1);
  // The closed form floor((capacity - fixed) / per_sample), the smallest over the lines the
  // peak is the largest of (inference has one; training its backward steps and the step).
  if (std::string(c.mode) == "infer") {
    CHECK(b == (capacity - r.memory.fixed) / r.memory.per_sample);
  } else {
    CHECK(r.memory.totalAt(b) <= capacity);
    CHECK(r.memory.totalAt(b + 1) > capacity);
  }
  json at = w;
  at["batch"] = b;
  CHECK(runPreset(c.preset, at).memory.total <= capacity);
  at["batch"] = b + 1;
  CHECK(runPreset(c.preset, at).memory.total > capacity);
}

TEST_CASE("max_batch includes the exact boundary and is 0 when nothing fits", "[memory][batch]") {
  const Report at5 = runPreset("alexnet", {{"batch", 5}});
  const Report exact = runPreset("alexnet", {{"memory_bytes", at5.memory.total}});
  CHECK(exact.max_batch == 5);
  const Report none = runPreset("alexnet", {{"memory_bytes", at5.memory.fixed - 1}});
  CHECK(none.max_batch == 0);
  const Report absent = runPreset("alexnet");
  CHECK_FALSE(absent.max_batch);
}

TEST_CASE("maxBatchFor caps a model whose memory does not grow with batch", "[memory][batch]") {
  CHECK(dlcost::maxBatchFor(100, 0, 1000) == dlcost::kMaxBatchReported);
  CHECK(dlcost::maxBatchFor(100, 10, 1000) == 90);
  CHECK(dlcost::maxBatchFor(100, 10, 99) == 0);
}

TEST_CASE("training rows add up to the saved activations", "[memory][simulation]") {
  // Rows hold each allocated tensor once; batchnorm's per-batch statistics (2C fp32 values
  // per layer, independent of batch) are the only saved bytes outside the rows.
  const json layers = json::array({{{"type", "conv2d"}, {"out_channels", 16}, {"kernel", 3}},
                                   {{"type", "batchnorm2d"}},
                                   {{"type", "relu"}, {"inplace", true}},
                                   {{"type", "maxpool2d"}, {"kernel", 2}},
                                   {{"type", "dropout"}},
                                   {{"type", "flatten"}},
                                   {{"type", "linear"}, {"out_features", 10}}});
  const int64_t batch = GENERATE(1, 3);
  const Report r = run(layers, {3, 18, 18}, {{"batch", batch}});
  int64_t rows = 0;
  for (const auto& l : r.layers) rows += l.activation_bytes;
  CHECK(rows + 2 * 16 * 4 == r.memory.bytesOf(dlcost::MemoryKey::kActivations));
}

TEST_CASE("eager liveness: a module's input lives until the module returns", "[memory][liveness]") {
  // input [8] -> a -> blk.fc1 -> blk.fc2 -> blk.fc3 -> out, all linear 8; fp32, 32 bytes a
  // tensor, inference. The dotted names make blk a module (its named_modules() path): its
  // input, a's output, stays alive until blk.fc3 returns, as the caller's frame holds it in
  // eager PyTorch (nn.Sequential.forward: `input = module(input)`, ResNet's `identity = x`).
  // The model input is held by the caller throughout. At blk.fc2: input, a, fc1, fc2 =
  // 128 bytes. Without the module (names without a dot) a dies after blk.fc1 reads it and
  // the peak is three tensors, 96 bytes.
  auto layers = [](const std::string& prefix) {
    json l = json::array({{{"name", "a"}, {"type", "linear"}, {"out_features", 8}}});
    for (const char* n : {"fc1", "fc2", "fc3"})
      l.push_back({{"name", prefix + n}, {"type", "linear"}, {"out_features", 8}});
    l.push_back({{"name", "out"}, {"type", "linear"}, {"out_features", 8}});
    return l;
  };
  CHECK(run(layers("blk."), {8}, {{"mode", "infer"}})
            .memory.bytesOf(dlcost::MemoryKey::kActivations) == 128);
  CHECK(run(layers("blk_"), {8}, {{"mode", "infer"}})
            .memory.bytesOf(dlcost::MemoryKey::kActivations) == 96);
  // Training saves every linear input anyway, so the rule changes nothing saved.
  CHECK(run(layers("blk."), {8}).memory.bytesOf(dlcost::MemoryKey::kActivations) ==
        run(layers("blk_"), {8}).memory.bytesOf(dlcost::MemoryKey::kActivations));
}

TEST_CASE("saved bytes and inference peaks equal eager PyTorch's, measured", "[memory][pytorch]") {
  // Measured by scripts/validate-torch on Debian's PyTorch 1.13.1 / torchvision 0.14.1 (CPU,
  // fp32, random weights, batch 2, dropout run as CUDA's native_dropout; method in
  // docs/accuracy.md): bytes autograd saved during the forward (saved_tensors_hooks, storages
  // once, parameters and buffers left out), and the peak of live tensor bytes of one forward
  // under torch.no_grad() in eval(), weights and buffers included.
  struct Case {
    const char* preset;
    int64_t saved;
    int64_t inference_peak;
  };
  const auto c = GENERATE(values<Case>({
      {"alexnet", 7402496, 248276128},
      {"resnet18", 44398080, 60845888},
      {"resnet50", 172031488, 124518472},
      {"densenet121", 261057280, 53525608},
      {"squeezenet1_0", 71015488, 22040992},
      {"mobilenet_v2", 157049600, 36233792},
      {"mobilenet_v3_large", 88694144, 37685008},
      {"mobilenet_v3_small", 32607744, 15438448},
      {"googlenet", 96795264, 40607592},
      // efficientnet_b0 measures 72 bytes more saved: stochastic depth's [2, 1, 1, 1] fp32
      // noise in 9 residual blocks (torchvision.ops.StochasticDepth), not modelled.
      {"efficientnet_b0", 177050248 - 72, 43400088},
  }));
  CAPTURE(c.preset);
  const auto train = runPreset(c.preset, {{"batch", 2}, {"dtype", "fp32"}, {"optimizer", "sgd"}});
  CHECK(train.memory.bytesOf(dlcost::MemoryKey::kActivations) == c.saved);
  const auto infer = runPreset(c.preset, {{"batch", 2}, {"dtype", "fp32"}, {"mode", "infer"}});
  CHECK(infer.memory.total == c.inference_peak);
}

TEST_CASE("a training step's peak: gradient timing, the optimizer step and the first step",
          "[memory][training][step]") {
  // Linear(1000, 1000, bias=False) -> ReLU -> Linear(1000, 10, bias=False), batch 8, fp32:
  // scripts/validate_torch.py's self-test model, measured with PyTorch 1.13 (its figures are
  // these plus 388 bytes of labels, logits and loss the engine does not model). Weights
  // W = 4,000,000 + 40,000 bytes; x and the hidden layer's gradient 8 x 1000 x 4 each.
  // Backward peaks in the first linear's backward: weights, the gradients made so far (all of
  // them by then), x (saved) and the hidden layer's gradient = 8,144,000 bytes. With kept
  // gradients (zero_grad set_to_none=False) AccumulateGrad adds the first linear's new
  // 4,000,000-byte gradient into .grad, so both exist (torch/csrc/autograd/functions/
  // accumulate_grad.h). The optimizer step holds weights, gradients, states, the batch the
  // caller holds (8 x (1000 + 10) x 4 = 32,320) and the implementation's temporaries
  // (torch/optim/adam.py): for-loop 2 x 1,000,000 elements (sqrt() and the quotient of the
  // first weight), foreach one copy of all 1,010,000, fused none. SGD and momentum update in
  // place. The first step has no optimizer state during its backward.
  const json layers = json::array({{{"type", "linear"}, {"out_features", 1000}, {"bias", false}},
                                   {{"type", "relu"}},
                                   {{"type", "linear"}, {"out_features", 10}, {"bias", false}}});
  struct Case {
    const char* optimizer;
    const char* impl;
    const char* zero_grad;
    int64_t total;
    const char* peak_phase;
    int64_t first_step;
  };
  const int64_t w = 4040000, bwd = 8144000, held = 32320;
  const auto c = GENERATE_COPY(
      Case{"sgd", "foreach", "set_to_none", bwd, "backward", bwd},
      Case{"sgd", "foreach", "zero", bwd + 4000000, "backward", bwd},
      Case{"momentum", "foreach", "set_to_none", bwd + w, "backward", 3 * w + held},
      Case{"adam", "for_loop", "set_to_none", 4 * w + 8000000 + held, "optimizer_step",
           4 * w + 8000000 + held},
      Case{"adam", "foreach", "set_to_none", 5 * w + held, "optimizer_step", 5 * w + held},
      Case{"adam", "fused", "set_to_none", bwd + 2 * w, "backward", 4 * w + held});
  CAPTURE(c.optimizer, c.impl, c.zero_grad);
  const auto r = run(layers, {1000},
                     {{"batch", 8},
                      {"dtype", "fp32"},
                      {"optimizer", c.optimizer},
                      {"optimizer_impl", c.impl},
                      {"zero_grad", c.zero_grad}});
  CHECK(r.memory.total == c.total);
  CHECK(std::string(dlcost::memoryPhaseName(r.memory.peak_phase)) == c.peak_phase);
  REQUIRE(r.memory.first_step_total);
  CHECK(*r.memory.first_step_total == c.first_step);
}
