// Per-layer rules: output shapes, parameters and MACs of every layer kind, and the two
// hand-checked models (AlexNet, the LeNet-300-100 MLP) layer by layer.
#include <catch2/catch.hpp>

#include "support.hpp"

using dlcost::Shape;
using dlcost::test::row;
using dlcost::test::run;
using dlcost::test::runPreset;
using nlohmann::json;

TEST_CASE("conv2d output size follows floor((H + 2P - D(K-1) - 1)/S) + 1", "[layers][conv]") {
  // The formula of PyTorch's nn.Conv2d documentation (shape section).
  struct Case {
    int h, k, s, p, d, expected;
  };
  const auto c =
      GENERATE(Case{224, 11, 4, 2, 1, 55}, Case{224, 7, 2, 3, 1, 112}, Case{56, 3, 1, 1, 1, 56},
               Case{56, 3, 2, 1, 1, 28}, Case{32, 3, 1, 2, 2, 32}, Case{7, 7, 1, 0, 1, 1});
  CAPTURE(c.h, c.k, c.s, c.p, c.d);
  const auto r = run(json::array({{{"type", "conv2d"},
                                   {"out_channels", 8},
                                   {"kernel", c.k},
                                   {"stride", c.s},
                                   {"padding", c.p},
                                   {"dilation", c.d}}}),
                     {3, c.h, c.h});
  CHECK(r.layers[1].output_shape == dlcost::Shape{8, c.expected, c.expected});
  // Parameters: K x K x C_in x C_out + C_out bias.
  CHECK(r.params.total == c.k * c.k * 3 * 8 + 8);
  // MACs: H_out x W_out x C_out x K x K x C_in.
  CHECK(r.macs.forward == int64_t{c.expected} * c.expected * 8 * c.k * c.k * 3);
}

TEST_CASE("conv2d params and MACs divide by groups, with rectangular kernels and 'same'",
          "[layers][conv]") {
  // nn.Conv2d: weight is [C_out, C_in / groups, kH, kW], bias [C_out]; each output element
  // costs (C_in / groups) x kH x kW MACs. padding="same" keeps H x W at stride 1.
  struct Case {
    const char* what;
    json conv;
    Shape in;
    Shape out;
    int64_t params;
    int64_t macs;
  };
  const auto c = GENERATE(
      // groups = 2 (AlexNet's original two-GPU split): 96/2 x 5 x 5 x 256 + 256.
      Case{"grouped",
           {{"out_channels", 256}, {"kernel", 5}, {"padding", 2}, {"groups", 2}},
           {96, 27, 27},
           {256, 27, 27},
           48 * 25 * 256 + 256,
           int64_t{27} * 27 * 256 * 48 * 25},
      // Depthwise (groups = C_in = C_out = 32, MobileNet): 1 x 3 x 3 x 32, no bias.
      Case{"depthwise",
           {{"out_channels", 32}, {"kernel", 3}, {"padding", 1}, {"groups", 32}, {"bias", false}},
           {32, 112, 112},
           {32, 112, 112},
           9 * 32,
           int64_t{112} * 112 * 32 * 9},
      // Depth multiplier 2 (groups = C_in, C_out = 2 C_in): each output reads 1 channel.
      Case{"depthwise x2",
           {{"out_channels", 64}, {"kernel", 3}, {"groups", 32}, {"bias", false}},
           {32, 10, 10},
           {64, 8, 8},
           9 * 64,
           int64_t{8} * 8 * 64 * 9},
      // Rectangular kernel [1, 7] with padding [0, 3] (Inception-v3's factorised 7x7).
      Case{"1x7",
           {{"out_channels", 192}, {"kernel", {1, 7}}, {"padding", {0, 3}}, {"bias", false}},
           {128, 17, 17},
           {192, 17, 17},
           128 * 7 * 192,
           int64_t{17} * 17 * 192 * 128 * 7},
      // Dilation 2 with "same": effective extent 5, output stays 20 x 20.
      Case{"dilated same",
           {{"out_channels", 4}, {"kernel", 3}, {"dilation", 2}, {"padding", "same"}},
           {2, 20, 20},
           {4, 20, 20},
           2 * 9 * 4 + 4,
           int64_t{20} * 20 * 4 * 2 * 9},
      // "valid" is padding 0: 20 - 5 + 1 = 16.
      Case{"valid",
           {{"out_channels", 4}, {"kernel", 5}, {"padding", "valid"}},
           {2, 20, 20},
           {4, 16, 16},
           2 * 25 * 4 + 4,
           int64_t{16} * 16 * 4 * 2 * 25},
      // Stride [2, 1] and a non-square input: H (9 - 3)/2 + 1 = 4, W (6 - 3)/1 + 1 = 4.
      Case{"stride [2, 1]",
           {{"out_channels", 1}, {"kernel", 3}, {"stride", {2, 1}}},
           {1, 9, 6},
           {1, 4, 4},
           9 + 1,
           int64_t{4} * 4 * 9});
  CAPTURE(c.what);
  json layer = c.conv;
  layer["type"] = "conv2d";
  const auto r = run(json::array({layer}), c.in);
  CHECK(r.layers[1].output_shape == c.out);
  CHECK(r.layers[1].params == c.params);
  CHECK(r.layers[1].macs == c.macs);
}

