// safetensors header reader. The checks follow the library's own (safetensors/src/tensor.rs:
// read_metadata, Metadata::validate), so a file dlcost accepts is one safetensors loads.
#include "dlcost/model_files/safetensors.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "model_files/byte_reader.hpp"
#include "model_files/tensor_summary.hpp"

namespace dlcost {

namespace {

using nlohmann::json;

int64_t nonNegative(const json& v, const std::string& path, const std::string& what) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    throw InputError(ErrorCode::kType, path,
                     what + " must be a non-negative integer, not " + v.dump());
  }
  return v.get<int64_t>();
}

TensorEntry readTensor(const std::string& name, const json& info, int64_t& end) {
  const std::string path = childPath("/header", name);
  if (!info.is_object())
    throw InputError(ErrorCode::kType, path, "a tensor entry must be an object");
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(field)) {
      throw InputError(ErrorCode::kMissingField, childPath(path, field),
                       std::string("tensor '") + name + "' has no " + field);
    }
  }
  TensorEntry t;
  t.name = name;
  if (!info["dtype"].is_string())
    throw InputError(ErrorCode::kType, path + "/dtype", "must be a string");
  t.dtype = info["dtype"].get<std::string>();
  const int bits = safetensorsDtypeBits(t.dtype);
  if (bits == 0) {
    throw InputError(ErrorCode::kValue, path + "/dtype",
                     "unknown safetensors dtype '" + t.dtype + "'");
  }
  const json& shape = info["shape"];
  if (!shape.is_array()) throw InputError(ErrorCode::kType, path + "/shape", "must be an array");
  t.parameters = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const int64_t n = nonNegative(shape[i], childPath(path + "/shape", i), "a dimension");
    t.shape.push_back(n);
    try {
      t.parameters = checkedMul(t.parameters, n);
    } catch (const ArithmeticOverflow&) {
      throw InputError(ErrorCode::kTooLarge, path + "/shape",
                       "tensor '" + name + "': its values overflow 64 bits");
    }
  }
  const json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    throw InputError(ErrorCode::kType, path + "/data_offsets", "must be [begin, end] (bytes)");
  }
  t.offset = nonNegative(offsets[0], path + "/data_offsets/0", "begin");
  end = nonNegative(offsets[1], path + "/data_offsets/1", "end");
  int64_t bits_total = 0;
  try {
    bits_total = checkedMul(t.parameters, bits);
  } catch (const ArithmeticOverflow&) {
    throw InputError(ErrorCode::kTooLarge, path + "/shape",
                     "tensor '" + name + "': its bytes overflow 64 bits");
  }
  if (bits_total % 8 != 0) {
    throw InputError(ErrorCode::kShape, path + "/shape",
                     "tensor '" + name + "' holds " + std::to_string(t.parameters) + " values of " +
                         std::to_string(bits) + " bits: not a whole number of bytes");
  }
  t.bytes = bits_total / 8;
  if (end < t.offset || end - t.offset != t.bytes) {
    throw InputError(ErrorCode::kValue, path + "/data_offsets",
                     "tensor '" + name + "' spans bytes [" + std::to_string(t.offset) + ", " +
                         std::to_string(end) + "), but its shape and " + t.dtype + " need " +
                         std::to_string(t.bytes) + " bytes");
  }
  return t;
}

}  // namespace

int safetensorsDtypeBits(const std::string& dtype) {
  static const std::map<std::string, int> kBits = {
      {"BOOL", 8}, {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
      {"I8", 8},   {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
      {"U16", 16}, {"F16", 16},    {"BF16", 16},   {"I32", 32},    {"U32", 32},
      {"F32", 32}, {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64}};
  auto it = kBits.find(dtype);
  return it == kBits.end() ? 0 : it->second;
}

json safetensorsSummary(const uint8_t* data, size_t size, int64_t file_size) {
  ByteReader in(data, size, file_size);
  const uint64_t header_size = in.read<uint64_t>("/header_size", "the header length");
  if (header_size > static_cast<uint64_t>(kSafetensorsMaxHeaderBytes)) {
    throw InputError(ErrorCode::kTooLarge, "/header_size",
                     "a header of " + std::to_string(header_size) +
                         " bytes; safetensors accepts at most 100,000,000");
  }
  const std::string text = in.bytes(header_size, "/header", "the JSON header");
  if (text.empty() || text[0] != '{') {
    throw InputError(ErrorCode::kParse, "/header",
                     "the header must be a JSON object starting with '{'");
  }
  const json header = json::parse(text.data(), text.data() + text.size(), nullptr,
                                  /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    throw InputError(ErrorCode::kParse, "/header", "the header is not valid JSON");
  }
  json metadata = json::object();
  std::vector<std::pair<TensorEntry, int64_t>> entries;  // tensor, end offset
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object())
        throw InputError(ErrorCode::kType, "/header/__metadata__", "must be an object of strings");
      for (const auto& [key, value] : info.items()) {
        if (!value.is_string()) {
          throw InputError(ErrorCode::kType, childPath("/header/__metadata__", key),
                           "must be a string");
        }
      }
      metadata = info;
      continue;
    }
    int64_t end = 0;
    TensorEntry t = readTensor(name, info, end);
    entries.emplace_back(std::move(t), end);
  }
  // The tensors must tile the data section: sorted by begin, each starts where the last ends.
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.first.offset != b.first.offset ? a.first.offset < b.first.offset : a.second < b.second;
  });
  int64_t expected = 0;
  std::vector<TensorEntry> tensors;
  for (auto& [t, end] : entries) {
    if (t.offset != expected) {
      throw InputError(ErrorCode::kValue, childPath("/header", t.name) + "/data_offsets",
                       "tensor '" + t.name + "' begins at data byte " + std::to_string(t.offset) +
                           " but the tensors before it end at " + std::to_string(expected) +
                           " (a gap or an overlap)");
    }
    expected = end;
    tensors.push_back(std::move(t));
  }
  const int64_t data_offset = 8 + static_cast<int64_t>(header_size);
  if (file_size >= 0 && file_size - data_offset != expected) {
    throw InputError(ErrorCode::kValue, "/header",
                     "the tensors take " + std::to_string(expected) +
                         " bytes after the header but the file has " +
                         std::to_string(std::max<int64_t>(0, file_size - data_offset)) +
                         ": truncated, or not a safetensors file");
  }
  json summary = {{"schema", "dlcost.model_file/1"},
                  {"format", "safetensors"},
                  {"file_size", file_size >= 0 ? json(file_size) : json(nullptr)},
                  {"header_bytes", data_offset}};
  addTensorSummary(summary, tensors);
  summary["safetensors"] = {{"metadata", metadata}, {"data_offset", data_offset}};
  return summary;
}

