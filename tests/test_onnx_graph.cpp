// ONNX graphs as the engine's layer graph: torchvision models exported by Debian's
// python3-torch 1.13 (tests/model_files/make_onnx_graphs.py: training mode, weights stripped to
// external tensors of the same dims) give the presets' parameters and MACs exactly, and
// hand-made graphs with operators the engine does not model are refused with the operators
// listed by name and count.
//
// Figures: torchvision's weight metadata (pytorch/vision torchvision/models/*.py, `num_params`
// and `_ops` of each weights enum; `_ops` counts one conv/linear multiply-add as one, so it is
// GMACs, rounded). The presets are checked against the same metadata in test_presets_cnn.cpp.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "dlcost/base/error.hpp"
#include "dlcost/model_files/model_file.hpp"
#include "dlcost/model_files/onnx.hpp"
#include "dlcost/model_files/onnx_graph.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/types/workload.hpp"
#include "model_file_writer.hpp"

using nlohmann::json;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/onnx/" + name, std::ios::binary);
  REQUIRE(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

dlcost::OnnxModel read(const std::string& bytes) {
  const dlcost::MemorySource src(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 static_cast<int64_t>(bytes.size()));
  return dlcost::readOnnx(src);
}

dlcost::Report estimateModel(const json& model, dlcost::Mode mode) {
  dlcost::Workload w;
  w.mode = mode;
  return dlcost::estimate(dlcost::parseModel(model, ""), w);
}

struct Published {
  const char* name;
  int64_t params;  ///< torchvision num_params
  double gmacs;    ///< torchvision _ops (GMACs, rounded)
};

// clang-format off
const Published kModels[] = {
    // torchvision/models/resnet.py, ResNet18_Weights.IMAGENET1K_V1: 11,689,512 params, _ops 1.814
    {"resnet18", 11689512, 1.814},
    // torchvision/models/mobilenetv2.py, MobileNet_V2_Weights.IMAGENET1K_V1: 3,504,872, _ops 0.301
    {"mobilenet_v2", 3504872, 0.301},
    // torchvision/models/squeezenet.py, SqueezeNet1_1_Weights.IMAGENET1K_V1: 1,235,496, _ops 0.349
    {"squeezenet1_1", 1235496, 0.349},
    // torchvision/models/alexnet.py, AlexNet_Weights.IMAGENET1K_V1: 61,100,840, _ops 0.714
    {"alexnet", 61100840, 0.714},
    // torchvision/models/vgg.py, VGG11_Weights.IMAGENET1K_V1: 132,863,336, _ops 7.609
    {"vgg11", 132863336, 7.609},
    // torchvision/models/mobilenetv3.py, MobileNet_V3_Small_Weights.IMAGENET1K_V1: 2,542,856,
    // _ops 0.057
    {"mobilenet_v3_small", 2542856, 0.057},
    // torchvision/models/efficientnet.py, EfficientNet_B0_Weights.IMAGENET1K_V1: 5,288,548,
    // _ops 0.386
    {"efficientnet_b0", 5288548, 0.386},
    // torchvision/models/densenet.py, DenseNet121_Weights.IMAGENET1K_V1: 7,978,856, _ops 2.834
    {"densenet121", 7978856, 2.834},
};
// clang-format on

}  // namespace

TEST_CASE("torchvision ONNX exports give the presets' parameters and MACs", "[onnx][graph]") {
  for (const Published& p : kModels) {
    DYNAMIC_SECTION(p.name) {
      const dlcost::OnnxModel m = read(fixture(std::string(p.name) + ".onnx"));
      const dlcost::OnnxGraphImport g = dlcost::onnxLayerGraph(m);
      INFO(g.error);
      for (const auto& [op, u] : g.unmodelled) INFO(op + ": " + u.reason);
      REQUIRE(g.model.is_object());
      CHECK(g.understood == g.nodes);
      CHECK(g.unused_initializers.empty());
      CHECK(g.parameters == p.params);

      const dlcost::Report onnx = estimateModel(g.model, dlcost::Mode::kTrain);
      const dlcost::Report preset = estimateModel(json{{"preset", p.name}}, dlcost::Mode::kTrain);
      CHECK(onnx.params.total == p.params);
      CHECK(onnx.params.total == preset.params.total);
      CHECK(onnx.params.buffers == preset.params.buffers);
      CHECK(onnx.macs.forward == preset.macs.forward);
      CHECK(onnx.macs.backward == preset.macs.backward);
      CHECK(onnx.macs.forward == g.macs_per_sample);
      CHECK(static_cast<double>(onnx.macs.forward) / 1e9 == Approx(p.gmacs).epsilon(0.01));
      // Training memory, term by term as simulated (weights, gradients, Adam states, saved
      // activations, the backward peak): the preset's exactly. Inference peaks may differ:
      // an ONNX graph does not say which ReLUs torch ran in place (docs/model-files.md).
      CHECK(onnx.memory.total == preset.memory.total);

      // The file's weight initializers are the parameters plus batchnorm's running mean and
      // variance (ONNX has no buffers); num_batches_tracked is an int64 constant, not a weight.
      int64_t file_weights = 0;
      for (const dlcost::OnnxTensor& t : m.initializers)
        if (t.data_type == 1) file_weights += t.elements;
      CHECK(file_weights == g.parameters + g.buffer_values);
    }
  }
}

