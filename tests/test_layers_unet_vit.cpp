// The layers U-Nets and vision transformers add to the schema: conv_transpose2d, upsample,
// leaky_relu, permute, reshape, matmul, select, and the learned or fixed tensor operand of
// add, multiply and concat. Shapes, parameters and MACs by PyTorch's definitions; what each
// keeps for backward by PyTorch's autograd (tools/autograd/derivatives.yaml, and 1.13's
// generated torch/csrc/autograd/generated/Functions.h, which lists each backward node's saved
// fields), with the figures that tests/model_files/make_onnx_graphs.py's measure gives on
// Debian's python3-torch 1.13 where noted.
#include <catch2/catch.hpp>

#include "support.hpp"

using dlcost::Shape;
using dlcost::test::kTrain;
using dlcost::test::row;
using dlcost::test::run;
using dlcost::test::saved;
using nlohmann::json;

TEST_CASE("conv_transpose2d follows nn.ConvTranspose2d's size, parameters and MACs",
          "[layers][unet]") {
  // Output (nn.ConvTranspose2d docs): (H - 1) S - 2P + D (K - 1) + output_padding + 1.
  // Weight [C_in, C_out / groups, kH, kW] plus bias [C_out]: the counts PyTorch 1.13 gives
  // for these three modules (sum of p.numel(): 2,064, 148, 292). MACs: each input element
  // times C_out / groups x kH x kW weights (fvcore's transposed-convolution count).
  struct Case {
    const char* what;
    json layer;
    Shape in, out;
    int64_t params, macs;
  };
  const auto c = GENERATE(Case{"U-Net up step 2x2 stride 2",
                               {{"out_channels", 16}, {"kernel", 2}, {"stride", 2}},
                               {32, 4, 4},
                               {16, 8, 8},
                               32 * 16 * 4 + 16,
                               32 * 16 * 16 * 4},
                          Case{"padding, output_padding, groups",
                               {{"out_channels", 4},
                                {"kernel", 3},
                                {"stride", 2},
                                {"padding", 1},
                                {"output_padding", 1},
                                {"groups", 2}},
                               {8, 5, 5},
                               {4, 10, 10},
                               8 * 2 * 9 + 4,
                               8 * 25 * 2 * 9},
                          Case{"dilation",
                               {{"out_channels", 4}, {"kernel", 3}, {"dilation", 2}},
                               {8, 5, 5},
                               {4, 9, 9},
                               8 * 4 * 9 + 4,
                               8 * 25 * 4 * 9});
  CAPTURE(c.what);
  json layer = c.layer;
  layer["type"] = "conv_transpose2d";
  const auto r = run(json::array({layer}), c.in);
  CHECK(r.layers[1].output_shape == c.out);
  CHECK(r.params.total == c.params);
  CHECK(r.macs.forward == c.macs);
}

TEST_CASE("upsample gives floor(H x scale) or the size, with no parameters or MACs",
          "[layers][unet]") {
  struct Case {
    json layer;
    Shape out;
  };
  // nn.Upsample(scale_factor=1.5, mode="bilinear") of 5 x 7 gives 7 x 10 in PyTorch 1.13.
  const auto c =
      GENERATE(Case{{{"scale_factor", 2}}, {2, 10, 14}},
               Case{{{"scale_factor", 1.5}, {"mode", "bilinear"}}, {2, 7, 10}},
               Case{{{"size", json::array({3, 4})}, {"mode", "bilinear"}, {"align_corners", true}},
                    {2, 3, 4}});
  json layer = c.layer;
  layer["type"] = "upsample";
  const auto r = run(json::array({layer}), {2, 5, 7});
  CHECK(r.layers[1].output_shape == c.out);
  CHECK(r.params.total == 0);
  CHECK(r.macs.forward == 0);
}