json safetensorsIndexSummary(const json& index) {
  if (!index.is_object()) throw InputError(ErrorCode::kType, "", "an index must be a JSON object");
  if (!index.contains("weight_map")) {
    throw InputError(ErrorCode::kMissingField, "/weight_map",
                     "not a model.safetensors.index.json: it has no weight_map (a config.json is a "
                     "model for `dlcost estimate`)");
  }
  const json& map = index["weight_map"];
  if (!map.is_object())
    throw InputError(ErrorCode::kType, "/weight_map", "must be an object of tensor -> file");
  std::map<std::string, int64_t> shards;
  for (const auto& [tensor, file] : map.items()) {
    if (!file.is_string())
      throw InputError(ErrorCode::kType, childPath("/weight_map", tensor), "must be a file name");
    shards[file.get<std::string>()] += 1;
  }
  json metadata = index.value("metadata", json::object());
  if (!metadata.is_object()) throw InputError(ErrorCode::kType, "/metadata", "must be an object");
  json total = nullptr;
  if (metadata.contains("total_size")) {
    // transformers writes the sum of the tensors' bytes here (no headers, no padding).
    const json& t = metadata["total_size"];
    const bool whole =
        (t.is_number_unsigned() && t.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) ||
        (t.is_number_float() && t.get<double>() >= 0 && t.get<double>() < 9.2e18 &&
         t.get<double>() == static_cast<double>(static_cast<int64_t>(t.get<double>())));
    if (!whole) {
      throw InputError(ErrorCode::kType, "/metadata/total_size", "must be a whole number of bytes");
    }
    total = t.is_number_unsigned() ? t.get<int64_t>() : static_cast<int64_t>(t.get<double>());
  }
  json shard_list = json::array();
  for (const auto& [file, count] : shards)
    shard_list.push_back({{"file", file}, {"tensors", count}});
  return {{"schema", "dlcost.model_file/1"}, {"format", "safetensors_index"},
          {"tensor_count", map.size()},      {"weight_bytes", total},
          {"parameters", nullptr},           {"shards", std::move(shard_list)},
          {"metadata", std::move(metadata)}};
}

json safetensorsShardedSummary(const json& index, const std::map<std::string, json>& shards) {
  json summary = safetensorsIndexSummary(index);
  const json& map = index["weight_map"];
  std::vector<TensorEntry> tensors;
  std::map<std::string, std::string> file_of;  // tensor -> shard, from the shards
  for (const json& shard : summary["shards"]) {
    const std::string file = shard["file"];
    auto it = shards.find(file);
    if (it == shards.end()) {
      throw InputError(ErrorCode::kMissingField, childPath("/shards", file),
                       "the shard '" + file + "' is missing");
    }
    for (const json& t : it->second["tensors"]) {
      const std::string name = t["name"];
      auto named = map.find(name);
      if (named == map.end() || *named != file) {
        throw InputError(
            ErrorCode::kValue, childPath("/shards", file),
            "tensor '" + name + "' is in '" + file + "' but the weight_map " +
                (named == map.end() ? "does not list it" : "puts it in " + named->dump()));
      }
      file_of[name] = file;
      tensors.push_back({name, t["dtype"], t["shape"].get<std::vector<int64_t>>(), t["parameters"],
                         t["bytes"], t["offset"]});
    }
  }
  for (const auto& [name, file] : map.items()) {
    if (!file_of.count(name)) {
      throw InputError(ErrorCode::kValue, childPath("/weight_map", name),
                       "tensor '" + name + "' is not in " + file.dump());
    }
  }
  const json stated = summary["weight_bytes"];
  addTensorSummary(summary, tensors);
  for (json& t : summary["tensors"]) t["file"] = file_of[t["name"].get<std::string>()];
  if (!stated.is_null() && stated != summary["weight_bytes"]) {
    throw InputError(ErrorCode::kValue, "/metadata/total_size",
                     "says " + stated.dump() + " bytes but the shards' tensors take " +
                         summary["weight_bytes"].dump());
  }
  return summary;
}

}  // namespace dlcost