TEST_CASE("an ONNX graph's layers have the preset's shapes", "[onnx][graph]") {
  const dlcost::OnnxGraphImport g = dlcost::onnxLayerGraph(read(fixture("resnet18.onnx")));
  REQUIRE(g.model.is_object());
  const dlcost::Report onnx = estimateModel(g.model, dlcost::Mode::kInfer);
  const dlcost::Report preset = estimateModel(json{{"preset", "resnet18"}}, dlcost::Mode::kInfer);
  // torchvision's resnet18 in eval: Conv, BN, ReLU, MaxPool, 8 blocks, pool, flatten, fc.
  std::vector<std::pair<std::string, dlcost::Shape>> onnx_convs, preset_convs;
  for (const auto& l : onnx.layers)
    if (l.type == "conv2d" || l.type == "linear") onnx_convs.push_back({l.type, l.output_shape});
  for (const auto& l : preset.layers)
    if (l.type == "conv2d" || l.type == "linear") preset_convs.push_back({l.type, l.output_shape});
  CHECK(onnx_convs == preset_convs);
  CHECK(onnx.layers.back().output_shape == dlcost::Shape{1000});
}

TEST_CASE("the summary of an ONNX file carries its layer graph", "[onnx][graph]") {
  const std::string bytes = fixture("squeezenet1_1.onnx");
  const json s = dlcost::inspectModelFile(bytes, static_cast<int64_t>(bytes.size()));
  const json& g = s["layer_graph"];
  CHECK(g["model"]["input"] == json::array({3, 224, 224}));
  // The graph does not say which activations torch ran in place; the model says so.
  CHECK_THAT(g["model"]["comment"].get<std::string>(), Catch::Contains("in place"));
  // torchvision/models/squeezenet.py, SqueezeNet1_1_Weights: num_params 1,235,496
  CHECK(g["parameters"] == 1235496);
  CHECK(g["share_understood"] == 1.0);
  CHECK(g["unmodelled"].empty());
  CHECK(dlcost::onnxModelOrError(s) == g["model"]);
}

namespace {

// A graph of one input and the nodes given, in protobuf by hand (model_file_writer.hpp).
using dlcost::test::protobuf::bytesField;
using dlcost::test::protobuf::tag;
using dlcost::test::protobuf::varint;
std::string node(const std::string& op, const std::vector<std::string>& in,
                 const std::vector<std::string>& out, const std::string& attrs = "") {
  std::string n;
  for (const auto& i : in) n += bytesField(1, i);
  for (const auto& o : out) n += bytesField(2, o);
  return bytesField(1, n + bytesField(3, op + "_" + out[0]) + bytesField(4, op) + attrs);
}
std::string intsAttr(const std::string& name, const std::vector<uint64_t>& v) {
  std::string packed;
  for (uint64_t x : v) packed += varint(x);
  return bytesField(5, bytesField(1, name) + bytesField(8, packed) + tag(20, 0) + varint(7));
}
std::string intAttr(const std::string& name, uint64_t v) {
  return bytesField(5, bytesField(1, name) + tag(3, 0) + varint(v) + tag(20, 0) + varint(2));
}
std::string valueInfo(int field, const std::string& name, const std::vector<uint64_t>& dims) {
  std::string shape;
  for (uint64_t d : dims) shape += bytesField(1, tag(1, 0) + varint(d));
  const std::string tensor = tag(1, 0) + varint(1) + bytesField(2, shape);
  return bytesField(field, bytesField(1, name) + bytesField(2, bytesField(1, tensor)));
}
std::string initializer(const std::string& name, const std::vector<uint64_t>& dims) {
  std::string packed;
  for (uint64_t d : dims) packed += varint(d);
  return bytesField(5, bytesField(1, packed) + tag(2, 0) + varint(1) + bytesField(8, name) +
                           tag(14, 0) + varint(1));
}
std::string model(const std::string& graph) {
  return tag(1, 0) + varint(8) + bytesField(7, graph);
}

}  // namespace

TEST_CASE("operators the engine does not model are listed, and nothing is estimated",
          "[onnx][graph]") {
  // x -> Conv(4, 3x3), then GridSample -> Relu and two Einsum of the conv: GridSample and
  // Einsum have no layer in the schema; the Relu after GridSample cannot be shaped.
  const std::string graph = node("Conv", {"x", "w"}, {"c"}, intsAttr("kernel_shape", {3, 3})) +
                            node("GridSample", {"c"}, {"r"}) + node("Relu", {"r"}, {"a"}) +
                            node("Einsum", {"c"}, {"l1"}) + node("Einsum", {"c"}, {"l2"}) +
                            initializer("w", {4, 3, 3, 3}) + valueInfo(11, "x", {1, 3, 8, 8}) +
                            valueInfo(12, "l2", {1, 4, 6, 6});
  const std::string bytes = model(graph);
  const json s = dlcost::inspectModelFile(bytes, static_cast<int64_t>(bytes.size()));
  const json& g = s["layer_graph"];
  CHECK(g["model"].is_null());
  CHECK(g["nodes"] == 5);
  CHECK(g["understood_nodes"] == 1);
  CHECK(g["after_unmodelled_nodes"] == 1);
  CHECK(g["share_understood"] == Approx(0.2));
  REQUIRE(g["unmodelled"].size() == 2);
  CHECK(g["unmodelled"][0]["op_type"] == "Einsum");
  CHECK(g["unmodelled"][0]["count"] == 2);
  CHECK(g["unmodelled"][1]["op_type"] == "GridSample");
  try {
    (void)dlcost::onnxModelOrError(s);
    FAIL("no error");
  } catch (const dlcost::InputError& e) {
    CHECK_THAT(e.error().message, Catch::Contains("Einsum x2") &&
                                      Catch::Contains("GridSample x1") &&
                                      Catch::Contains("1 of the graph's 5 nodes"));
  }
}

