// GGUF header reader. Layout (ggml docs/gguf.md, llama.cpp ggml/src/gguf.cpp): magic "GGUF",
// u32 version, u64 tensor count, u64 key/value count, the key/values, the tensor infos, then
// padding to general.alignment and the tensor data, which is never read here.
#include "dlcost/model_files/gguf.hpp"

#include <set>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/types/ggml_types.hpp"
#include "model_files/byte_reader.hpp"

namespace dlcost {

namespace {

using nlohmann::json;

// gguf_type, the value types of the key/values (gguf.md "gguf_metadata_value_type").
enum ValueType : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

const char* valueTypeName(uint32_t t) {
  static const char* const kNames[] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                       "int32",  "float32", "bool",   "string", "array",
                                       "uint64", "int64",   "float64"};
  return t <= kF64 ? kNames[t] : "unknown";
}

constexpr uint32_t kMaxDims = 4;     // GGML_MAX_DIMS
constexpr int kMaxArrayNesting = 8;  // arrays of arrays: none in practice, bounded here

class Reader {
 public:
  Reader(const uint8_t* data, size_t size, int64_t file_size) : in_(data, size, file_size) {}

  std::string string(const std::string& path, const char* what) {
    const uint64_t n = in_.read<uint64_t>(path, what);
    return in_.bytes(n, path, what);
  }

  uint64_t count(const std::string& path, const char* what) {
    const uint64_t n = in_.read<uint64_t>(path, what);
    // Array lengths (a tokenizer's vocabulary runs past kGgufMaxCount) are bounded by the
    // header size: every element takes at least one byte of it.
    if (n > static_cast<uint64_t>(kMaxModelHeaderBytes)) {
      throw InputError(ErrorCode::kTooLarge, path,
                       std::string(what) + " of " + std::to_string(n) + " is beyond any real file");
    }
    return n;
  }

  json value(uint32_t type, const std::string& path, int depth) {
    switch (type) {
      case kU8:
        return in_.read<uint8_t>(path, "a uint8 value");
      case kI8:
        return in_.read<int8_t>(path, "an int8 value");
      case kU16:
        return in_.read<uint16_t>(path, "a uint16 value");
      case kI16:
        return in_.read<int16_t>(path, "an int16 value");
      case kU32:
        return in_.read<uint32_t>(path, "a uint32 value");
      case kI32:
        return in_.read<int32_t>(path, "an int32 value");
      case kF32:
        return in_.read<float>(path, "a float32 value");
      case kU64:
        return in_.read<uint64_t>(path, "a uint64 value");
      case kI64:
        return in_.read<int64_t>(path, "an int64 value");
      case kF64:
        return in_.read<double>(path, "a float64 value");
      case kBool: {
        const uint8_t b = in_.read<uint8_t>(path, "a bool value");
        if (b > 1)
          throw InputError(ErrorCode::kValue, path,
                           "a bool must be 0 or 1, not " + std::to_string(b));
        return b == 1;
      }
      case kString:
        return string(path, "a string value");
      case kArray:
        return array(path, depth);
    }
    throw InputError(ErrorCode::kValue, path,
                     "unknown GGUF value type " + std::to_string(type) + " (0 to 12 are defined)");
  }

  json array(const std::string& path, int depth) {
    if (depth >= kMaxArrayNesting) {
      throw InputError(ErrorCode::kTooLarge, path, "arrays nested deeper than 8 levels");
    }
    const uint32_t element_type = in_.read<uint32_t>(path, "an array's element type");
    if (element_type > kF64) value(element_type, path, depth);  // reports the unknown type
    const uint64_t length = count(path, "an array length");
    const bool keep = length <= static_cast<uint64_t>(kGgufArrayValuesKept);
    json values = json::array();
    for (uint64_t i = 0; i < length; ++i) {
      json v = value(element_type, childPath(path, static_cast<size_t>(i)), depth + 1);
      if (keep) values.push_back(std::move(v));
    }
    if (keep) return values;
    return json{{"array_of", valueTypeName(element_type)}, {"length", length}};
  }