TEST_CASE("linear acts on the last dimension, so a sequence multiplies its MACs",
          "[layers][linear]") {
  // nn.Linear docs: input (*, H_in) -> (*, H_out); weight [out, in], bias [out].
  struct Case {
    Shape in;
    bool bias;
    Shape out;
    int64_t params;
    int64_t macs;
  };
  const auto c =
      GENERATE(Case{{784}, true, {300}, 784 * 300 + 300, 784 * 300},
               Case{{128, 768}, true, {128, 3072}, 768 * 3072 + 3072, int64_t{128} * 768 * 3072},
               Case{{4, 16, 32}, false, {4, 16, 8}, 32 * 8, 4 * 16 * 32 * 8});
  CAPTURE(c.in, c.bias);
  const auto r = run(
      json::array({{{"type", "linear"}, {"out_features", c.out.back()}, {"bias", c.bias}}}), c.in);
  CHECK(r.layers[1].output_shape == c.out);
  CHECK(r.layers[1].params == c.params);
  CHECK(r.layers[1].macs == c.macs);
}

TEST_CASE("pooling follows PyTorch's output size, ceil_mode and padding included",
          "[layers][pool]") {
  // aten/src/ATen/native/Pool.h pooling_output_shape:
  //   out = floor_or_ceil((H + 2P - D(K-1) - 1) / S) + 1, and with ceil_mode the last
  //   window must start inside the input or its left padding: if (out-1) S >= H + P, out-1.
  struct Case {
    const char* type;
    int h, k, s, p;
    bool ceil;
    int expected;
  };
  const auto c =
      GENERATE(Case{"maxpool2d", 55, 3, 2, 0, false, 27},   // AlexNet features.2
               Case{"maxpool2d", 112, 3, 2, 1, false, 56},  // ResNet stem
               Case{"maxpool2d", 112, 3, 2, 0, true, 56},   // GoogLeNet maxpool1 (ceil)
               Case{"maxpool2d", 112, 3, 2, 0, false, 55},  // ... and without ceil
               Case{"maxpool2d", 5, 2, 2, 1, false, 3},     // floor((5 + 2 - 2)/2) + 1
               Case{"maxpool2d", 5, 2, 2, 1, true, 3},  // ceil gives 4; window 4 starts at 6 >= 5+1
               Case{"maxpool2d", 4, 2, 2, 1, true, 3},  // ceil((4 + 2 - 2)/2) + 1 = 3, kept
               Case{"avgpool2d", 8, 2, 2, 0, false, 4},   // DenseNet transition
               Case{"avgpool2d", 7, 3, 1, 1, false, 7});  // Inception branch pool
  CAPTURE(c.type, c.h, c.k, c.s, c.p, c.ceil);
  const auto r = run(json::array({{{"type", c.type},
                                   {"kernel", c.k},
                                   {"stride", c.s},
                                   {"padding", c.p},
                                   {"ceil_mode", c.ceil}}}),
                     {16, c.h, c.h});
  CHECK(r.layers[1].output_shape == Shape{16, c.expected, c.expected});
  CHECK(r.layers[1].params == 0);
  CHECK(r.layers[1].macs == 0);  // MACs count conv and linear only (torchvision's convention)
}