TEST_CASE("ONNX graphs dlcost cannot shape are refused with the reason", "[onnx][graph]") {
  SECTION("a symbolic spatial dimension") {
    std::string shape = bytesField(1, bytesField(2, "batch")) + bytesField(1, bytesField(2, "c"));
    const std::string vi = bytesField(
        11, bytesField(1, "x") +
                bytesField(2, bytesField(1, tag(1, 0) + varint(1) + bytesField(2, shape))));
    const auto g = dlcost::onnxLayerGraph(read(model(node("Relu", {"x"}, {"y"}) + vi)));
    CHECK(g.model.is_null());
    CHECK_THAT(g.error, Catch::Contains("symbolic"));
  }
  SECTION("a declared output shape the layers contradict") {
    const std::string graph = node("Conv", {"x", "w"}, {"c"}, intsAttr("kernel_shape", {3, 3})) +
                              initializer("w", {4, 3, 3, 3}) + valueInfo(11, "x", {1, 3, 8, 8}) +
                              valueInfo(12, "c", {1, 4, 8, 8});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    CHECK(g.model.is_null());
    CHECK(g.error_path == "/graph/output/0");
    CHECK_THAT(g.error, Catch::Contains("[4, 6, 6]"));
  }
  SECTION("asymmetric padding") {
    const std::string graph =
        node("Conv", {"x", "w"}, {"c"},
             intsAttr("kernel_shape", {3, 3}) + intsAttr("pads", {0, 0, 1, 1})) +
        initializer("w", {4, 3, 3, 3}) + valueInfo(11, "x", {1, 3, 8, 8});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    CHECK(g.model.is_null());
    CHECK_THAT(g.unmodelled.at("Conv").reason, Catch::Contains("asymmetric"));
  }
  SECTION("two graph inputs") {
    const std::string graph =
        node("Add", {"x", "y"}, {"s"}) + valueInfo(11, "x", {1, 4}) + valueInfo(11, "y", {1, 4});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    CHECK_THAT(g.error, Catch::Contains("one input"));
  }
}

TEST_CASE("the SiLU, bias and symbolic-batch patterns", "[onnx][graph]") {
  // x[batch, 8] -> MatMul(W 8x16) -> Add(b 16) -> Sigmoid, Mul(h, sigmoid) -> Softmax.
  std::string shape = bytesField(1, bytesField(2, "batch")) + bytesField(1, tag(1, 0) + varint(8));
  const std::string vi = bytesField(
      11, bytesField(1, "x") +
              bytesField(2, bytesField(1, tag(1, 0) + varint(1) + bytesField(2, shape))));
  const std::string graph = node("MatMul", {"x", "w"}, {"m"}) + node("Add", {"m", "b"}, {"h"}) +
                            node("Sigmoid", {"h"}, {"s"}) + node("Mul", {"h", "s"}, {"y"}) +
                            node("Softmax", {"y"}, {"p"}) + initializer("w", {8, 16}) +
                            initializer("b", {16}) + vi;
  const auto g = dlcost::onnxLayerGraph(read(model(graph)));
  INFO(g.error);
  REQUIRE(g.model.is_object());
  const json& layers = g.model["layers"];
  REQUIRE(layers.size() == 3);
  CHECK(layers[0]["type"] == "linear");
  CHECK(layers[0]["bias"] == true);
  CHECK(layers[1]["type"] == "silu");
  CHECK(layers[2]["type"] == "softmax");
  CHECK(layers[2]["inputs"] == json::array({layers[1]["name"]}));
  CHECK(g.parameters == 8 * 16 + 16);
  CHECK(g.understood == 5);
}