  ByteReader in_;
};

void readKeyValues(Reader& r, uint64_t count, GgufHeader& h) {
  std::set<std::string> seen;
  for (uint64_t i = 0; i < count; ++i) {
    const std::string at = childPath("/metadata", static_cast<size_t>(i));
    const std::string key = r.string(at, "a metadata key");
    const std::string path = childPath("/metadata", key);
    if (!seen.insert(key).second) {
      throw InputError(ErrorCode::kValue, path, "the key '" + key + "' appears twice");
    }
    const uint32_t type = r.in_.read<uint32_t>(path, "a value type");
    h.metadata[key] = r.value(type, path, 0);
    h.keys.push_back(key);
  }
  if (h.metadata.contains("general.alignment")) {
    const json& a = h.metadata["general.alignment"];
    const bool ok = a.is_number_unsigned() && a.get<uint64_t>() > 0 &&
                    a.get<uint64_t>() <= (uint64_t{1} << 30) &&
                    (a.get<uint64_t>() & (a.get<uint64_t>() - 1)) == 0;
    if (!ok) {
      throw InputError(ErrorCode::kValue, "/metadata/general.alignment",
                       "must be a power of two (bytes), not " + a.dump());
    }
    h.alignment = a.get<int64_t>();
  }
}

GgufTensor readTensorInfo(Reader& r, size_t index, std::set<std::string>& seen) {
  const std::string at = childPath("/tensors", index);
  GgufTensor t;
  t.name = r.string(at, "a tensor name");
  const std::string label = "tensor '" + t.name + "'";
  if (!seen.insert(t.name).second) {
    throw InputError(ErrorCode::kValue, at + "/name", label + " appears twice");
  }
  const uint32_t dims = r.in_.read<uint32_t>(at + "/n_dims", "a tensor's dimension count");
  if (dims > kMaxDims) {
    throw InputError(ErrorCode::kValue, at + "/n_dims",
                     label + " has " + std::to_string(dims) + " dimensions; ggml allows at most 4");
  }
  t.parameters = 1;
  for (uint32_t d = 0; d < dims; ++d) {
    const int64_t n = r.in_.read<int64_t>(childPath(at + "/shape", d), "a tensor dimension");
    if (n < 0) {
      throw InputError(ErrorCode::kValue, childPath(at + "/shape", d),
                       label + " has a negative dimension " + std::to_string(n));
    }
    t.shape.push_back(n);
    try {
      t.parameters = checkedMul(t.parameters, n);
    } catch (const ArithmeticOverflow&) {
      throw InputError(ErrorCode::kTooLarge, at + "/shape",
                       label + ": its values overflow 64 bits");
    }
  }
  t.type = r.in_.read<uint32_t>(at + "/type", "a tensor type");
  const GgmlType* type = ggmlType(t.type);
  if (!type) {
    throw InputError(ErrorCode::kValue, at + "/type",
                     label + " has ggml type " + std::to_string(t.type) +
                         ", which dlcost does not know (removed from ggml, or newer than dlcost)");
  }
  const int64_t row = t.shape.empty() ? 1 : t.shape[0];
  if (row % type->block_size != 0) {
    throw InputError(ErrorCode::kShape, at + "/shape/0",
                     label + " has rows of " + std::to_string(row) + " values, not a multiple of " +
                         type->name + "'s block of " + std::to_string(type->block_size));
  }
  try {
    t.bytes = ggmlBytes(*type, t.parameters);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, at + "/shape", label + ": its bytes overflow 64 bits");
  }
  const uint64_t offset = r.in_.read<uint64_t>(at + "/offset", "a tensor offset");
  if (offset > static_cast<uint64_t>(INT64_MAX)) {
    throw InputError(ErrorCode::kTooLarge, at + "/offset",
                     label + "'s offset is beyond 2^63 bytes");
  }
  t.offset = static_cast<int64_t>(offset);
  return t;
}