TEST_CASE("pool stride defaults to the kernel", "[layers][pool]") {
  // nn.MaxPool2d: stride default value is kernel_size.
  const auto r = run(json::array({{{"type", "maxpool2d"}, {"kernel", 2}}}), {3, 32, 32});
  CHECK(r.layers[1].output_shape == Shape{3, 16, 16});
}

TEST_CASE("adaptive and global pooling produce the requested size", "[layers][pool]") {
  // nn.AdaptiveAvgPool2d(output_size): output [C, H_out, W_out] whatever the input size.
  struct Case {
    json layer;
    Shape out;
  };
  const auto c =
      GENERATE(Case{{{"type", "adaptive_avgpool2d"}, {"output_size", 6}}, {256, 6, 6}},
               Case{{{"type", "adaptive_maxpool2d"}, {"output_size", {2, 3}}}, {256, 2, 3}},
               Case{{{"type", "global_avgpool2d"}}, {256, 1, 1}});
  CAPTURE(c.layer.dump());
  const auto r = run(json::array({c.layer}), {256, 13, 13});
  CHECK(r.layers[1].output_shape == c.out);
  CHECK(r.layers[1].params == 0);
}

TEST_CASE("batchnorm2d has 2C parameters and 2C + 1 buffers", "[layers][norm]") {
  // nn.BatchNorm2d: weight and bias [C] are parameters (affine); running_mean and
  // running_var [C] and num_batches_tracked (one int64) are buffers (track_running_stats).
  struct Case {
    bool affine, track;
    int64_t params, buffers;
  };
  const auto c = GENERATE(Case{true, true, 128, 129}, Case{false, true, 0, 129},
                          Case{true, false, 128, 0}, Case{false, false, 0, 0});
  CAPTURE(c.affine, c.track);
  const auto r =
      run(json::array(
              {{{"type", "batchnorm2d"}, {"affine", c.affine}, {"track_running_stats", c.track}}}),
          {64, 8, 8});
  CHECK(r.layers[1].output_shape == Shape{64, 8, 8});
  CHECK(r.params.total == c.params);
  CHECK(r.params.buffers == c.buffers);
  CHECK(r.layers[1].buffers == c.buffers);
  // Buffers are memory, not parameters: 2C fp32 values + one 8-byte counter.
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kBuffers) == (c.track ? 128 * 4 + 8 : 0));
  CHECK(r.memory.bytesOf(dlcost::MemoryKey::kWeights) == c.params * 4);
}

TEST_CASE("layernorm has weight and bias over the normalised dimensions", "[layers][norm]") {
  // nn.LayerNorm(normalized_shape): weight and bias of normalized_shape (bias optional).
  struct Case {
    int dims;
    bool affine, bias;
    int64_t params;
  };
  const auto c = GENERATE(Case{1, true, true, 2 * 768}, Case{1, true, false, 768},
                          Case{1, false, true, 0}, Case{2, true, true, 2 * 16 * 768});
  CAPTURE(c.dims, c.affine, c.bias);
  const auto r = run(json::array({{{"type", "layernorm"},
                                   {"normalized_dims", c.dims},
                                   {"elementwise_affine", c.affine},
                                   {"bias", c.bias}}}),
                     {16, 768});
  CHECK(r.layers[1].output_shape == Shape{16, 768});
  CHECK(r.params.total == c.params);
  CHECK(r.params.buffers == 0);
}

TEST_CASE("embedding appends embedding_dim and holds a V x D table", "[layers][embedding]") {
  // nn.Embedding(num_embeddings, embedding_dim): weight [V, D]; input (*) -> (*, D).
  const auto r =
      run(json::array({{{"type", "embedding"}, {"num_embeddings", 30522}, {"embedding_dim", 768}}}),
          {128});
  CHECK(r.layers[1].output_shape == Shape{128, 768});
  CHECK(r.params.total == 30522 * 768);  // BERT-base word embeddings: 23,440,896
  CHECK(r.macs.forward == 0);            // a lookup, not a multiply
  // The token ids are int64 (8 bytes each), whatever the activation precision.
  CHECK(row(r, "input").activation_bytes == 128 * 8);
}