TEST_CASE(
    "tiny U-Net, ViT, super-resolution, style-transfer, GroupNorm exports give PyTorch's counts",
    "[onnx][graph][unet][vit]") {
  // tests/model_files/make_onnx_graphs.py --tiny-unet / --tiny-vit / --tiny-espcn /
  // --tiny-style / --tiny-resize / --tiny-groupnorm export them (the ViT with torch.onnx.export's
  // defaults, eval mode and constant folding; the others in training mode at opset 17), and
  // --measure prints PyTorch 1.13's own figures, quoted here: the sum of p.numel(), the MACs of the
  // convolutions and matrix products ATen runs (a dispatch mode counting convolution, addmm, mm and
  // bmm), and the bytes autograd saves for backward (saved_tensors_hooks; storages once, parameters
  // and buffers excluded) at batch 2 and 4, fp32, as scripts/validate_torch.py measures.
  struct Measured {
    const char* file;
    int64_t params, macs, saved_b2, saved_b4;
    std::vector<const char*> types;  ///< layer types the import must produce
  };
  // clang-format off
  const auto m = GENERATE(
      // tiny_unet params 29690 macs/sample 1714176 saved bytes at batch 2 320768 batch 4 640256
      Measured{"tiny_unet.onnx", 29690, 1714176, 320768, 640256,
               {"conv_transpose2d", "upsample", "leaky_relu", "maxpool2d", "concat"}},
      // tiny_vit params 19626 macs/sample 340416 saved bytes at batch 2 139152 batch 4 278304
      Measured{"tiny_vit.onnx", 19626, 340416, 139152, 278304,
               {"permute", "reshape", "matmul", "select", "gelu", "softmax", "layernorm"}},
      // The same ViT exported with a symbolic batch: its shape arithmetic stays in the graph.
      Measured{"tiny_vit_dynamic.onnx", 19626, 340416, 139152, 278304,
               {"permute", "reshape", "matmul", "select", "gelu", "softmax", "layernorm"}},
      // tiny_espcn params 3252 macs/sample 823296 saved bytes at batch 2 79872 batch 4 159744
      Measured{"tiny_espcn.onnx", 3252, 823296, 79872, 159744,
               {"conv2d", "tanh", "pixel_shuffle", "sigmoid"}},
      // tiny_style params 8955 macs/sample 1147392 saved bytes at batch 2 469376 batch 4 938752
      Measured{"tiny_style.onnx", 8955, 1147392, 469376, 938752,
               {"pad", "instancenorm2d", "upsample", "conv_transpose2d", "add", "tanh"}},
      // tiny_resize params 156 macs/sample 127024 saved bytes at batch 2 295232 batch 4 590464
      Measured{"tiny_resize.onnx", 156, 127024, 295232, 590464, {"upsample", "avgpool2d"}},
      // tiny_groupnorm params 1435 macs/sample 356352 saved bytes at batch 2 120928 batch 4
      // 241856
      Measured{"tiny_groupnorm.onnx", 1435, 356352, 120928, 241856, {"groupnorm", "silu"}});
  // clang-format on
  CAPTURE(m.file);
  const dlcost::OnnxGraphImport g = dlcost::onnxLayerGraph(read(fixture(m.file)));
  INFO(g.error);
  for (const auto& [op, u] : g.unmodelled) INFO(op + ": " + u.reason);
  REQUIRE(g.model.is_object());
  CHECK(g.understood == g.nodes);
  CHECK(g.unused_initializers.empty());
  CHECK(g.parameters == m.params);
  CHECK(g.macs_per_sample == m.macs);
  std::set<std::string> types;
  for (const json& l : g.model["layers"]) types.insert(l["type"].get<std::string>());
  for (const char* t : m.types) CHECK(types.count(t) == 1);
  for (const int64_t batch : {2, 4}) {
    dlcost::Workload w;
    w.mode = dlcost::Mode::kTrain;
    w.batch = batch;
    const dlcost::Report r = dlcost::estimate(dlcost::parseModel(g.model, ""), w);
    CHECK(r.params.total == m.params);
    CHECK(r.macs.forward == m.macs * batch);
    CHECK(r.memory.bytesOf(dlcost::MemoryKey::kActivations) ==
          (batch == 2 ? m.saved_b2 : m.saved_b4));
  }
}