int64_t padTo(int64_t n, int64_t alignment) {
  return checkedAdd(n, alignment - 1) / alignment * alignment;
}

/// Each tensor must start where the ones before it end, padded to the alignment, as
/// llama.cpp's gguf_init checks; that makes the data size exact.
void checkOffsets(GgufHeader& h) {
  int64_t expected = 0;
  for (size_t i = 0; i < h.tensors.size(); ++i) {
    const GgufTensor& t = h.tensors[i];
    if (t.offset != expected) {
      throw InputError(ErrorCode::kValue, childPath("/tensors", i) + "/offset",
                       "tensor '" + t.name + "' starts at data byte " + std::to_string(t.offset) +
                           ", but the tensors before it end at " + std::to_string(expected) +
                           " (alignment " + std::to_string(h.alignment) + ")");
    }
    h.data_bytes = checkedAdd(t.offset, t.bytes);
    expected = padTo(h.data_bytes, h.alignment);
  }
}

}  // namespace

GgufHeader readGgufHeader(const uint8_t* data, size_t size, int64_t file_size) {
  Reader r(data, size, file_size);
  GgufHeader h;
  const std::string magic = r.in_.bytes(4, "/magic", "the magic number");
  if (magic != "GGUF")
    throw InputError(ErrorCode::kValue, "/magic",
                     "not a GGUF file (it does not start with 'GGUF')");
  h.version = r.in_.read<uint32_t>("/version", "the version");
  if (h.version == 1) {
    throw InputError(ErrorCode::kValue, "/version",
                     "GGUF version 1 (2023, 32-bit counts) is not read; convert the file with a "
                     "current llama.cpp");
  }
  if ((h.version & 0xFFFF) == 0 && (h.version >> 24) >= 2 && (h.version >> 24) <= 3) {
    throw InputError(ErrorCode::kValue, "/version",
                     "a big-endian GGUF file; dlcost reads little-endian ones");
  }
  if (h.version != 2 && h.version != 3) {
    throw InputError(ErrorCode::kValue, "/version",
                     "GGUF version " + std::to_string(h.version) + " is not known (2 and 3 are)");
  }
  const uint64_t tensor_count = r.count("/tensor_count", "a tensor count");
  const uint64_t kv_count = r.count("/metadata_count", "a metadata count");
  if (tensor_count > static_cast<uint64_t>(kGgufMaxCount) ||
      kv_count > static_cast<uint64_t>(kGgufMaxCount)) {
    throw InputError(
        ErrorCode::kTooLarge,
        tensor_count > static_cast<uint64_t>(kGgufMaxCount) ? "/tensor_count" : "/metadata_count",
        "a header with " + std::to_string(std::max(tensor_count, kv_count)) +
            " entries: dlcost reads at most 2^20");
  }
  readKeyValues(r, kv_count, h);
  std::set<std::string> names;
  for (uint64_t i = 0; i < tensor_count; ++i) {
    h.tensors.push_back(readTensorInfo(r, static_cast<size_t>(i), names));
  }
  h.header_bytes = static_cast<int64_t>(r.in_.offset());
  h.data_offset = padTo(h.header_bytes, h.alignment);
  int64_t end = 0;
  try {
    checkOffsets(h);
    end = checkedAdd(h.data_offset, h.data_bytes);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, "/tensors", "the tensors' sizes overflow 64 bits");
  }
  if (file_size >= 0 && h.data_bytes > 0 && end > file_size) {
    throw InputError(ErrorCode::kValue, "/tensors",
                     "the tensors end at byte " + std::to_string(end) + " but the file has " +
                         std::to_string(file_size) + " bytes: an incomplete download?");
  }
  return h;
}

}  // namespace dlcost