TEST_CASE("flatten merges dimensions start_dim..end_dim as a view", "[layers][flatten]") {
  // torch.flatten(input, start_dim, end_dim), over the sample dimensions here.
  struct Case {
    int start, end;
    Shape out;
  };
  const auto c = GENERATE(Case{0, -1, {9216}}, Case{1, -1, {256, 36}}, Case{0, 1, {1536, 6}},
                          Case{-2, -1, {256, 36}});
  CAPTURE(c.start, c.end);
  const auto r =
      run(json::array({{{"type", "flatten"}, {"start_dim", c.start}, {"end_dim", c.end}}}),
          {256, 6, 6});
  CHECK(r.layers[1].output_shape == c.out);
  CHECK(r.layers[1].inplace);  // a view: no new memory
}

TEST_CASE("add and multiply broadcast like PyTorch", "[layers][merge]") {
  // PyTorch broadcasting semantics: align trailing dimensions; each pair is equal or 1.
  // Operands a and b are branches of one [64, 16, 16] input: pooling keeps the channels and
  // sets H x W, a 1x1 conv sets the channels, flatten drops a rank.
  struct Case {
    const char* what;
    json a;  // layers ending in one named "a"
    json b;  // one layer named "b", reading the input
    Shape out;
  };
  const json pool8 = {{"name", "a"}, {"type", "adaptive_avgpool2d"}, {"output_size", 8}};
  const auto c = GENERATE_COPY(
      Case{"[64, 8, 8] and [64, 8, 8]",
           json::array({pool8}),
           {{"name", "b"}, {"type", "maxpool2d"}, {"kernel", 2}, {"inputs", "input"}},
           {64, 8, 8}},
      Case{"squeeze-excite [64, 8, 8] and [64, 1, 1]",
           json::array({pool8}),
           {{"name", "b"}, {"type", "global_avgpool2d"}, {"inputs", "input"}},
           {64, 8, 8}},
      Case{"[1, 8, 8] and [64, 1, 8]",
           json::array({{{"name", "a"},
                         {"type", "conv2d"},
                         {"out_channels", 1},
                         {"kernel", 1},
                         {"stride", 2}}}),
           {{"name", "b"},
            {"type", "adaptive_avgpool2d"},
            {"output_size", {1, 8}},
            {"inputs", "input"}},
           {64, 8, 8}},
      Case{"rank 2 [64, 64] and rank 3 [64, 1, 1]",
           json::array({{{"name", "p"}, {"type", "adaptive_avgpool2d"}, {"output_size", {1, 64}}},
                        {{"name", "a"}, {"type", "flatten"}, {"start_dim", 0}, {"end_dim", 1}}}),
           {{"name", "b"}, {"type", "global_avgpool2d"}, {"inputs", "input"}},
           {64, 64, 64}});
  const char* type = GENERATE("add", "multiply");
  CAPTURE(c.what, type);
  json layers = c.a;
  layers.push_back(c.b);
  layers.push_back({{"name", "m"}, {"type", type}, {"inputs", {"a", "b"}}});
  const auto r = run(layers, {64, 16, 16});
  CHECK(row(r, "m").output_shape == c.out);
  CHECK(row(r, "m").params == 0);
  CHECK(row(r, "m").macs == 0);
}

TEST_CASE("concat adds up the concatenated axis", "[layers][merge]") {
  // torch.cat: shapes equal except along the axis, whose sizes add (Inception, DenseNet).
  const auto axis = GENERATE(0, -3);
  const json layers = json::array(
      {{{"name", "b1"}, {"type", "conv2d"}, {"out_channels", 64}, {"kernel", 1}},
       {{"name", "b2"},
        {"type", "conv2d"},
        {"out_channels", 128},
        {"kernel", 3},
        {"padding", 1},
        {"inputs", "input"}},
       {{"name", "b3"},
        {"type", "maxpool2d"},
        {"kernel", 3},
        {"stride", 1},
        {"padding", 1},
        {"inputs", "input"}},
       {{"name", "cat"}, {"type", "concat"}, {"axis", axis}, {"inputs", {"b1", "b2", "b3"}}}});
  const auto r = run(layers, {192, 28, 28});
  CHECK(row(r, "cat").output_shape == Shape{64 + 128 + 192, 28, 28});
  CHECK(row(r, "cat").params == 0);
}