TEST_CASE("the image-to-image operators become the layers PyTorch runs", "[onnx][graph]") {
  const std::string in = valueInfo(11, "x", {1, 4, 5, 5});
  SECTION("ConvTranspose to an output_shape is the nn.ConvTranspose2d of that output") {
    // x [4, 5, 5] -> ConvTranspose(W [4, 2, 3, 3], B [2], stride 2, output_shape) -> Relu.
    // PyTorch 1.13.1, nn.ConvTranspose2d(4, 2, 3, stride=2, padding=p)(x, output_size=o)
    // then relu (a script of make_onnx_graphs.py's saved_bytes and macs): p 1, o [10, 10]:
    // params 74, MACs 1800, saved bytes 2400 at batch 2; p 0, o [11, 11]: 74, 1800, 2736.
    struct Case {
      uint64_t out;
      int64_t padding, output_padding, measured_saved_b2;
    };
    const auto c = GENERATE(Case{10, 1, 1, 2400}, Case{11, 0, 0, 2736});
    CAPTURE(c.out);
    const std::string graph =
        node("ConvTranspose", {"x", "w", "b"}, {"t"},
             intsAttr("strides", {2, 2}) + intsAttr("output_shape", {c.out, c.out})) +
        node("Relu", {"t"}, {"y"}) + initializer("w", {4, 2, 3, 3}) + initializer("b", {2}) + in;
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    for (const auto& [op, u] : g.unmodelled) INFO(op + ": " + u.reason);
    REQUIRE(g.model.is_object());
    const json& t = g.model["layers"][0];
    CHECK(t["padding"] == json::array({c.padding, c.padding}));
    CHECK(t["output_padding"] == json::array({c.output_padding, c.output_padding}));
    CHECK(g.parameters == 74);
    CHECK(g.macs_per_sample == 1800);
    dlcost::Workload w;
    w.batch = 2;
    const dlcost::Report r = dlcost::estimate(dlcost::parseModel(g.model, ""), w);
    CHECK(r.layers.back().output_shape ==
          dlcost::Shape{2, static_cast<int64_t>(c.out), static_cast<int64_t>(c.out)});
    CHECK(r.memory.bytesOf(dlcost::MemoryKey::kActivations) == c.measured_saved_b2);
  }
  SECTION("an output_shape no nn.ConvTranspose2d gives is refused by name") {
    // The full output is 2 x 4 + 3 = 11; 14 would need output_padding 3, not below stride 2.
    const std::string graph =
        node("ConvTranspose", {"x", "w"}, {"t"},
             intsAttr("strides", {2, 2}) + intsAttr("output_shape", {14, 14})) +
        initializer("w", {4, 2, 3, 3}) + in;
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    CHECK(g.model.is_null());
    CHECK_THAT(g.unmodelled.at("ConvTranspose").reason, Catch::Contains("output_shape [14, 14]"));
  }
  SECTION("DepthToSpace in either mode is a pixel shuffle; SpaceToDepth an unshuffle") {
    const std::string graph = node("DepthToSpace", {"x"}, {"d"}, intAttr("blocksize", 2)) +
                              node("SpaceToDepth", {"d"}, {"s"}, intAttr("blocksize", 2)) +
                              valueInfo(11, "x", {1, 8, 3, 3});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    REQUIRE(g.model.is_object());
    CHECK(g.model["layers"][0]["type"] == "pixel_shuffle");
    CHECK(g.model["layers"][1]["type"] == "pixel_unshuffle");
  }
  SECTION("InstanceNormalization of a reshaped tensor (torch's GroupNorm) is refused by name") {
    const std::string graph = node("InstanceNormalization", {"x", "s", "b"}, {"y"}) +
                              initializer("s", {4}) + initializer("b", {4}) +
                              valueInfo(11, "x", {1, 4, 25});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    CHECK(g.model.is_null());
    CHECK_THAT(g.unmodelled.at("InstanceNormalization").reason, Catch::Contains("GroupNorm"));
  }
  SECTION("a Pad of the batch or channels, or of mode wrap, is refused by name") {
    const std::string graph =
        node("Pad", {"x"}, {"y"}, intsAttr("pads", {0, 1, 0, 0, 0, 1, 0, 0})) + in;
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    CHECK(g.model.is_null());
    CHECK_THAT(g.unmodelled.at("Pad").reason, Catch::Contains("H and W"));
  }
}

TEST_CASE("a graph whose BatchNorms an eval-mode export folded is estimated for inference only",
          "[onnx][graph][folded]") {
  // tiny_resnet_eval.onnx (make_onnx_graphs.py --tiny-resnet-eval): conv1-bn1-relu, a
  // residual block of two conv-bn, global pool, Dropout, fc, exported by torch 1.13.1 with
  // model.eval() and torch.onnx.export's defaults. The export folded the three BatchNorms into
  // their convolutions (weights and biases named onnx::Conv_35 ... onnx::Conv_42) and dropped
  // the Dropout.
  const std::string bytes = fixture("tiny_resnet_eval.onnx");
  const json s = dlcost::inspectModelFile(bytes, static_cast<int64_t>(bytes.size()));
  const json& g = s["layer_graph"];
  REQUIRE(g["model"].is_object());
  CHECK(g["folded_batchnorm"]["convolutions"] == 3);
  CHECK_THAT(g["folded_batchnorm"]["first_node"].get<std::string>(),
             Catch::Contains("/conv1/Conv") && Catch::Contains("onnx::Conv_36"));
  // Training: refused, with the export that keeps the BatchNorms (and says Dropout is gone).
  try {
    (void)estimateModel(g["model"], dlcost::Mode::kTrain);
    FAIL("no error");
  } catch (const dlcost::InputError& e) {
    CHECK(e.error().path == "/workload/mode");
    CHECK_THAT(e.error().message, Catch::Contains("3 of its 3 convolutions carry a BatchNorm") &&
                                      Catch::Contains("drops every Dropout") &&
                                      Catch::Contains("torch.onnx.export(model, x, path, "
                                                      "training=torch.onnx.TrainingMode.TRAINING, "
                                                      "do_constant_folding=False)"));
  }
  // Inference: the graph as it runs. Its parameters are the folded initializers' (the file's
  // own: 3x8x3x3 + 8, 2 x (8x8x3x3 + 8), 8x10 + 10 = 1,482), not the trained model's 1,506
  // (PyTorch's sum of p.numel(): the same without conv biases, plus 3 x 16 BatchNorm values).
  const dlcost::Report r = estimateModel(g["model"], dlcost::Mode::kInfer);
  CHECK(r.params.total == 1482);
  CHECK(g["parameters"] == 1482);
  // Exports that keep the structure are not flagged: a training-mode export, and an eval
  // export of a model without BatchNorm (tiny_vit.onnx, torch.onnx.export's defaults).
  for (const char* name : {"resnet18.onnx", "tiny_unet.onnx", "tiny_vit.onnx"}) {
    CAPTURE(name);
    const std::string other = fixture(name);
    const json o = dlcost::inspectModelFile(other, static_cast<int64_t>(other.size()));
    CHECK_FALSE(o["layer_graph"].contains("folded_batchnorm"));
    CHECK_FALSE(o["layer_graph"]["model"].contains("inference_only"));
  }
}

