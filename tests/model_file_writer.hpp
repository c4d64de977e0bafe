#pragma once
// Writes small GGUF and safetensors files with known contents for the reader tests: the
// bytes are laid out here by hand from the format specifications, independently of the
// readers under test.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcost::test {

class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) {
    out_ = "GGUF";
    put<uint32_t>(version);
  }
  template <typename T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out_.append(b, sizeof(T));
  }
  void str(const std::string& s) {
    put<uint64_t>(s.size());
    out_ += s;
  }
  /// Counts come right after the version; call once, before the key/values.
  void counts(uint64_t tensors, uint64_t kvs) {
    put<uint64_t>(tensors);
    put<uint64_t>(kvs);
  }
  void kvU32(const std::string& key, uint32_t v) {
    str(key);
    put<uint32_t>(4);
    put<uint32_t>(v);
  }
  void kvU64(const std::string& key, uint64_t v) {
    str(key);
    put<uint32_t>(10);
    put<uint64_t>(v);
  }
  void kvF32(const std::string& key, float v) {
    str(key);
    put<uint32_t>(6);
    put<float>(v);
  }
  void kvStr(const std::string& key, const std::string& v) {
    str(key);
    put<uint32_t>(8);
    str(v);
  }
  void kvStrArray(const std::string& key, const std::vector<std::string>& v) {
    str(key);
    put<uint32_t>(9);
    put<uint32_t>(8);
    put<uint64_t>(v.size());
    for (const auto& s : v) str(s);
  }
  /// dims in ggml order (row length first).
  void tensor(const std::string& name, const std::vector<int64_t>& dims, uint32_t type,
              uint64_t offset) {
    str(name);
    put<uint32_t>(static_cast<uint32_t>(dims.size()));
    for (int64_t d : dims) put<int64_t>(d);
    put<uint32_t>(type);
    put<uint64_t>(offset);
  }
  /// Pads to `alignment` and appends `data_bytes` zero bytes of tensor data.
  std::string finish(size_t data_bytes, size_t alignment = 32) {
    std::string s = out_;
    s.resize((s.size() + alignment - 1) / alignment * alignment, '\0');
    s.append(data_bytes, '\0');
    return s;
  }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

/// A safetensors file: 8-byte header length, the header text, `data_bytes` zero bytes.
inline std::string safetensorsFile(const std::string& header, size_t data_bytes) {
  std::string s(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(&s[0], &n, 8);
  s += header;
  s.append(data_bytes, '\0');
  return s;
}

/// Protobuf's wire format by hand (protobuf.dev "Encoding"), for the ONNX reader tests:
/// varints, tags, length-delimited fields.
namespace protobuf {
inline std::string varint(uint64_t v) {
  std::string s;
  do {
    s += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return s;
}
inline std::string tag(int field, int wire) {
  return varint(static_cast<uint64_t>(field) << 3 | wire);
}
inline std::string bytesField(int field, const std::string& body) {
  return tag(field, 2) + varint(body.size()) + body;
}
}  // namespace protobuf

}  // namespace dlcost::test
