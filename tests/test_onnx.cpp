// The ONNX reader: a tiny CNN exported by torch.onnx (tests/model_files/make_onnx_files.py
// --tiny), and hand-made protobuf bytes for the errors.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>

#include "dlcost/base/error.hpp"
#include "dlcost/model_files/model_file.hpp"
#include "dlcost/model_files/onnx.hpp"
#include "dlcost/model_files/onnx_graph.hpp"
#include "model_file_writer.hpp"

using nlohmann::json;

namespace {

std::string tinyCnn() {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/onnx/tiny_cnn.onnx", std::ios::binary);
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

dlcost::Error readError(const std::string& bytes) {
  try {
    (void)read(bytes);
  } catch (const dlcost::InputError& e) {
    return e.error();
  }
  FAIL("no error");
  return {};
}

using dlcost::test::protobuf::bytesField;
using dlcost::test::protobuf::tag;
using dlcost::test::protobuf::varint;
std::string tensor(const std::vector<uint64_t>& dims, int type, const std::string& name,
                   const std::string& raw) {
  std::string packed;
  for (uint64_t d : dims) packed += varint(d);
  return bytesField(1, packed) + tag(2, 0) + varint(type) + bytesField(8, name) +
         bytesField(9, raw);
}
std::string model(const std::string& graph) {
  return tag(1, 0) + varint(8) + bytesField(2, "test") + bytesField(7, graph);
}

}  // namespace

TEST_CASE("a torch.onnx export is summarised: initializers, bytes and operators", "[onnx]") {
  const std::string file = tinyCnn();
  const dlcost::OnnxModel m = read(file);
  CHECK(m.ir_version == 7);  // torch 1.13's exporter writes IR version 7 at opset 14
  CHECK(m.producer == "pytorch 1.13.0");
  CHECK(m.op_counts ==
        std::map<std::string, int64_t>{
            {"BatchNormalization", 1}, {"Conv", 1}, {"Flatten", 1}, {"Gemm", 1}, {"Relu", 1}});
  const json s = dlcost::onnxFileSummaryJson(m, static_cast<int64_t>(file.size()));
  // torch: Conv2d(3, 4, 3) 108 + 4, BatchNorm2d(4) weight and bias 8, Linear(144, 5) 720 + 5:
  // sum(p.numel() for p in model.parameters()) = 845; the BatchNormalization node also takes
  // running_mean and running_var as initializers (8 more floats), as ONNX has no buffers.
  CHECK(s["parameters"] == 845 + 8);
  CHECK(s["weight_bytes"] == (845 + 8) * 4);
  CHECK(s["by_dtype"] == json::array({{{"dtype", "FLOAT"},
                                       {"tensors", 8},
                                       {"parameters", 853},
                                       {"bytes", 3412},
                                       {"bits_per_weight", 32.0}}}));
  CHECK(s["weights_file"] == json{{"format", "onnx"}, {"weight_bytes", 3412}, {"parameters", 853}});
  CHECK(s["tensors"][0] == json{{"name", "0.weight"},
                                {"dtype", "FLOAT"},
                                {"shape", {4, 3, 3, 3}},
                                {"parameters", 108},
                                {"bytes", 432}});
  SECTION("the page's entry point reads the same, asking for the whole file first") {
    try {
      (void)dlcost::inspectModelFile(file.substr(0, 100), static_cast<int64_t>(file.size()));
      FAIL("no HeaderIncomplete");
    } catch (const dlcost::HeaderIncomplete& e) {
      CHECK(e.wanted_bytes() == static_cast<int64_t>(file.size()));
    }
    CHECK(dlcost::inspectModelFile(file, static_cast<int64_t>(file.size())) == s);
  }
  SECTION("over 128 MiB the page is told to use the CLI") {
    try {
      (void)dlcost::inspectModelFile(file.substr(0, 100), int64_t{1} << 40);
      FAIL("accepted");
    } catch (const dlcost::InputError& e) {
      CHECK_THAT(e.error().message, Catch::Contains("dlcost inspect"));
    }
  }
}

TEST_CASE("the weights' bytes are skipped, not read", "[onnx]") {
  // A source that fails on any read inside the raw data of the one initializer.
  const std::string raw(1 << 20, '\x7f');
  const std::string file = model(bytesField(5, tensor({512, 512}, 1, "w", raw)));
  const int64_t data_at = static_cast<int64_t>(file.find(raw));
  struct Guarded : dlcost::ByteSource {
    const std::string& f;
    int64_t lo, hi;
    mutable int64_t read_bytes = 0;
    Guarded(const std::string& file_, int64_t l, int64_t h) : f(file_), lo(l), hi(h) {}
    int64_t size() const override { return static_cast<int64_t>(f.size()); }
    void read(int64_t offset, int64_t length, uint8_t* out) const override {
      read_bytes += length;
      // Window reads may overlap the data's start; none may start inside it.
      if (offset > lo && offset < hi) FAIL("read inside the weights at " << offset);
      std::memcpy(out, f.data() + offset, static_cast<size_t>(length));
    }
  } src(file, data_at, data_at + static_cast<int64_t>(raw.size()));
  const dlcost::OnnxModel m = dlcost::readOnnx(src);
  REQUIRE(m.initializers.size() == 1);
  CHECK(m.initializers[0].elements == 512 * 512);
  CHECK(m.initializers[0].bytes == 512 * 512 * 4);
  CHECK(src.read_bytes < 200 * 1024);  // a few 64 KiB windows, not the megabyte of data
}

TEST_CASE("element types: bytes per element, and which initializers are weights", "[onnx]") {
  const std::string file =
      model(bytesField(5, tensor({3, 5}, 10, "half", "")) +  // FLOAT16: 2 bytes each
            bytesField(5, tensor({7}, 22, "int4", "")) +     // INT4: two per byte, rounded up
            bytesField(5, tensor({2}, 7, "shape", "")) +     // INT64: a shape constant
            bytesField(5, tensor({}, 1, "scalar", "")));     // FLOAT scalar: one element
  const json s = dlcost::onnxFileSummaryJson(read(file), -1);
  CHECK(s["parameters"] == 15 + 7 + 1);
  CHECK(s["weight_bytes"] == 30 + 4 + 4);
  CHECK(s["onnx"]["other_initializers"] ==
        json::array({{{"name", "shape"}, {"dtype", "INT64"}, {"shape", {2}}, {"elements", 2}}}));
}

TEST_CASE("bad ONNX bytes get a clear error, never a huge allocation", "[onnx][errors]") {
  SECTION("no graph") {
    const dlcost::Error e = readError(tag(1, 0) + varint(8));
    CHECK(e.path == "/graph");
    CHECK(e.code == dlcost::ErrorCode::kMissingField);
  }
  SECTION("truncated inside a tensor") {
    const std::string file = model(bytesField(5, tensor({4, 4}, 1, "w", std::string(64, 'x'))));
    // The graph's length now runs past the file: caught at the model's field 7.
    const dlcost::Error e = readError(file.substr(0, file.size() - 10));
    CHECK(e.code == dlcost::ErrorCode::kValue);
    CHECK_THAT(e.message, Catch::Contains("truncated"));
  }
  SECTION("a length claiming 2^60 bytes") {
    const dlcost::Error e = readError(tag(7, 2) + varint(uint64_t{1} << 60) + "xx");
    CHECK_THAT(e.message, Catch::Contains("past the end"));
  }
  SECTION("a varint of eleven bytes") {
    const dlcost::Error e = readError(tag(1, 0) + std::string(10, '\xff') + "\x01");
    CHECK_THAT(e.message, Catch::Contains("varint longer than 10 bytes"));
  }
  SECTION("a negative dimension") {
    const std::string neg = tag(1, 0) + varint(static_cast<uint64_t>(-3)) + tag(2, 0) + varint(1);
    const dlcost::Error e = readError(model(bytesField(5, neg)));
    CHECK(e.path == "/graph/initializer/0/dims");
  }
  SECTION("elements past 2^63") {
    const dlcost::Error e = readError(
        model(bytesField(5, tensor({uint64_t{1} << 40, uint64_t{1} << 40}, 1, "big", ""))));
    CHECK(e.path == "/graph/initializer/0/dims");
    CHECK(e.code == dlcost::ErrorCode::kTooLarge);
  }
  SECTION("an unknown data_type") {
    const dlcost::Error e = readError(model(bytesField(5, tensor({2}, 99, "x", ""))));
    CHECK(e.path == "/graph/initializer/0/data_type");
  }
  SECTION("a group wire type") {
    const dlcost::Error e = readError(tag(1, 3));
    CHECK_THAT(e.message, Catch::Contains("wire type 3"));
  }
  SECTION("a name of a megabyte") {
    const dlcost::Error e =
        readError(model(bytesField(5, tensor({1}, 1, std::string(1 << 20, 'n'), ""))));
    CHECK(e.path == "/graph/initializer/0/name");
    CHECK(e.code == dlcost::ErrorCode::kTooLarge);
  }
}