TEST_CASE("channel splits, means and transposed weights become the layers PyTorch runs",
          "[onnx][graph][split]") {
  // uint64 of a negative attribute value: ONNX stores int64 as two's-complement varints.
  const auto neg = [](int64_t v) { return static_cast<uint64_t>(v); };
  SECTION("Split and ReduceMean: shufflenet's chunk and MnasNet's x.mean([2, 3])") {
    // x [1, 8, 4, 4] -> Split(axis 1, [3, 5]) -> relu of the second -> Concat -> mean.
    const std::string graph =
        node("Split", {"x"}, {"a", "b"}, intAttr("axis", 1) + intsAttr("split", {3, 5})) +
        node("Relu", {"b"}, {"r"}) + node("Concat", {"a", "r"}, {"c"}, intAttr("axis", 1)) +
        node("ReduceMean", {"c"}, {"m"}, intsAttr("axes", {2, neg(-1)}) + intAttr("keepdims", 0)) +
        valueInfo(11, "x", {1, 8, 4, 4}) + valueInfo(12, "m", {1, 8});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    INFO(g.error);
    REQUIRE(g.model.is_object());
    CHECK(g.understood == g.nodes);
    const json& layers = g.model["layers"];
    REQUIRE(layers.size() == 5);
    CHECK(layers[0]["type"] == "narrow");
    CHECK(layers[0]["length"] == 3);
    CHECK(layers[1]["start"] == 3);
    CHECK(layers[1]["length"] == 5);
    CHECK(layers[4]["type"] == "mean");
    CHECK(layers[4]["dims"] == json::array({1, 2}));
    CHECK(layers[4]["keepdim"] == false);
    const dlcost::Report r = estimateModel(g.model, dlcost::Mode::kTrain);
    CHECK(r.layers.back().output_shape == dlcost::Shape{8});
  }
  SECTION("Slice along one sample axis, the batch whole") {
    // x[:, 2:6] of [1, 8, 4, 4]; ends of INT64_MAX mean "to the end".
    const std::string graph =
        node("Slice", {"x"}, {"s"},
             intsAttr("starts", {0, 2}) + intsAttr("ends", {neg(INT64_MAX), 6}) +
                 intsAttr("axes", {0, 1})) +
        node("Relu", {"s"}, {"r"}) + valueInfo(11, "x", {1, 8, 4, 4});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    REQUIRE(g.model.is_object());
    const json& l = g.model["layers"][0];
    CHECK(l["type"] == "narrow");
    CHECK(l["dim"] == 0);
    CHECK(l["start"] == 2);
    CHECK(l["length"] == 4);
  }
  SECTION("what is refused, by name") {
    const auto reason = [&](const std::string& nodes, const std::string& op) {
      // A batch of 2: x[0:1] of it is a slice of the batch.
      const auto g = dlcost::onnxLayerGraph(read(model(nodes + valueInfo(11, "x", {2, 8, 4, 4}))));
      CHECK(g.model.is_null());
      return g.unmodelled.at(op).reason;
    };
    CHECK_THAT(reason(node("Slice", {"x"}, {"s"},
                           intsAttr("starts", {1, 1}) + intsAttr("ends", {3, 3}) +
                               intsAttr("axes", {1, 2})),
                      "Slice"),
               Catch::Contains("more than one axis"));
    CHECK_THAT(reason(node("Slice", {"x"}, {"s"},
                           intsAttr("starts", {0}) + intsAttr("ends", {1}) + intsAttr("axes", {0})),
                      "Slice"),
               Catch::Contains("batch"));
    CHECK_THAT(reason(node("ReduceMean", {"x"}, {"m"}, intsAttr("axes", {0, 1})), "ReduceMean"),
               Catch::Contains("the batch"));
    CHECK_THAT(reason(node("ReduceMean", {"x"}, {"m"}), "ReduceMean"),
               Catch::Contains("every axis"));
    CHECK_THAT(
        reason(node("Split", {"x"}, {"a", "b"}, intAttr("axis", 1) + intsAttr("split", {3, 3})),
               "Split"),
        Catch::Contains("do not make up axis 1 of size 8"));
  }
  SECTION("a transposed weight and a constant operand first: convnext's Linear and layer_scale") {
    // x [1, 4, 6] -> MatMul by Transpose(w [5, 6]) -> Mul(g [5], .): nn.Linear(6, 5, bias=False)
    // exported without constant folding, then a learned per-channel scale written first.
    const std::string graph = node("Transpose", {"w"}, {"wt"}, intsAttr("perm", {1, 0})) +
                              node("MatMul", {"x", "wt"}, {"y"}) + node("Mul", {"g", "y"}, {"z"}) +
                              initializer("w", {5, 6}) + initializer("g", {5}) +
                              valueInfo(11, "x", {1, 4, 6}) + valueInfo(12, "z", {1, 4, 5});
    const auto g = dlcost::onnxLayerGraph(read(model(graph)));
    INFO(g.error);
    REQUIRE(g.model.is_object());
    CHECK(g.understood == g.nodes);
    CHECK(g.unused_initializers.empty());
    const json& layers = g.model["layers"];
    REQUIRE(layers.size() == 2);
    CHECK(layers[0]["type"] == "linear");
    CHECK(layers[0]["in_features"] == 6);
    CHECK(layers[0]["out_features"] == 5);
    CHECK(layers[1]["type"] == "multiply");
    CHECK(g.parameters == 5 * 6 + 5);
  }
}