TEST_CASE("narrow is a view and mean keeps nothing for backward", "[layers][split]") {
  // A 1x1 conv, shufflenet_v2's x.chunk(2, dim=1) of its [8, 4, 4] output, a ReLU of the second
  // half, then MnasNet's x.mean([2, 3]): training keeps the conv's input (8 x 16 values) and
  // the ReLU's output (4 x 16), nothing of the narrow or the mean.
  const auto r =
      run(json::array({{{"type", "conv2d"}, {"out_channels", 8}, {"kernel", 1}},
                       {{"type", "narrow"}, {"name", "half"}, {"start", 4}, {"length", 4}},
                       {{"type", "relu"}},
                       {{"type", "mean"}, {"name", "pool"}, {"dims", {1, 2}}}}),
          {8, 4, 4}, kTrain);
  CHECK(row(r, "half").output_shape == Shape{4, 4, 4});
  CHECK(row(r, "half").inplace);
  CHECK(row(r, "pool").output_shape == Shape{4});
  CHECK(r.params.total == 8 * 8 + 8);
  CHECK(saved(r) == (8 + 4) * 16 * 4);
  const auto kept =
      run(json::array({{{"type", "mean"}, {"dims", {-2, -1}}, {"keepdim", true}}}), {8, 4, 4});
  CHECK(kept.layers.back().output_shape == Shape{8, 1, 1});
}

TEST_CASE("permute, reshape and select are views: reshape copies what it cannot view",
          "[layers][vit]") {
  // A [17, 32] sequence split into 4 heads of 8 (Hugging Face ViT's transpose_for_scores).
  const json split = {{"type", "reshape"}, {"name", "split"}, {"shape", {17, 4, -1}}};
  const json heads = {{"type", "permute"}, {"name", "heads"}, {"dims", {1, 0, 2}}};
  SECTION("the views") {
    const auto r =
        run(json::array({split, heads, {{"type", "select"}, {"dim", 1}, {"index", 0}}}), {17, 32});
    CHECK(row(r, "split").output_shape == Shape{17, 4, 8});
    CHECK(row(r, "heads").output_shape == Shape{4, 17, 8});
    CHECK(r.layers.back().output_shape == Shape{4, 8});
    for (size_t i = 1; i < r.layers.size(); ++i) CHECK(r.layers[i].inplace);
  }
  SECTION("merging the heads back needs a copy (aten's computeStride finds no view)") {
    const auto r = run(
        json::array({split, heads, {{"type", "reshape"}, {"name", "merge"}, {"shape", {4, 136}}}}),
        {17, 32});
    CHECK(row(r, "merge").output_shape == Shape{4, 136});
    CHECK_FALSE(row(r, "merge").inplace);
  }
  SECTION("splitting a permuted head's last dimension is a view") {
    // Each head's [17, 8] has strides 32 and 1: 17 x 8 cannot merge (a copy, as above),
    // but 8 splits into 2 x 4 within its own chunk.
    const auto r =
        run(json::array({split, heads, {{"type", "reshape"}, {"shape", {4, 17, 2, 4}}}}), {17, 32});
    CHECK(r.layers.back().output_shape == Shape{4, 17, 2, 4});
    CHECK(r.layers.back().inplace);
    const auto f =
        run(json::array({split, heads, {{"type", "flatten"}, {"start_dim", 1}}}), {17, 32});
    CHECK_FALSE(f.layers.back().inplace);
  }
}

