#pragma once
// ONNX models (.onnx, a protobuf ModelProto) read for their weights: every initializer's name,
// element type and shape, and the graph's operators by type. The weights' data is skipped by
// its length and never read, so a 500 MB file is summarised from a few kilobytes of reads.
//
// The reader walks the protobuf wire format itself (varints and length-delimited fields; see
// docs/model-files.md for why not a generated decoder): ModelProto.graph (7) ->
// GraphProto.initializer (5) / sparse_initializer (15) / node (1) -> TensorProto.dims (1),
// data_type (2), name (8), data_location (14). Subgraphs inside node attributes (If, Loop) are
// not entered; their initializers are not counted.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcost {

/// Where the reader gets bytes: a file on disk (CLI), an in-memory copy (page, fuzzing).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual int64_t size() const = 0;
  /// Copies `length` bytes at `offset` (both within size()) into `out`.
  virtual void read(int64_t offset, int64_t length, uint8_t* out) const = 0;
};

/// A ByteSource over bytes held in memory.
class MemorySource : public ByteSource {
 public:
  MemorySource(const uint8_t* data, int64_t size) : data_(data), size_(size) {}
  int64_t size() const override { return size_; }
  void read(int64_t offset, int64_t length, uint8_t* out) const override;

 private:
  const uint8_t* data_;
  int64_t size_;
};

/// Elements up to which a tensor's values are read (shape and axis constants, clip bounds).
constexpr int64_t kOnnxMaxValues = 64;

struct OnnxTensor {
  std::string name;
  int32_t data_type = 0;  ///< TensorProto.DataType: 1 FLOAT, 10 FLOAT16, 16 BFLOAT16, ...
  std::vector<int64_t> dims;
  int64_t elements = 0;   ///< product of dims (1 for a scalar)
  int64_t bytes = 0;      ///< elements x the type's size (4-bit types: two per byte)
  bool external = false;  ///< data_location EXTERNAL: the values live in another file
  bool sparse = false;    ///< from sparse_initializer (dims of the dense tensor)
  /// The values of a FLOAT, DOUBLE, INT32 or INT64 tensor of at most kOnnxMaxValues elements
  /// stored in the file (empty otherwise; has_values says which).
  std::vector<double> values;
  bool has_values = false;
};

/// AttributeProto: the fields the graph builder reads (one of them set, per `type`).
struct OnnxAttribute {
  std::string name;
  int32_t type = 0;  ///< AttributeType: 1 FLOAT, 2 INT, 3 STRING, 4 TENSOR, 6 FLOATS, 7 INTS
  double f = 0;
  int64_t i = 0;  ///< int64 on the wire, kept as written (negative axes are common)
  std::string s;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  bool has_tensor = false;
  OnnxTensor t;  ///< a Constant node's value
};

/// NodeProto. Empty input names mean an omitted optional input.
struct OnnxNode {
  std::string name;
  std::string op_type;
  std::string domain;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<OnnxAttribute> attributes;
};

/// ValueInfoProto of a graph input or output: a tensor's element type and shape, where each
/// dimension is a number or a name (dim_param, e.g. a symbolic batch: stored as -1).
struct OnnxValueInfo {
  std::string name;
  int32_t elem_type = 0;
  bool has_shape = false;
  std::vector<int64_t> dims;  ///< -1 for a symbolic or unknown dimension
};

struct OnnxModel {
  int64_t ir_version = 0;
  std::string producer;  ///< producer_name and producer_version, e.g. "pytorch 1.13.1"
  std::vector<OnnxTensor> initializers;
  std::map<std::string, int64_t> op_counts;  ///< NodeProto.op_type -> nodes
  int64_t nodes = 0;
  std::string graph_name;
  std::vector<OnnxNode> graph_nodes;  ///< in the file's order (a topological order)
  std::vector<OnnxValueInfo> inputs;  ///< graph inputs (initializers may be listed too)
  std::vector<OnnxValueInfo> outputs;
};

/// Reads `src` as an ONNX ModelProto. Throws InputError (path names the protobuf field, e.g.
/// "/graph/initializer/3/dims") on anything malformed: a truncated field, a varint past 10
/// bytes, a negative dimension, sizes past 2^62, an unknown data_type.
OnnxModel readOnnx(const ByteSource& src);

/// The model-file summary (model_file.hpp's "dlcost.model_file/1", format "onnx"):
/// parameters and weight_bytes over the initializers whose type holds weights (floating point
/// and 8/16-bit or 4-bit integers; int32/int64/bool/string initializers are shape constants and
/// indices, listed under "onnx.other_initializers"), by_dtype, tensors, and
/// "onnx": {"ir_version", "producer", "nodes", "operators": [{"op_type", "count"}]}. The header
/// only: onnxFileSummaryJson (onnx_graph.hpp) adds the graph import.
nlohmann::json onnxSummaryJson(const OnnxModel& model, int64_t file_size);

}  // namespace dlcost