TEST_CASE("concat along the last axis of a sequence", "[layers][merge]") {
  const json layers =
      json::array({{{"name", "a"}, {"type", "linear"}, {"out_features", 3}},
                   {{"name", "b"}, {"type", "linear"}, {"out_features", 5}, {"inputs", "input"}},
                   {{"name", "cat"}, {"type", "concat"}, {"axis", -1}, {"inputs", {"a", "b"}}}});
  CHECK(row(run(layers, {10, 4}), "cat").output_shape == Shape{10, 8});
}

TEST_CASE("element-wise layers keep the shape and have no parameters", "[layers][elementwise]") {
  const char* type = GENERATE("relu", "relu6", "gelu", "silu", "sigmoid", "tanh", "hardswish",
                              "hardsigmoid", "dropout", "softmax");
  CAPTURE(type);
  const auto r = run(json::array({{{"type", type}}}), {8, 5, 5});
  CHECK(r.layers[1].output_shape == Shape{8, 5, 5});
  CHECK(r.params.total == 0);
  CHECK(r.macs.forward == 0);
}

TEST_CASE("AlexNet per layer matches torchvision's alexnet.py by hand", "[layers][alexnet]") {
  // torchvision/models/alexnet.py: features = Conv(3,64,k11,s4,p2), ReLU, MaxPool(3,2),
  // Conv(64,192,k5,p2), ReLU, MaxPool(3,2), Conv(192,384,k3,p1), ReLU, Conv(384,256,k3,p1),
  // ReLU, Conv(256,256,k3,p1), ReLU, MaxPool(3,2); AdaptiveAvgPool2d(6); classifier =
  // Dropout, Linear(9216,4096), ReLU, Dropout, Linear(4096,4096), ReLU, Linear(4096,1000).
  // Shapes from floor((H + 2P - K)/S) + 1; params K*K*Cin*Cout + Cout (conv),
  // in*out + out (linear); MACs Hout*Wout*Cout*K*K*Cin (conv), in*out (linear).
  //
  // Activation bytes at fp32, training, batch 1: what each layer's new tensor costs while
  // kept for backward (conv/linear/pool save their input, in-place ReLU saves its result =
  // the conv output, max pooling adds int64 indices per output, dropout a 1-byte mask).
  struct Row {
    const char* name;
    Shape shape;
    int64_t params;
    int64_t macs;
    int64_t activation_bytes;
  };
  const auto expected = GENERATE(
      // The image is saved by features.0 for its weight gradient: 3*224*224*4.
      Row{"input", {3, 224, 224}, 0, 0, 3 * 224 * 224 * 4},
      // (224 + 4 - 11)/4 + 1 = 55; 11*11*3*64 + 64; 55*55*64*363. Output saved (ReLU result,
      // max-pool input): 64*55*55*4 = 774,400.
      Row{"features.0", {64, 55, 55}, 23296, 70276800, 774400},
      Row{"features.1", {64, 55, 55}, 0, 0, 0},  // in place: shares features.0's memory
      // (55 - 3)/2 + 1 = 27. Output kept by features.3 (46,656 * 4) + indices (46,656 * 8).
      Row{"features.2", {64, 27, 27}, 0, 0, 46656 * 4 + 46656 * 8},
      // 5*5*64*192 + 192; 27*27*192*1600.
      Row{"features.3", {192, 27, 27}, 307392, 223948800, 139968 * 4},
      Row{"features.4", {192, 27, 27}, 0, 0, 0},
      // (27 - 3)/2 + 1 = 13; 32,448 elements * (4 + 8).
      Row{"features.5", {192, 13, 13}, 0, 0, 32448 * 12},
      // 3*3*192*384 + 384; 13*13*384*1728.
      Row{"features.6", {384, 13, 13}, 663936, 112140288, 64896 * 4},
      Row{"features.7", {384, 13, 13}, 0, 0, 0},
      Row{"features.8", {256, 13, 13}, 884992, 149520384, 43264 * 4},  // 3*3*384*256 + 256
      Row{"features.9", {256, 13, 13}, 0, 0, 0},
      Row{"features.10", {256, 13, 13}, 590080, 99680256, 43264 * 4},  // 3*3*256*256 + 256
      Row{"features.11", {256, 13, 13}, 0, 0, 0},
      // (13 - 3)/2 + 1 = 6; kept by the adaptive pool (9,216 * 4) + indices (9,216 * 8).
      Row{"features.12", {256, 6, 6}, 0, 0, 9216 * 12},
      // Nothing saves the pooled tensor: flatten is a view and dropout keeps only its mask.
      Row{"avgpool", {256, 6, 6}, 0, 0, 0}, Row{"flatten", {9216}, 0, 0, 0},
      // Dropout's output (kept by classifier.1) + its mask: 9,216 * 4 + 9,216 * 1.
      Row{"classifier.0", {9216}, 0, 0, 9216 * 5},
      // 9216*4096 + 4096; 9216*4096 MACs; output kept as the in-place ReLU's result.
      Row{"classifier.1", {4096}, 37752832, 37748736, 4096 * 4},
      Row{"classifier.2", {4096}, 0, 0, 0}, Row{"classifier.3", {4096}, 0, 0, 4096 * 5},
      Row{"classifier.4", {4096}, 16781312, 16777216, 4096 * 4},
      Row{"classifier.5", {4096}, 0, 0, 0},
      // 4096*1000 + 1000; the logits are not saved by anything.
      Row{"classifier.6", {1000}, 4097000, 4096000, 0});
  CAPTURE(expected.name);
  const auto r = runPreset("alexnet", {{"batch", 1}, {"dtype", "fp32"}, {"mode", "train"}});
  const auto& l = row(r, expected.name);
  CHECK(l.output_shape == expected.shape);
  CHECK(l.params == expected.params);
  CHECK(l.macs == expected.macs);
  CHECK(l.activation_bytes == expected.activation_bytes);
}

