// ONNX ModelProto, read field by field from its protobuf wire format (see onnx.hpp). Weights
// are skipped by their length: the reader asks the ByteSource only for tags, lengths, dims,
// types and names, through a small window, so memory stays bounded whatever the file's size.
#include "dlcost/onnx.hpp"

#include <algorithm>
#include <cstring>

#include "dlcost/checked.hpp"
#include "dlcost/error.hpp"
#include "tensor_summary.hpp"

namespace dlcost {

void MemorySource::read(int64_t offset, int64_t length, uint8_t* out) const {
  std::memcpy(out, data_ + offset, static_cast<size_t>(length));
}

namespace {

constexpr int64_t kWindowBytes = 64 * 1024;
constexpr int64_t kMaxNameBytes = 4096;     // tensor names and op types longer are refused
constexpr size_t kMaxDims = 64;             // ONNX ranks in practice stay under 10
constexpr size_t kMaxOperatorTypes = 4096;  // distinct op_type strings
// Initializers kept (GGUF's tensor bound, kGgufMaxCount): a large LLM export has a few
// thousand; a file of millions of empty ones must not grow the summary without bound.
constexpr size_t kMaxInitializers = size_t{1} << 20;
constexpr int64_t kMaxCount = int64_t{1} << 62;

/// TensorProto.DataType: its name, bits per element, and whether it holds weights (floating
/// point and 8/16/4-bit integers) or shape constants and indices (int32, int64, bool, string).
struct OnnxType {
  int32_t id;
  const char* name;
  int bits;  // 0 for STRING: no fixed size
  bool weights;
};

constexpr OnnxType kTypes[] = {
    {1, "FLOAT", 32, true},      {2, "UINT8", 8, true},           {3, "INT8", 8, true},
    {4, "UINT16", 16, true},     {5, "INT16", 16, true},          {6, "INT32", 32, false},
    {7, "INT64", 64, false},     {8, "STRING", 0, false},         {9, "BOOL", 8, false},
    {10, "FLOAT16", 16, true},   {11, "DOUBLE", 64, true},        {12, "UINT32", 32, false},
    {13, "UINT64", 64, false},   {14, "COMPLEX64", 64, true},     {15, "COMPLEX128", 128, true},
    {16, "BFLOAT16", 16, true},  {17, "FLOAT8E4M3FN", 8, true},   {18, "FLOAT8E4M3FNUZ", 8, true},
    {19, "FLOAT8E5M2", 8, true}, {20, "FLOAT8E5M2FNUZ", 8, true}, {21, "UINT4", 4, true},
    {22, "INT4", 4, true},       {23, "FLOAT4E2M1", 4, true},
};

const OnnxType* onnxType(int32_t id) {
  for (const OnnxType& t : kTypes)
    if (t.id == id) return &t;
  return nullptr;
}

/// Bytes of the source seen through a 64 KiB window, refilled on demand.
class Window {
 public:
  explicit Window(const ByteSource& src) : src_(src), size_(src.size()) {}
  int64_t size() const { return size_; }
  uint8_t at(int64_t pos) {
    if (pos < start_ || pos >= start_ + static_cast<int64_t>(buf_.size())) fill(pos);
    return buf_[static_cast<size_t>(pos - start_)];
  }

 private:
  void fill(int64_t pos) {
    buf_.resize(static_cast<size_t>(std::min(kWindowBytes, size_ - pos)));
    src_.read(pos, static_cast<int64_t>(buf_.size()), buf_.data());
    start_ = pos;
  }
  const ByteSource& src_;
  int64_t size_;
  int64_t start_ = 0;
  std::vector<uint8_t> buf_;
};

/// One field of a message: its number, wire type and value (varint and fixed) or the range
/// of its bytes (length-delimited).
struct Field {
  uint64_t number = 0;
  int wire = 0;
  uint64_t value = 0;
  int64_t start = 0, length = 0;
};

class Reader {
 public:
  explicit Reader(const ByteSource& src) : w_(src) {}
  int64_t size() const { return w_.size(); }

  uint64_t varint(int64_t& pos, int64_t end, const std::string& path) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos >= end) truncated(path);
      const uint8_t b = w_.at(pos++);
      if (shift == 63 && (b & 0x7e)) break;  // the tenth byte may only hold bit 63
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw InputError(ErrorCode::kValue, path, "a varint longer than 10 bytes: not protobuf");
  }

  /// The next field of the message ending at `end`; false at its end.
  bool next(int64_t& pos, int64_t end, Field& f, const std::string& path) {
    if (pos >= end) return false;
    const uint64_t key = varint(pos, end, path);
    f.number = key >> 3;
    f.wire = static_cast<int>(key & 7);
    if (f.number == 0) throw InputError(ErrorCode::kValue, path, "field number 0: not protobuf");
    switch (f.wire) {
      case 0:
        f.value = varint(pos, end, path);
        return true;
      case 1:
      case 5: {
        const int64_t n = f.wire == 1 ? 8 : 4;
        if (end - pos < n) truncated(path);
        f.value = 0;
        for (int64_t i = 0; i < n; ++i) f.value |= static_cast<uint64_t>(w_.at(pos + i)) << (8 * i);
        pos += n;
        return true;
      }
      case 2: {
        const uint64_t len = varint(pos, end, path);
        if (len > static_cast<uint64_t>(end - pos)) truncated(path);
        f.start = pos;
        f.length = static_cast<int64_t>(len);
        pos += f.length;
        return true;
      }
      default:
        throw InputError(ErrorCode::kValue, path,
                         "wire type " + std::to_string(f.wire) + " (groups or invalid): not ONNX");
    }
  }