TEST_CASE("matmul of two tensors: batched MACs, and saved operands copied where not viewable",
          "[layers][vit][memory]") {
  // Q Kt of 4 heads over 17 tokens of width 32 (heads of 8): 4 x 17 x 8 x 17 MACs.
  // aten's matmul reshapes each operand to [batch x heads, rows, cols] and bmm keeps both
  // (BmmBackward0: self_, mat2_). With the heads permuted out of [17, 4, 8], that reshape
  // copies (PyTorch 1.13 measured: 6,528 saved bytes per sample = the input 17 x 32 for the
  // two linears + both copies, 2 x 544 values, at fp32); with heads laid out first, the
  // operands are views of the linears' outputs: the same bytes, kept by other rows.
  const auto graph = [](bool permuted) {
    json layers = json::array();
    for (const char* n : {"q", "k"}) {
      layers.push_back(
          {{"type", "linear"}, {"name", n}, {"out_features", 32}, {"inputs", {"input"}}});
      if (permuted) {
        layers.push_back({{"type", "reshape"}, {"shape", {17, 4, 8}}});
        layers.push_back({{"type", "permute"},
                          {"name", std::string(n) + "h"},
                          {"dims", std::string(n) == "q" ? json{1, 0, 2} : json{1, 2, 0}}});
      } else {
        layers.push_back({{"type", "reshape"},
                          {"name", std::string(n) + "h"},
                          {"shape", std::string(n) == "q" ? json{4, 17, 8} : json{4, 8, 17}}});
      }
    }
    layers.push_back({{"type", "matmul"}, {"name", "scores"}, {"inputs", {"qh", "kh"}}});
    return layers;
  };
  for (const bool permuted : {true, false}) {
    CAPTURE(permuted);
    const auto r = run(graph(permuted), {17, 32}, kTrain);
    CHECK(row(r, "scores").output_shape == Shape{4, 17, 17});
    CHECK(row(r, "scores").macs == 4 * 17 * 8 * 17);
    CHECK(saved(r) == 6528);
    CHECK(row(r, "scores").activation_bytes == (permuted ? 2 * 544 * 4 : 0));
    CHECK(row(r, "q").activation_bytes == (permuted ? 0 : 544 * 4));
    // Backward: the two linears' weight gradients (their input, the model's, needs none),
    // and one product per factor of the matmul (both need gradients).
    CHECK(r.macs.backward == 2 * (17 * 32 * 32) + 2 * (4 * 17 * 8 * 17));
  }
}

TEST_CASE("what leaky_relu, upsample, conv_transpose2d and tensor operands keep for backward",
          "[layers][memory]") {
  // Per sample at fp32, a [10] input into linear(10) (which keeps the input: 40 bytes) and
  // then the layer under test, then linear(10) (which keeps its input).
  struct Case {
    const char* what;
    json layer;
    int64_t saved_bytes;
    int64_t params;
  };
  const auto c = GENERATE(
      // derivatives.yaml: leaky_relu `self: leaky_relu_backward(grad, self, ...)`, leaky_relu_
      // `self: leaky_relu_backward(grad, result, ...)`: the input, or in place the result in
      // the same memory; no clone either way (1.13 measured: 264 bytes for both on [2, 4, 8]).
      Case{"leaky_relu", {{"type", "leaky_relu"}, {"negative_slope", 0.1}}, 40 + 40 + 40, 0},
      Case{"leaky_relu in place", {{"type", "leaky_relu"}, {"inplace", true}}, 40 + 40, 0},
      // hardtanh_ in place has no formula of its own: a clone of its input (contrast).
      Case{"relu6 in place", {{"type", "relu6"}, {"inplace", true}}, 40 + 40 + 40, 0},
      // x * c, c fixed: MulBackward0 keeps c only (1.13 measured: x * c saves c alone).
      Case{"multiply by a constant", {{"type", "multiply"}, {"constant", {10}}}, 40 + 40, 0},
      // x * p, p learned: p's gradient needs x (1.13 measured: x * p saves x).
      Case{
          "multiply by a parameter", {{"type", "multiply"}, {"parameter", {10}}}, 40 + 40 + 40, 10},
      // AddBackward0 keeps only alpha: a position embedding adds parameters, saves nothing.
      Case{"add a parameter", {{"type", "add"}, {"parameter", {10}}}, 40 + 40, 10});
  CAPTURE(c.what);
  const auto r = run(json::array({{{"type", "linear"}, {"out_features", 10}},
                                  c.layer,
                                  {{"type", "linear"}, {"out_features", 10}}}),
                     {10}, kTrain);
  CHECK(saved(r) == c.saved_bytes);
  CHECK(r.params.total == 2 * 110 + c.params);
}