TEST_CASE("torchvision models without a preset import whole and match PyTorch's memory",
          "[onnx][graph][twins]") {
  // mnasnet1_0 (ReduceMean: x.mean([2, 3])), shufflenet_v2_x1_0 (Slice: the channel split of
  // x.chunk(2, dim=1)) and convnext_tiny (Transpose of each Linear's weight, exported at opset
  // 17 without constant folding; layer_scale * x) as make_onnx_graphs.py exports them, and
  // torchvision's ViT, whose attention moves the batch (Transpose [1, 0, 2], Reshapes to
  // [S, B*H, hd] and [S*B, E]).
  // Parameters and MACs: torchvision's weight metadata (`num_params`, `_ops` in GMACs,
  // rounded). Memory: PyTorch 1.13.1 measured by the project's harness (scripts/
  // validate_torch.py's saved_bytes, inference_peak and training_peaks, fp32 on CPU, SGD
  // with the for-loop step, zero_grad(set_to_none=True), batch 2), printed by
  // tests/model_files/measure_onnx_twins.py.
  constexpr double kSavedTolerance = 0.015;  // issue #29: saved bytes within 1.5 %
  constexpr double kPeakTolerance = 0.05;    // issue #29: step and inference peaks within 5 %
  struct Twin {
    const char* name;
    int64_t params;
    double gmacs;
    int64_t saved, step, infer;  ///< measured bytes at batch 2
  };
  const Twin twin = GENERATE(
      // torchvision/models/mnasnet.py, MNASNet1_0_Weights.IMAGENET1K_V1: 4,383,312, _ops 0.314
      Twin{"mnasnet1_0", 4383312, 0.314, 88674944, 114241240, 30128992},
      // torchvision/models/shufflenetv2.py, ShuffleNet_V2_X1_0_Weights.IMAGENET1K_V1:
      // 2,278,604, _ops 0.145
      Twin{"shufflenet_v2_x1_0", 2278604, 0.145, 40834640, 55795080, 15200704},
      // torchvision/models/convnext.py, ConvNeXt_Tiny_Weights.IMAGENET1K_V1: 28,589,128,
      // _ops 4.456. Inference as plain eager adds its Linears' biases, in place (the harness's
      // dispatch mode made PyTorch add them out of place: 142,053,664; torch.profiler's
      // allocation events of plain eager give 139,645,216 too).
      Twin{"convnext_tiny", 28589128, 4.456, 218612672, 391503512, 139645216},
      // torchvision's VisionTransformer (vit_b_16's code, nn.MultiheadAttention run
      // sequence-first) at make_onnx_graphs.py's TINY_VIT_TV sizes, exported in training mode
      // at batch 2 (--tiny-vit-torchvision): vit_b_16 itself strips to 286 KB. PyTorch's sum
      // of p.numel() 15,106; MACs 258,384 per image by make_onnx_graphs.py's macs() (and by
      // hand: patches 73,728 + 2 blocks x 92,208 + head 240).
      Twin{"tiny_vit_torchvision", 15106, 258384e-9, 124688, 194088, 124984},
      // Inference peaks of graphs whose modules keep their input alive until they return (the
      // node names' module paths; both were 10-14 % low before): densenet121,
      // torchvision/models/densenet.py, DenseNet121_Weights.IMAGENET1K_V1: 7,978,856, _ops
      // 2.834; inception_v3 built without its auxiliary head as the preset
      // (make_onnx_graphs.py KWARGS, 299x299): Inception_V3_Weights.IMAGENET1K_V1's 27,161,264
      // count the head, PyTorch's sum of p.numel() without it is 23,834,568; _ops 5.713.
      Twin{"densenet121", 7978856, 2.834, 261057280, 298591840, 53525608},
      Twin{"inception_v3", 23834568, 5.713, 197535320, 340404064, 125281896});
  CAPTURE(twin.name);
  const dlcost::OnnxGraphImport g =
      dlcost::onnxLayerGraph(read(fixture(std::string(twin.name) + ".onnx")));
  INFO(g.error);
  for (const auto& [op, u] : g.unmodelled) INFO(op + ": " + u.reason);
  REQUIRE(g.model.is_object());
  CHECK(g.understood == g.nodes);
  CHECK(g.unused_initializers.empty());
  CHECK(g.parameters == twin.params);
  CHECK(static_cast<double>(g.macs_per_sample) / 1e9 == Approx(twin.gmacs).epsilon(0.01));

  dlcost::Workload w;
  w.batch = 2;
  w.optimizer = dlcost::Optimizer::kSgd;
  w.optimizer_impl = dlcost::OptimizerImpl::kForLoop;
  w.zero_grad = dlcost::ZeroGrad::kSetToNone;
  const dlcost::Model model = dlcost::parseModel(g.model, "");
  w.mode = dlcost::Mode::kTrain;
  const dlcost::Report train = dlcost::estimate(model, w);
  w.mode = dlcost::Mode::kInfer;
  const dlcost::Report infer = dlcost::estimate(model, w);
  const auto saved = static_cast<double>(train.memory.bytesOf(dlcost::MemoryKey::kActivations));
  CHECK(saved == Approx(static_cast<double>(twin.saved)).epsilon(kSavedTolerance));
  CHECK(static_cast<double>(train.memory.total) ==
        Approx(static_cast<double>(twin.step)).epsilon(kPeakTolerance));
  CHECK(static_cast<double>(infer.memory.total) ==
        Approx(static_cast<double>(twin.infer)).epsilon(kPeakTolerance));
}

