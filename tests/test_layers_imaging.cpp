// The layers style-transfer, GAN, diffusion and super-resolution networks add to the schema:
// instancenorm2d, groupnorm, pixel_shuffle, pixel_unshuffle, pad (constant, reflect,
// replicate) and upsample's bicubic mode. Shapes and parameters by PyTorch's definitions; what each
// keeps for backward by 1.13's autograd (torch/csrc/autograd/generated/Functions.h of Debian's
// python3-torch 1.13.1, which lists each backward node's saved fields), checked against the
// bytes tests/model_files/make_onnx_graphs.py --measure-layers measures on that PyTorch.
#include <catch2/catch.hpp>

#include "support.hpp"

using dlcost::Shape;
using dlcost::test::kTrain;
using dlcost::test::run;
using dlcost::test::saved;
using nlohmann::json;

TEST_CASE("instancenorm2d, pixel_shuffle, pad and bicubic upsample shape as PyTorch does",
          "[layers][imaging]") {
  struct Case {
    const char* what;
    json layer;
    Shape in, out;
    int64_t params;
  };
  const auto c = GENERATE(
      // nn.InstanceNorm2d(8, affine=True): weight and bias of 8 (sum of p.numel(): 16).
      Case{"instancenorm2d affine",
           {{"type", "instancenorm2d"}, {"affine", true}},
           {8, 5, 5},
           {8, 5, 5},
           16},
      // nn.InstanceNorm2d(8): no parameters (affine=False is its default).
      Case{"instancenorm2d", {{"type", "instancenorm2d"}}, {8, 5, 5}, {8, 5, 5}, 0},
      // nn.GroupNorm(2, 8): weight and bias of 8; affine=False none.
      Case{"groupnorm", {{"type", "groupnorm"}, {"num_groups", 2}}, {8, 5, 5}, {8, 5, 5}, 16},
      Case{"groupnorm without affine",
           {{"type", "groupnorm"}, {"num_groups", 4}, {"affine", false}},
           {8, 5, 5},
           {8, 5, 5},
           0},
      // nn.PixelShuffle docs: (C r^2, H, W) -> (C, H r, W r); PixelUnshuffle the inverse.
      Case{"pixel_shuffle",
           {{"type", "pixel_shuffle"}, {"upscale_factor", 3}},
           {18, 4, 5},
           {2, 12, 15},
           0},
      Case{"pixel_unshuffle",
           {{"type", "pixel_unshuffle"}, {"downscale_factor", 2}},
           {3, 4, 6},
           {12, 2, 3},
           0},
      // F.pad's order is (left, right, top, bottom): W grows by 1 + 2, H by 0 + 1.
      Case{"pad reflect",
           {{"type", "pad"}, {"padding", {1, 2, 0, 1}}, {"mode", "reflect"}},
           {4, 6, 6},
           {4, 7, 9},
           0},
      Case{"pad constant",
           {{"type", "pad"}, {"padding", 2}, {"value", 0.5}},
           {4, 6, 6},
           {4, 10, 10},
           0},
      // F.interpolate's output for a scale factor: floor(input x scale).
      Case{"upsample bicubic",
           {{"type", "upsample"},
            {"mode", "bicubic"},
            {"scale_factor", 1.5},
            {"align_corners", true}},
           {4, 5, 7},
           {4, 7, 10},
           0});
  CAPTURE(c.what);
  const auto r = run(json::array({c.layer}), c.in, kTrain);
  CHECK(r.layers[1].output_shape == c.out);
  CHECK(r.params.total == c.params);
  CHECK(r.macs.forward == 0);
}