  std::string text(const Field& f, const std::string& path) {
    if (f.wire != 2) wrongType(path);
    if (f.length > kMaxNameBytes) {
      throw InputError(ErrorCode::kTooLarge, path,
                       "a name of " + std::to_string(f.length) +
                           " bytes; dlcost reads names of "
                           "at most " +
                           std::to_string(kMaxNameBytes));
    }
    std::string s(static_cast<size_t>(f.length), '\0');
    for (int64_t i = 0; i < f.length; ++i)
      s[static_cast<size_t>(i)] = static_cast<char>(w_.at(f.start + i));
    return s;
  }

  [[noreturn]] static void truncated(const std::string& path) {
    throw InputError(ErrorCode::kValue, path,
                     "the field runs past the end of its message or of the file: truncated or "
                     "not an ONNX file");
  }
  [[noreturn]] static void wrongType(const std::string& path) {
    throw InputError(ErrorCode::kType, path, "has the wrong protobuf wire type for this field");
  }

 private:
  Window w_;
};

int64_t varintField(const Field& f, const std::string& path) {
  if (f.wire != 0) Reader::wrongType(path);
  if (f.value > static_cast<uint64_t>(kMaxCount)) {
    throw InputError(ErrorCode::kTooLarge, path, "is " + std::to_string(f.value) + ", past 2^62");
  }
  return static_cast<int64_t>(f.value);
}

void addDim(OnnxTensor& t, uint64_t v, const std::string& path) {
  // int64 on the wire: a negative dimension arrives as a value past 2^63.
  if (v > static_cast<uint64_t>(kMaxCount)) {
    throw InputError(ErrorCode::kValue, path, "a dimension must be 0 or more and below 2^62");
  }
  if (t.dims.size() == kMaxDims) {
    throw InputError(ErrorCode::kTooLarge, path,
                     "more than " + std::to_string(kMaxDims) + " dimensions");
  }
  t.dims.push_back(static_cast<int64_t>(v));
}

/// TensorProto's dims, data_type, name and data_location; its data is skipped.
OnnxTensor readTensor(Reader& r, int64_t pos, int64_t end, const std::string& path) {
  OnnxTensor t;
  bool typed = false;
  Field f;
  while (r.next(pos, end, f, path)) {
    if (f.number == 1) {  // dims: repeated int64, packed or one per field
      const std::string at = path + "/dims";
      if (f.wire == 0) {
        addDim(t, f.value, at);
      } else if (f.wire == 2) {
        int64_t p = f.start;
        while (p < f.start + f.length) addDim(t, r.varint(p, f.start + f.length, at), at);
      } else {
        Reader::wrongType(at);
      }
    } else if (f.number == 2) {
      t.data_type =
          static_cast<int32_t>(std::min<int64_t>(varintField(f, path + "/data_type"), 1 << 30));
      typed = true;
    } else if (f.number == 8) {
      t.name = r.text(f, path + "/name");
    } else if (f.number == 14) {
      t.external = varintField(f, path + "/data_location") == 1;
    }
  }
  if (!typed) throw InputError(ErrorCode::kMissingField, path + "/data_type", "is missing");
  const OnnxType* type = onnxType(t.data_type);
  if (!type) {
    throw InputError(ErrorCode::kValue, path + "/data_type",
                     std::to_string(t.data_type) + " is not an ONNX tensor type dlcost knows");
  }
  try {
    t.elements = 1;
    for (int64_t d : t.dims) t.elements = checkedMul(t.elements, d);
    t.bytes = checkedMul(t.elements, type->bits) / 8 + (type->bits == 4 ? t.elements % 2 : 0);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, path + "/dims",
                     "the elements overflow 64-bit arithmetic");
  }
  if (t.elements > kMaxCount) {
    throw InputError(ErrorCode::kTooLarge, path + "/dims", "more than 2^62 elements");
  }
  return t;
}