TEST_CASE("the fuzz seed of splits, means and transposed weights imports whole",
          "[onnx][graph][split]") {
  // tiny_split.onnx (make_onnx_graphs.py --tiny-split): chunk, channel shuffle, a Linear over
  // channels-last exported without constant folding, a learned scale first, x.mean([2, 3]).
  const dlcost::OnnxGraphImport g = dlcost::onnxLayerGraph(read(fixture("tiny_split.onnx")));
  INFO(g.error);
  REQUIRE(g.model.is_object());
  CHECK(g.understood == g.nodes);
  CHECK(g.unused_initializers.empty());
  // PyTorch's sum of p.numel(): conv 3x8x3x3 + 8, fc 8x8 + 8, scale 8.
  CHECK(g.parameters == 216 + 8 + 64 + 8 + 8);
  CHECK(g.model["layers"].back()["type"] == "mean");
}

TEST_CASE("torchvision's ViT attention, run sequence-first, becomes one sample's layers",
          "[onnx][graph][attention]") {
  // tiny_vit_torchvision.onnx (make_onnx_graphs.py --tiny-vit-torchvision): width 24, 3 heads
  // of 8, 17 tokens, 2 blocks, training mode at batch 2.
  const dlcost::OnnxGraphImport g =
      dlcost::onnxLayerGraph(read(fixture("tiny_vit_torchvision.onnx")));
  INFO(g.error);
  REQUIRE(g.model.is_object());
  std::map<std::string, json> by_name;
  for (const json& l : g.model["layers"]) by_name[l["name"].get<std::string>()] = l;
  struct Expected {
    const char* name;  ///< the node's module path, dotted (torch.onnx's scope names)
    const char* type;
  };
  const Expected e = GENERATE(
      // the packed in-projection: nn.MultiheadAttention's in_proj_weight [3E, E] and bias
      Expected{"encoder.layers.encoder_layer_0.self_attention.MatMul", "linear"},
      // q, k, v: [S, B*H, hd] of [S, B, E] is the sample's [S, H, hd]
      Expected{"encoder.layers.encoder_layer_0.self_attention.Reshape", "reshape"},
      // [S, B*H, hd] -> [B*H, S, hd]: the sample's [H, S, hd]
      Expected{"encoder.layers.encoder_layer_0.self_attention.Transpose_2", "permute"},
      Expected{"encoder.layers.encoder_layer_0.self_attention.MatMul_1", "matmul"},
      Expected{"encoder.layers.encoder_layer_0.self_attention.Softmax", "softmax"},
      // [S*B, E] (`.contiguous().view(tgt_len * bsz, embed_dim)`): the sample's [S, E]
      Expected{"encoder.layers.encoder_layer_0.self_attention.Reshape_3", "reshape"},
      Expected{"encoder.layers.encoder_layer_0.self_attention.Gemm", "linear"},
      // nn.Sequential's child "mlp.0", which the exporter writes /mlp/mlp.0/
      Expected{"encoder.layers.encoder_layer_0.mlp.0.MatMul", "linear"});
  CAPTURE(e.name);
  REQUIRE(by_name.count(e.name) == 1);
  CHECK(by_name[e.name]["type"] == e.type);
  // The Transposes that only move the batch are views: no layer of their name.
  CHECK(by_name.count("encoder.layers.encoder_layer_0.self_attention.Transpose") == 0);
  CHECK(by_name.count("encoder.layers.encoder_layer_0.self_attention.Transpose_6") == 0);
}

TEST_CASE("an attention whose batch cannot be followed is refused by node",
          "[onnx][graph][attention]") {
  // tiny_vit_torchvision_b1.onnx (make_onnx_graphs.py --tiny-vit-torchvision OUT 1): exported at
  // batch 1, its Reshape to [S, B*H, hd] = [17, 3, 8] cannot say which factor is the batch.
  const dlcost::OnnxGraphImport g =
      dlcost::onnxLayerGraph(read(fixture("tiny_vit_torchvision_b1.onnx")));
  CHECK(g.model.is_null());
  REQUIRE(g.unmodelled.count("Reshape") == 1);
  const auto& u = g.unmodelled.at("Reshape");
  CHECK_THAT(u.node, Catch::Contains("self_attention/Reshape"));
  CHECK_THAT(u.reason, Catch::Contains("export with a batch of 2 or more"));
}