TEST_CASE("what instancenorm2d, pixel_shuffle, pad and bicubic upsample keep for backward",
          "[layers][imaging][memory]") {
  // [4, 6, 6] into conv2d(4, 1x1), the layer, conv2d(2, 1x1), fp32, per sample. Both
  // convolutions keep their input. make_onnx_graphs.py --measure-layers on 1.13.1 (saved
  // bytes per sample, the difference of batch 4 and 2; parameters, sum of p.numel()).
  struct Case {
    const char* what;
    json layer;
    int64_t measured_saved, measured_params;
  };
  const auto c = GENERATE(
      // instancenorm2d affine params 38 saved bytes per sample 1776: the input, the weight
      // repeated per sample (4 values) and the mean and inverse std (4 + 4, fp32), besides
      // the convolutions' inputs (NativeBatchNormBackward0 holds input_, weight_, result1_,
      // result2_; aten's instance_norm repeats the weight over the batch).
      Case{"instancenorm2d affine", {{"type", "instancenorm2d"}, {"affine", true}}, 1776, 38},
      // instancenorm2d params 30 saved bytes per sample 1760: no weight to repeat.
      Case{"instancenorm2d", {{"type", "instancenorm2d"}}, 1760, 30},
      // groupnorm 2 groups params 38 saved bytes per sample 1744: the input and the mean and
      // rstd per group (2 + 2, fp32) (NativeGroupNormBackward0 holds input_, weight_, the
      // parameter, result1_, result2_).
      Case{"groupnorm", {{"type", "groupnorm"}, {"num_groups", 2}}, 1744, 38},
      // pixel_shuffle 2 params 24 saved bytes per sample 1152 (PixelShuffleBackward0 holds
      // upscale_factor only).
      Case{"pixel_shuffle", {{"type", "pixel_shuffle"}, {"upscale_factor", 2}}, 1152, 24},
      // pixel_unshuffle 2 params 54 saved bytes per sample 1152.
      Case{"pixel_unshuffle", {{"type", "pixel_unshuffle"}, {"downscale_factor", 2}}, 1152, 54},
      // pad reflect [1, 2, 0, 1] params 30 saved bytes per sample 2160
      // (ReflectionPad2DBackward0 holds self_).
      Case{"pad reflect",
           {{"type", "pad"}, {"padding", {1, 2, 0, 1}}, {"mode", "reflect"}},
           2160,
           30},
      // pad replicate [1, 2, 0, 1] params 30 saved bytes per sample 2160
      // (ReplicationPad2DBackward0 holds self_).
      Case{"pad replicate",
           {{"type", "pad"}, {"padding", {1, 2, 0, 1}}, {"mode", "replicate"}},
           2160,
           30},
      // pad constant [1, 2, 0, 1] params 30 saved bytes per sample 1584
      // (ConstantPadNdBackward0 holds the amounts only).
      Case{"pad constant", {{"type", "pad"}, {"padding", {1, 2, 0, 1}}}, 1584, 30},
      // upsample bicubic x2 align_corners params 30 saved bytes per sample 2880
      // (UpsampleBicubic2DBackward0/1 hold sizes and scales only).
      Case{
          "upsample bicubic",
          {{"type", "upsample"}, {"mode", "bicubic"}, {"scale_factor", 2}, {"align_corners", true}},
          2880,
          30});
  CAPTURE(c.what);
  const auto r = run(json::array({{{"type", "conv2d"}, {"out_channels", 4}, {"kernel", 1}},
                                  c.layer,
                                  {{"type", "conv2d"}, {"out_channels", 2}, {"kernel", 1}}}),
                     {4, 6, 6}, kTrain);
  CHECK(saved(r) == c.measured_saved);
  CHECK(r.params.total == c.measured_params);
}