TEST_CASE("AlexNet totals: torchvision's 61,100,840 params and 0.71 GMACs", "[layers][alexnet]") {
  // torchvision AlexNet_Weights.IMAGENET1K_V1 meta: num_params 61,100,840, GFLOPS 0.71
  // (torchvision's "GFLOPS" are GMACs). The sum of the per-layer MACs above: 714,188,480.
  const auto r = runPreset("alexnet");
  CHECK(r.params.total == 61100840);
  CHECK(r.params.trainable == 61100840);
  CHECK(r.macs.forward == 714188480);
  int64_t saved = 0;
  for (const auto& l : r.layers) saved += l.activation_bytes;
  CHECK(saved == r.memory.bytesOf(
                     dlcost::MemoryKey::kActivations));  // no batchnorm: no per-batch statistics
}

TEST_CASE("LeNet-300-100 per layer by hand", "[layers][mlp]") {
  // LeCun et al. 1998, "Gradient-based learning applied to document recognition": the
  // 784-300-100-10 fully connected net. Linear params in*out + out, MACs in*out.
  // Activation bytes (fp32, training, batch 1): fc1 saves the image (784 * 4); each ReLU
  // saves its result, which the next linear also saves as its input (counted once);
  // linear outputs are read only by the ReLU that follows (ReLU's gradient needs its
  // result, not its input), so nothing keeps them.
  struct Row {
    const char* name;
    Shape shape;
    int64_t params;
    int64_t macs;
    int64_t activation_bytes;
  };
  const auto expected =
      GENERATE(Row{"input", {784}, 0, 0, 784 * 4}, Row{"fc1", {300}, 784 * 300 + 300, 784 * 300, 0},
               Row{"relu1", {300}, 0, 0, 300 * 4}, Row{"fc2", {100}, 300 * 100 + 100, 300 * 100, 0},
               Row{"relu2", {100}, 0, 0, 100 * 4}, Row{"fc3", {10}, 100 * 10 + 10, 100 * 10, 0});
  CAPTURE(expected.name);
  const auto r = runPreset("mlp_mnist", {{"batch", 1}});
  const auto& l = row(r, expected.name);
  CHECK(l.output_shape == expected.shape);
  CHECK(l.params == expected.params);
  CHECK(l.macs == expected.macs);
  CHECK(l.activation_bytes == expected.activation_bytes);
}

TEST_CASE("LeNet-300-100 totals: 266,610 params", "[layers][mlp]") {
  // 235,500 + 30,100 + 1,010 = 266,610 (LeCun et al. 1998 quote ~266,000 weights).
  const auto r = runPreset("mlp_mnist");
  CHECK(r.params.total == 266610);
  CHECK(r.macs.forward == 235200 + 30000 + 1000);
}
