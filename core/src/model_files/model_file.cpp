// Which format a model file is, from its first bytes, and the one entry point the front ends
// call with them.
#include "dlcost/model_files/model_file.hpp"

#include <algorithm>
#include <map>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/model_files/gguf.hpp"
#include "dlcost/model_files/onnx.hpp"
#include "dlcost/model_files/onnx_graph.hpp"
#include "dlcost/model_files/safetensors.hpp"
#include "dlcost/report/report_json.hpp"

namespace dlcost {

namespace {

using nlohmann::json;

json indexSummary(const std::string& prefix, int64_t file_size) {
  // An index is small JSON text: it is read whole.
  if (file_size > kMaxModelHeaderBytes) {
    throw InputError(ErrorCode::kTooLarge, "", "a JSON index of more than 128 MiB");
  }
  if (file_size > static_cast<int64_t>(prefix.size())) throw HeaderIncomplete(file_size);
  const json doc = json::parse(prefix.data(), prefix.data() + prefix.size(), nullptr,
                               /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    throw InputError(ErrorCode::kParse, "", "neither GGUF, safetensors nor a JSON index");
  }
  json summary = safetensorsIndexSummary(doc);
  summary["file_size"] = static_cast<int64_t>(prefix.size());
  return summary;
}

}  // namespace

ModelFileKind detectModelFile(const std::string& prefix) {
  const size_t n = prefix.size();
  auto byte = [&](size_t i) { return static_cast<uint8_t>(prefix[i]); };
  if (prefix.rfind("GGUF", 0) == 0) return ModelFileKind::kGguf;
  // JSON text: '{' or '[' after white space, and no NUL byte (a safetensors header length
  // has some: its high bytes).
  bool json_start = false, nul = false;
  for (size_t i = 0; i < n; ++i) {
    const char c = prefix[i];
    if (c == '{' || c == '[') json_start = true;
    if (c == '{' || c == '[' || (c != ' ' && c != '\t' && c != '\n' && c != '\r')) break;
  }
  for (size_t i = 0; i < std::min<size_t>(n, 8); ++i) nul = nul || byte(i) == 0;
  if (n >= 9 && prefix[8] == '{' && (nul || !json_start)) return ModelFileKind::kSafetensors;
  if (json_start && !nul) return ModelFileKind::kJson;
  // ModelProto field 1 (ir_version, a varint: 3 to 11 in practice), then another field's tag.
  if (n >= 2 && byte(0) == 0x08 && byte(1) < 0x80) return ModelFileKind::kOnnx;
  return ModelFileKind::kUnknown;
}

const char* modelFileKindName(ModelFileKind kind) {
  switch (kind) {
    case ModelFileKind::kGguf:
      return "gguf";
    case ModelFileKind::kSafetensors:
      return "safetensors";
    case ModelFileKind::kJson:
      return "json";
    case ModelFileKind::kOnnx:
      return "onnx";
    case ModelFileKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string unknownModelFileMessage(const std::string& prefix) {
  static const char* kHex = "0123456789ABCDEF";
  std::string hex, text;
  const size_t n = std::min<size_t>(prefix.size(), 8);
  for (size_t i = 0; i < n; ++i) {
    const auto b = static_cast<uint8_t>(prefix[i]);
    if (!hex.empty()) hex += ' ';
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
    text += b >= 0x20 && b < 0x7f ? static_cast<char>(b) : '.';
  }
  const std::string first =
      n == 0 ? "the file is empty" : "the file starts with " + hex + " ('" + text + "')";
  return first +
         ": not a kind dlcost reads: GGUF (\"GGUF\"), safetensors (an 8-byte header length, "
         "then '{'), JSON ('{': a model document, a config.json or a safetensors index) or "
         "ONNX (a ModelProto, byte 08 first)";
}

HeaderIncomplete::HeaderIncomplete(int64_t wanted_bytes)
    : std::runtime_error("read the first " + std::to_string(wanted_bytes) + " bytes"),
      wanted_(wanted_bytes) {}

json inspectModelFile(const std::string& prefix, int64_t file_size) {
  const auto* data = reinterpret_cast<const uint8_t*>(prefix.data());
  const int64_t have = static_cast<int64_t>(prefix.size());
  if (file_size >= 0 && file_size < have) file_size = have;
  // Too little to tell the format: ask for the first read (a front end may start with none).
  if (have < 9 && file_size > have) {
    throw HeaderIncomplete(std::min(file_size, std::max<int64_t>(kModelHeaderFirstRead, 9)));
  }
  switch (detectModelFile(prefix)) {
    case ModelFileKind::kGguf:
      return ggufSummaryJson(readGgufHeader(data, prefix.size(), file_size), file_size);
    case ModelFileKind::kSafetensors:
      return safetensorsSummary(data, prefix.size(), file_size);
    case ModelFileKind::kJson:
      return indexSummary(prefix, file_size < 0 ? have : file_size);
    case ModelFileKind::kOnnx: {
      // ONNX has no magic: a ModelProto starts with its ir_version field (tag 0x08). Its
      // weights lie between the fields the reader needs, so from a prefix it asks for the
      // whole file (the CLI reads ONNX through a ByteSource instead and skips them).
      if (file_size > kMaxModelHeaderBytes) {
        throw InputError(ErrorCode::kTooLarge, "",
                         "an ONNX file of more than 128 MiB: the page reads ONNX files whole; "
                         "`dlcost inspect FILE.onnx` skips the weights");
      }
      if (file_size > have) throw HeaderIncomplete(file_size);
      const MemorySource src(data, have);
      return onnxFileSummaryJson(readOnnx(src), have);
    }
    case ModelFileKind::kUnknown:
      break;
  }
  throw InputError(ErrorCode::kValue, "", unknownModelFileMessage(prefix));
}

std::string inspectModelFileText(const std::string& prefix, double file_size) {
  try {
    const int64_t size =
        file_size >= 0 && file_size < 9.2e18 ? static_cast<int64_t>(file_size) : -1;
    return dumpJson(inspectModelFile(prefix, size));
  } catch (const HeaderIncomplete& e) {
    return dumpJson(json{{"need_bytes", e.wanted_bytes()}});
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const ArithmeticOverflow&) {
    return dumpJson(errorToJson({ErrorCode::kTooLarge, "", "sizes overflow 64-bit arithmetic"}));
  }
}

std::string shardedSummaryText(const std::string& index_text, const std::string& shards_json_text) {
  try {
    const json index = json::parse(index_text.data(), index_text.data() + index_text.size(),
                                   nullptr, /*allow_exceptions=*/false);
    const json shards =
        json::parse(shards_json_text.data(), shards_json_text.data() + shards_json_text.size(),
                    nullptr, /*allow_exceptions=*/false);
    if (index.is_discarded()) throw InputError(ErrorCode::kParse, "", "the index is not JSON");
    if (!shards.is_object()) {
      throw InputError(ErrorCode::kType, "/shards", "must be an object of file -> summary");
    }
    std::map<std::string, json> by_file;
    for (const auto& [file, summary] : shards.items()) {
      // Only what safetensorsSummary itself produced is combined: re-checked, not trusted.
      const bool ok = summary.is_object() && summary.value("format", "") == "safetensors" &&
                      summary.contains("tensors") && summary["tensors"].is_array();
      if (!ok)
        throw InputError(ErrorCode::kType, childPath("/shards", file), "not a safetensors summary");
      for (const json& t : summary["tensors"]) {
        const bool good = t.is_object() && t.contains("name") && t["name"].is_string() &&
                          t.contains("dtype") && t["dtype"].is_string() && t.contains("shape") &&
                          t["shape"].is_array() && t.contains("parameters") &&
                          t["parameters"].is_number_integer() && t.contains("bytes") &&
                          t["bytes"].is_number_integer() && t.contains("offset") &&
                          t["offset"].is_number_integer();
        if (!good)
          throw InputError(ErrorCode::kType, childPath("/shards", file),
                           "not a safetensors summary");
        for (const json& d : t["shape"]) {
          if (!d.is_number_integer())
            throw InputError(ErrorCode::kType, childPath("/shards", file),
                             "not a safetensors summary");
        }
      }
      by_file[file] = summary;
    }
    return dumpJson(safetensorsShardedSummary(index, by_file));
  } catch (const InputError& e) {
    return dumpJson(errorToJson(e.error()));
  } catch (const ArithmeticOverflow&) {
    return dumpJson(errorToJson({ErrorCode::kTooLarge, "", "sizes overflow 64-bit arithmetic"}));
  }
}

}  // namespace dlcost