TEST_CASE("instancenorm2d and groupnorm keep a contiguous copy of a non-contiguous input",
          "[layers][imaging][memory]") {
  // The norms of the table above after H and W are swapped (permute [0, 2, 1];
  // x.transpose(2, 3) in make_onnx_graphs.py --measure-layers, 1.13.1): both read
  // `input.contiguous()`, a copy here, and backward keeps the copy instead of the input. The
  // saved bytes per sample equal the contiguous cases' (instancenorm2d 1760, affine 1776,
  // groupnorm 2 groups 1744: the copy replaces the first convolution's output), and the
  // norm's row now holds the copy, [4, 6, 6] x 4 bytes = 576 more.
  struct Case {
    const char* what;
    json layer;
    int64_t measured_saved;
  };
  const auto c =
      GENERATE(Case{"instancenorm2d", {{"type", "instancenorm2d"}}, 1760},
               Case{"instancenorm2d affine", {{"type", "instancenorm2d"}, {"affine", true}}, 1776},
               Case{"groupnorm", {{"type", "groupnorm"}, {"num_groups", 2}}, 1744});
  CAPTURE(c.what);
  const auto graph = [&](bool transposed) {
    json layers = json::array({{{"type", "conv2d"}, {"out_channels", 4}, {"kernel", 1}}});
    if (transposed) layers.push_back({{"type", "permute"}, {"dims", {0, 2, 1}}});
    layers.push_back(c.layer);
    layers.push_back({{"type", "conv2d"}, {"out_channels", 2}, {"kernel", 1}});
    return layers;
  };
  const auto contiguous = run(graph(false), {4, 6, 6}, kTrain);
  const auto transposed = run(graph(true), {4, 6, 6}, kTrain);
  CHECK(saved(transposed) == c.measured_saved);
  CHECK(saved(contiguous) == c.measured_saved);
  // Rows: input, conv2d, [permute,] the norm, conv2d.
  CHECK(transposed.layers[1].activation_bytes == 0);
  CHECK(transposed.layers[3].activation_bytes == contiguous.layers[2].activation_bytes + 576);
}

TEST_CASE("a layer whose output needs no gradient keeps nothing for backward",
          "[layers][imaging][memory]") {
  // reflection pad of the model input params 74 saved bytes per sample 1024
  // (make_onnx_graphs.py --measure-layers, 1.13.1): autograd records no node for an op none
  // of whose inputs requires grad, so the pad keeps nothing; the convolution keeps the padded
  // [4, 8, 8] for its weight's gradient.
  const auto r = run(json::array({{{"type", "pad"}, {"padding", 1}, {"mode", "reflect"}},
                                  {{"type", "conv2d"}, {"out_channels", 2}, {"kernel", 3}}}),
                     {4, 6, 6}, kTrain);
  CHECK(saved(r) == 1024);
  CHECK(r.params.total == 74);
}

TEST_CASE("the imaging layers refuse impossible fields by name", "[layers][imaging][errors]") {
  struct Case {
    json layer;
    Shape in;
    const char* path;
    const char* message;
  };
  const auto c = GENERATE(
      Case{{{"type", "pixel_shuffle"}, {"upscale_factor", 2}},
           {6, 4, 4},
           "/model/layers/0/upscale_factor",
           "divisible"},
      Case{{{"type", "pixel_unshuffle"}, {"downscale_factor", 3}},
           {2, 4, 6},
           "/model/layers/0/downscale_factor",
           "divisible"},
      Case{{{"type", "pad"}, {"padding", {4, 0, 0, 0}}, {"mode", "reflect"}},
           {2, 4, 4},
           "/model/layers/0/padding",
           "smaller"},
      Case{{{"type", "pad"}, {"padding", {1, 1}}}, {2, 4, 4}, "/model/layers/0/padding", "left"},
      Case{{{"type", "pad"}, {"padding", 1}, {"mode", "circular"}},
           {2, 4, 4},
           "/model/layers/0/mode",
           "replicate"},
      Case{{{"type", "pad"}, {"padding", 1}, {"mode", "reflect"}, {"value", 1}},
           {2, 4, 4},
           "/model/layers/0/value",
           "constant"},
      Case{{{"type", "instancenorm2d"}, {"track_running_stats", true}},
           {2, 4, 4},
           "/model/layers/0/track_running_stats",
           "unknown"},
      Case{{{"type", "instancenorm2d"}}, {2, 4}, "/model/layers/0", "[C, H, W]"},
      Case{{{"type", "groupnorm"}, {"num_groups", 3}},
           {4, 4, 4},
           "/model/layers/0/num_groups",
           "divide"},
      Case{{{"type", "upsample"}, {"mode", "area"}, {"scale_factor", 2}},
           {2, 4, 4},
           "/model/layers/0/mode",
           "bicubic"});
  CAPTURE(c.layer.dump());
  const auto e =
      dlcost::test::errorOf(json{{"model", {{"input", c.in}, {"layers", json::array({c.layer})}}}});
  CHECK(e.path == c.path);
  CHECK_THAT(e.message, Catch::Contains(c.message));
}