/// SparseTensorProto: values (1) and indices (2) as stored, dims (3) of the dense tensor.
OnnxTensor readSparse(Reader& r, int64_t pos, int64_t end, const std::string& path) {
  OnnxTensor dense;
  OnnxTensor values, indices;
  bool has_values = false;
  Field f;
  while (r.next(pos, end, f, path)) {
    if (f.number == 1 || f.number == 2) {
      if (f.wire != 2) Reader::wrongType(path);
      OnnxTensor t = readTensor(r, f.start, f.start + f.length,
                                path + (f.number == 1 ? "/values" : "/indices"));
      (f.number == 1 ? values : indices) = std::move(t);
      has_values = has_values || f.number == 1;
    } else if (f.number == 3) {
      const std::string at = path + "/dims";
      if (f.wire == 0) {
        addDim(dense, f.value, at);
      } else if (f.wire == 2) {
        int64_t p = f.start;
        while (p < f.start + f.length) addDim(dense, r.varint(p, f.start + f.length, at), at);
      } else {
        Reader::wrongType(at);
      }
    }
  }
  if (!has_values) throw InputError(ErrorCode::kMissingField, path + "/values", "is missing");
  dense.name = values.name;
  dense.data_type = values.data_type;
  dense.sparse = true;
  dense.external = values.external;
  try {
    dense.elements = 1;
    for (int64_t d : dense.dims) dense.elements = checkedMul(dense.elements, d);
    dense.bytes = checkedAdd(values.bytes, indices.bytes);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, path + "/dims",
                     "the elements overflow 64-bit arithmetic");
  }
  return dense;
}

void readGraph(Reader& r, int64_t pos, int64_t end, OnnxModel& m) {
  Field f;
  int64_t inits = 0, sparse = 0, nodes = 0;
  while (r.next(pos, end, f, "/graph")) {
    if (f.number == 5 || f.number == 15 || f.number == 1) {
      if (f.wire != 2) Reader::wrongType("/graph");
    }
    if ((f.number == 5 || f.number == 15) && m.initializers.size() == kMaxInitializers) {
      throw InputError(ErrorCode::kTooLarge, "/graph/initializer",
                       "more than " + std::to_string(kMaxInitializers) + " initializers");
    }
    if (f.number == 5) {
      m.initializers.push_back(readTensor(r, f.start, f.start + f.length,
                                          "/graph/initializer/" + std::to_string(inits++)));
    } else if (f.number == 15) {
      m.initializers.push_back(readSparse(r, f.start, f.start + f.length,
                                          "/graph/sparse_initializer/" + std::to_string(sparse++)));
    } else if (f.number == 1) {
      const std::string path = "/graph/node/" + std::to_string(nodes++);
      int64_t p = f.start;
      Field g;
      std::string op;
      while (r.next(p, f.start + f.length, g, path)) {
        if (g.number == 4) op = r.text(g, path + "/op_type");
      }
      if (!m.op_counts.count(op) && m.op_counts.size() == kMaxOperatorTypes) {
        throw InputError(ErrorCode::kTooLarge, path + "/op_type",
                         "more than " + std::to_string(kMaxOperatorTypes) + " operator types");
      }
      ++m.op_counts[op];
      ++m.nodes;
    }
  }
}

}  // namespace

OnnxModel readOnnx(const ByteSource& src) {
  Reader r(src);
  OnnxModel m;
  int64_t pos = 0;
  const int64_t end = r.size();
  Field f;
  bool has_graph = false;
  std::string producer, version;
  while (r.next(pos, end, f, "")) {
    if (f.number == 1) {
      m.ir_version = varintField(f, "/ir_version");
    } else if (f.number == 2) {
      producer = r.text(f, "/producer_name");
    } else if (f.number == 3) {
      version = r.text(f, "/producer_version");
    } else if (f.number == 7) {
      if (f.wire != 2) Reader::wrongType("/graph");
      readGraph(r, f.start, f.start + f.length, m);
      has_graph = true;
    }
  }
  if (!has_graph) {
    throw InputError(ErrorCode::kMissingField, "/graph",
                     "no graph: not an ONNX model (ModelProto field 7)");
  }
  m.producer = version.empty() ? producer : producer + " " + version;
  return m;
}

nlohmann::json onnxSummaryJson(const OnnxModel& m, int64_t file_size) {
  nlohmann::json summary = {
      {"schema", "dlcost.model_file/1"},
      {"format", "onnx"},
      {"file_size", file_size >= 0 ? nlohmann::json(file_size) : nlohmann::json(nullptr)},
      {"header_bytes", nullptr}};
  std::vector<TensorEntry> weights;
  nlohmann::json other = nlohmann::json::array();
  for (const OnnxTensor& t : m.initializers) {
    const OnnxType* type = onnxType(t.data_type);
    if (type->weights) {
      weights.push_back({t.name, type->name, t.dims, t.elements, t.bytes, 0});
    } else {
      other.push_back(
          {{"name", t.name}, {"dtype", type->name}, {"shape", t.dims}, {"elements", t.elements}});
    }
  }
  addTensorSummary(summary, weights);
  // The data's place in the file is not read (it is skipped), so tensors carry no offset.
  for (nlohmann::json& t : summary["tensors"]) t.erase("offset");
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& [op, count] : m.op_counts) ops.push_back({{"op_type", op}, {"count", count}});
  int64_t external = 0;
  for (const OnnxTensor& t : m.initializers) external += t.external ? 1 : 0;
  summary["onnx"] = {{"ir_version", m.ir_version},
                     {"producer", m.producer},
                     {"nodes", m.nodes},
                     {"operators", std::move(ops)},
                     {"external_initializers", external},
                     {"other_initializers", std::move(other)}};
  return summary;
}

}  // namespace dlcost