TEST_CASE("upsample keeps nothing, conv_transpose2d its input, concat a class token",
          "[layers][memory]") {
  // UpsampleNearest2DBackward0/UpsampleBilinear2DBackward0 hold sizes only; the convolution
  // holds input_ (ConvolutionBackward0). [4, 4, 4] into conv_transpose2d(2, 2x2 stride 2),
  // then upsample x2 to [2, 16, 16], then conv2d(1, 1x1) keeping its input.
  const auto r =
      run(json::array(
              {{{"type", "conv_transpose2d"}, {"out_channels", 2}, {"kernel", 2}, {"stride", 2}},
               {{"type", "upsample"}, {"scale_factor", 2}},
               {{"type", "conv2d"}, {"out_channels", 1}, {"kernel", 1}}}),
          {4, 4, 4}, kTrain);
  CHECK(saved(r) == (64 + 512) * 4);

  // A class token: concat of a learned [1, 32] before 16 tokens (CatBackward0 keeps sizes).
  const auto t = run(json::array({{{"type", "concat"}, {"parameter", {1, 32}}},
                                  {{"type", "linear"}, {"out_features", 8}}}),
                     {16, 32}, kTrain);
  CHECK(t.layers[1].output_shape == Shape{17, 32});
  CHECK(t.params.total == 32 + 32 * 8 + 8);
  CHECK(saved(t) == 17 * 32 * 4);
}

TEST_CASE("the new layers refuse impossible fields by name", "[layers][errors]") {
  struct Case {
    json layer;
    Shape in;
    const char* path;
    const char* message;
  };
  const auto c = GENERATE(
      Case{{{"type", "upsample"}, {"scale_factor", 2}, {"size", 4}},
           {2, 4, 4},
           "/model/layers/0/scale_factor",
           "exactly one"},
      Case{{{"type", "upsample"}, {"scale_factor", 2}, {"align_corners", true}},
           {2, 4, 4},
           "/model/layers/0/align_corners",
           "bilinear"},
      Case{{{"type", "reshape"}, {"shape", {5, -1}}},
           {4, 4},
           "/model/layers/0/shape",
           "cannot reshape"},
      Case{{{"type", "permute"}, {"dims", {0, 0}}}, {4, 4}, "/model/layers/0/dims", "repeats"},
      Case{{{"type", "matmul"}}, {4, 4}, "/model/layers/0/inputs", "exactly two"},
      Case{{{"type", "select"}, {"dim", 0}, {"index", 4}},
           {4, 4},
           "/model/layers/0/index",
           "outside"},
      Case{{{"type", "narrow"}, {"dim", 0}, {"start", 2}, {"length", 3}},
           {4, 4},
           "/model/layers/0/length",
           "outside"},
      Case{{{"type", "mean"}, {"dims", {1, -1}}}, {4, 4}, "/model/layers/0/dims", "repeats"},
      Case{
          {{"type", "conv_transpose2d"}, {"out_channels", 2}, {"kernel", 3}, {"output_padding", 1}},
          {2, 4, 4},
          "/model/layers/0/output_padding",
          "smaller"},
      Case{{{"type", "leaky_relu"}, {"inplace", true}, {"negative_slope", -1}},
           {4},
           "/model/layers/0/negative_slope",
           "positive"},
      Case{{{"type", "add"}, {"parameter", {4}}, {"constant", {4}}},
           {4},
           "/model/layers/0/constant",
           "not both"});
  CAPTURE(c.layer.dump());
  const auto e =
      dlcost::test::errorOf(json{{"model", {{"input", c.in}, {"layers", json::array({c.layer})}}}});
  CHECK(e.path == c.path);
  CHECK_THAT(e.message, Catch::Contains(c.message));
}
