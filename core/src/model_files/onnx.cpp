// ONNX ModelProto, read field by field from its protobuf wire format (see onnx.hpp). Weights
// are skipped by their length: the reader asks the ByteSource only for tags, lengths, dims,
// types and names, through a small window, so memory stays bounded whatever the file's size.
#include "dlcost/model_files/onnx.hpp"

#include <algorithm>
#include <cstring>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "model_files/tensor_summary.hpp"

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

  /// `n` (4 or 8) little-endian bytes at `pos`, within a field already checked to hold them.
  uint64_t little(int64_t pos, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(w_.at(pos + i)) << (8 * i);
    return v;
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

void readDims(Reader& r, const Field& f, OnnxTensor& t, const std::string& at) {
  if (f.wire == 0) {
    addDim(t, f.value, at);
  } else if (f.wire == 2) {
    int64_t p = f.start;
    while (p < f.start + f.length) addDim(t, r.varint(p, f.start + f.length, at), at);
  } else {
    Reader::wrongType(at);
  }
}

/// Appends the values of a repeated numeric field (packed or one per field) to `out`, at most
/// kOnnxMaxValues + 1 of them (one more than is ever used: enough to see a list is too long).
/// `fixed` is 4 (float), 8 (double) or 0 (varint); An int32 is a
/// sign-extended varint, so one cast reads both.
void readNumbers(Reader& r, const Field& f, int fixed, std::vector<double>& out,
                 const std::string& at) {
  const auto keep = [&](double v) {
    if (static_cast<int64_t>(out.size()) <= kOnnxMaxValues) out.push_back(v);
  };
  const auto fromBits = [&](uint64_t bits) {
    if (fixed == 4) {
      const auto b32 = static_cast<uint32_t>(bits);
      float v;
      std::memcpy(&v, &b32, 4);
      return static_cast<double>(v);
    }
    if (fixed == 8) {
      double v;
      std::memcpy(&v, &bits, 8);
      return v;
    }
    return static_cast<double>(static_cast<int64_t>(bits));
  };
  const int want_wire = fixed == 4 ? 5 : fixed == 8 ? 1 : 0;
  if (f.wire == want_wire) {
    keep(fromBits(f.value));
    return;
  }
  if (f.wire != 2) Reader::wrongType(at);
  const int64_t end = f.start + f.length;
  if (fixed != 0 && f.length % fixed != 0) Reader::truncated(at);
  for (int64_t p = f.start; p < end && static_cast<int64_t>(out.size()) <= kOnnxMaxValues;) {
    if (fixed == 0) {
      keep(fromBits(r.varint(p, end, at)));
    } else {
      keep(fromBits(r.little(p, fixed)));
      p += fixed;
    }
  }
}

/// A repeated int64 field (packed or one per field), at most kOnnxMaxValues + 1 values kept.
void readInts(Reader& r, const Field& f, std::vector<int64_t>& out, const std::string& at) {
  const auto keep = [&](uint64_t v) {
    if (static_cast<int64_t>(out.size()) <= kOnnxMaxValues) out.push_back(static_cast<int64_t>(v));
  };
  if (f.wire == 0) return keep(f.value);
  if (f.wire != 2) Reader::wrongType(at);
  const int64_t end = f.start + f.length;
  for (int64_t p = f.start; p < end && static_cast<int64_t>(out.size()) <= kOnnxMaxValues;)
    keep(r.varint(p, end, at));
}

/// The values of a small numeric tensor, from raw_data or from its typed repeated field.
void readValues(Reader& r, OnnxTensor& t, const Field* raw, const std::vector<double>& listed) {
  int width = 0;
  if (t.data_type == 1 || t.data_type == 6) width = 4;
  if (t.data_type == 7 || t.data_type == 11) width = 8;
  if (width == 0 || t.external || t.elements > kOnnxMaxValues) return;
  if (!raw) {
    if (static_cast<int64_t>(listed.size()) != t.elements) return;
    t.values = listed;
    t.has_values = true;
    return;
  }
  // Values that do not fill the tensor are not read (the summary never needed them; the
  // graph import then sees a constant it cannot read and says so).
  if (raw->length != t.elements * width) return;
  for (int64_t k = 0; k < t.elements; ++k) {
    const uint64_t bits = r.little(raw->start + k * width, width);
    double v = 0;
    if (t.data_type == 1) {
      float x;
      const auto b32 = static_cast<uint32_t>(bits);
      std::memcpy(&x, &b32, 4);
      v = x;
    } else if (t.data_type == 11) {
      std::memcpy(&v, &bits, 8);
    } else if (t.data_type == 6) {
      v = static_cast<int32_t>(static_cast<uint32_t>(bits));
    } else {
      v = static_cast<double>(static_cast<int64_t>(bits));
    }
    t.values.push_back(v);
  }
  t.has_values = true;
}

/// TensorProto's dims, data_type, name and data_location, and the values of a small numeric
/// tensor; a large tensor's data is skipped.
OnnxTensor readTensor(Reader& r, int64_t pos, int64_t end, const std::string& path) {
  OnnxTensor t;
  bool typed = false;
  Field f, raw;
  bool has_raw = false;
  std::vector<double> listed;
  while (r.next(pos, end, f, path)) {
    if (f.number == 1) {  // dims: repeated int64, packed or one per field
      readDims(r, f, t, path + "/dims");
    } else if (f.number == 2) {
      t.data_type =
          static_cast<int32_t>(std::min<int64_t>(varintField(f, path + "/data_type"), 1 << 30));
      typed = true;
    } else if (f.number == 8) {
      t.name = r.text(f, path + "/name");
    } else if (f.number == 14) {
      t.external = varintField(f, path + "/data_location") == 1;
    } else if (f.number == 9) {
      if (f.wire != 2) Reader::wrongType(path + "/raw_data");
      raw = f;
      has_raw = true;
    } else if (f.number == 4) {
      readNumbers(r, f, 4, listed, path + "/float_data");
    } else if (f.number == 5 || f.number == 7) {
      readNumbers(r, f, 0, listed, path + (f.number == 5 ? "/int32_data" : "/int64_data"));
    } else if (f.number == 10) {
      readNumbers(r, f, 8, listed, path + "/double_data");
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
  readValues(r, t, has_raw ? &raw : nullptr, listed);
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
      readDims(r, f, dense, path + "/dims");
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

constexpr size_t kMaxNodes = size_t{1} << 20;
constexpr size_t kMaxNodeValues = 4096;  // inputs, outputs or attributes of one node

/// AttributeProto: name, type and the value the builder may read (float, int, string, tensor,
/// floats, ints). Lists longer than kOnnxMaxValues keep their first kOnnxMaxValues + 1.
OnnxAttribute readAttribute(Reader& r, const Field& at, const std::string& path) {
  OnnxAttribute a;
  int64_t p = at.start;
  Field f;
  while (r.next(p, at.start + at.length, f, path)) {
    if (f.number == 1) {
      a.name = r.text(f, path + "/name");
    } else if (f.number == 20) {
      a.type = static_cast<int32_t>(std::min<int64_t>(varintField(f, path + "/type"), 1 << 30));
    } else if (f.number == 2) {
      if (f.wire != 5) Reader::wrongType(path + "/f");
      const auto b32 = static_cast<uint32_t>(f.value);
      float v;
      std::memcpy(&v, &b32, 4);
      a.f = v;
    } else if (f.number == 3) {
      if (f.wire != 0) Reader::wrongType(path + "/i");
      a.i = static_cast<int64_t>(f.value);
    } else if (f.number == 4) {
      if (f.wire != 2) Reader::wrongType(path + "/s");
      if (f.length <= kMaxNameBytes) a.s = r.text(f, path + "/s");
    } else if (f.number == 5) {
      if (f.wire != 2) Reader::wrongType(path + "/t");
      a.t = readTensor(r, f.start, f.start + f.length, path + "/t");
      a.has_tensor = true;
    } else if (f.number == 7) {
      readNumbers(r, f, 4, a.floats, path + "/floats");
    } else if (f.number == 8) {
      readInts(r, f, a.ints, path + "/ints");
    }
  }
  return a;
}

template <typename T>
void pushBounded(std::vector<T>& list, T value, const std::string& path, const char* what) {
  if (list.size() == kMaxNodeValues) {
    throw InputError(ErrorCode::kTooLarge, path,
                     "more than " + std::to_string(kMaxNodeValues) + " " + what);
  }
  list.push_back(std::move(value));
}

OnnxNode readNode(Reader& r, const Field& at, const std::string& path) {
  OnnxNode n;
  int64_t p = at.start;
  Field g;
  while (r.next(p, at.start + at.length, g, path)) {
    if (g.number == 1) {
      pushBounded(n.inputs, r.text(g, path + "/input"), path + "/input", "inputs");
    } else if (g.number == 2) {
      pushBounded(n.outputs, r.text(g, path + "/output"), path + "/output", "outputs");
    } else if (g.number == 3) {
      n.name = r.text(g, path + "/name");
    } else if (g.number == 4) {
      n.op_type = r.text(g, path + "/op_type");
    } else if (g.number == 7) {
      n.domain = r.text(g, path + "/domain");
    } else if (g.number == 5) {
      if (g.wire != 2) Reader::wrongType(path + "/attribute");
      const std::string ap = path + "/attribute/" + std::to_string(n.attributes.size());
      pushBounded(n.attributes, readAttribute(r, g, ap), path + "/attribute", "attributes");
    }
  }
  return n;
}

/// ValueInfoProto -> TypeProto.tensor_type (1) -> elem_type (1), shape (2) -> dim (1) ->
/// dim_value (1) or dim_param (2).
OnnxValueInfo readValueInfo(Reader& r, const Field& at, const std::string& path) {
  OnnxValueInfo v;
  int64_t p = at.start;
  Field f;
  const auto sub = [&](const Field& outer, uint64_t number, const auto& each) {
    int64_t q = outer.start;
    Field g;
    while (r.next(q, outer.start + outer.length, g, path)) {
      if (g.number == number) {
        if (g.wire != 2) Reader::wrongType(path + "/type");
        each(g);
      }
    }
  };
  while (r.next(p, at.start + at.length, f, path)) {
    if (f.number == 1) {
      v.name = r.text(f, path + "/name");
    } else if (f.number == 2) {
      if (f.wire != 2) Reader::wrongType(path + "/type");
      sub(f, 1, [&](const Field& tensor) {
        int64_t q = tensor.start;
        Field g;
        while (r.next(q, tensor.start + tensor.length, g, path)) {
          if (g.number == 1) {
            v.elem_type =
                static_cast<int32_t>(std::min<int64_t>(varintField(g, path + "/type"), 1 << 30));
          } else if (g.number == 2) {
            if (g.wire != 2) Reader::wrongType(path + "/type/shape");
            v.has_shape = true;
            sub(g, 1, [&](const Field& dim) {
              if (v.dims.size() == kMaxDims) {
                throw InputError(ErrorCode::kTooLarge, path + "/type/shape",
                                 "more than " + std::to_string(kMaxDims) + " dimensions");
              }
              int64_t d = -1, s = dim.start;
              Field h;
              while (r.next(s, dim.start + dim.length, h, path)) {
                if (h.number == 1 && h.wire == 0 && h.value <= static_cast<uint64_t>(kMaxCount))
                  d = static_cast<int64_t>(h.value);
              }
              v.dims.push_back(d);
            });
          }
        }
      });
    }
  }
  return v;
}

void readGraph(Reader& r, int64_t pos, int64_t end, OnnxModel& m) {
  Field f;
  int64_t inits = 0, sparse = 0;
  while (r.next(pos, end, f, "/graph")) {
    if (f.number == 5 || f.number == 15 || f.number == 1 || f.number == 11 || f.number == 12) {
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
    } else if (f.number == 2) {
      m.graph_name = r.text(f, "/graph/name");
    } else if (f.number == 11 || f.number == 12) {
      auto& list = f.number == 11 ? m.inputs : m.outputs;
      const std::string path = std::string(f.number == 11 ? "/graph/input/" : "/graph/output/") +
                               std::to_string(list.size());
      if (list.size() == kMaxInitializers) {
        throw InputError(ErrorCode::kTooLarge, path, "too many graph inputs or outputs");
      }
      list.push_back(readValueInfo(r, f, path));
    } else if (f.number == 1) {
      const std::string path = "/graph/node/" + std::to_string(m.nodes);
      if (m.graph_nodes.size() == kMaxNodes) {
        throw InputError(ErrorCode::kTooLarge, path,
                         "more than " + std::to_string(kMaxNodes) + " nodes");
      }
      OnnxNode node = readNode(r, f, path);
      if (!m.op_counts.count(node.op_type) && m.op_counts.size() == kMaxOperatorTypes) {
        throw InputError(ErrorCode::kTooLarge, path + "/op_type",
                         "more than " + std::to_string(kMaxOperatorTypes) + " operator types");
      }
      ++m.op_counts[node.op_type];
      ++m.nodes;
      m.graph_nodes.push_back(std::move(node));
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
