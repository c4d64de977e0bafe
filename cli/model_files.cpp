#include "model_files.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "dlcost/base/error.hpp"
#include "dlcost/base/units.hpp"
#include "dlcost/model_files/model_file.hpp"
#include "dlcost/model_files/onnx.hpp"
#include "dlcost/model_files/onnx_graph.hpp"
#include "dlcost/model_files/safetensors.hpp"
#include "dlcost/report/report_json.hpp"
#include "options.hpp"
#include "table.hpp"

namespace dlcost::cli {

namespace fs = std::filesystem;
using nlohmann::json;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(ErrorCode::kValue, "", "cannot read file '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

/// An index whose shards lie next to it becomes the exact summary of all of them; otherwise
/// the index alone, with the shards that were not found.
json withShards(const std::string& path, json summary) {
  const fs::path dir = fs::path(path).parent_path();
  std::map<std::string, json> shards;
  json missing = json::array();
  for (const json& shard : summary["shards"]) {
    const std::string file = shard["file"];
    std::error_code ec;
    const fs::path p = dir / file;
    if (file.find('/') == std::string::npos && fs::is_regular_file(p, ec)) {
      shards[file] = inspectFile(p.string());
    } else {
      missing.push_back(file);
    }
  }
  if (!missing.empty()) {
    summary["shards_not_found"] = missing;
    return summary;
  }
  const json index = json::parse(readFile(path), nullptr, false);
  json all = safetensorsShardedSummary(index, shards);
  all["file_size"] = summary["file_size"];
  return all;
}

}  // namespace

namespace {

/// The file on disk, read where the ONNX reader asks (it skips the weights' bytes).
class FileSource : public ByteSource {
 public:
  FileSource(std::ifstream& in, int64_t size) : in_(in), size_(size) {}
  int64_t size() const override { return size_; }
  void read(int64_t offset, int64_t length, uint8_t* out) const override {
    in_.clear();
    in_.seekg(offset);
    in_.read(reinterpret_cast<char*>(out), length);
    if (in_.gcount() != length) throw InputError(ErrorCode::kValue, "", "cannot read the file");
  }

 private:
  std::ifstream& in_;
  int64_t size_;
};

}  // namespace

ModelFileKind fileKind(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(ErrorCode::kValue, "", "cannot read file '" + path + "'");
  std::string prefix(static_cast<size_t>(kModelFileKindBytes), '\0');
  in.read(&prefix[0], kModelFileKindBytes);
  prefix.resize(static_cast<size_t>(in.gcount()));
  const ModelFileKind kind = detectModelFile(prefix);
  if (kind == ModelFileKind::kUnknown)
    throw InputError(ErrorCode::kValue, "", "'" + path + "': " + unknownModelFileMessage(prefix));
  return kind;
}

json inspectFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!in || ec) throw InputError(ErrorCode::kValue, "", "cannot read file '" + path + "'");
  const int64_t file_size = static_cast<int64_t>(size);
  // The kind from the bytes, not the name (the engine's one detector).
  if (fileKind(path) == ModelFileKind::kOnnx)
    return onnxFileSummaryJson(readOnnx(FileSource(in, file_size)), file_size);
  int64_t want = std::min(file_size, kModelHeaderFirstRead);
  for (;;) {
    std::string prefix(static_cast<size_t>(want), '\0');
    in.clear();
    in.seekg(0);
    in.read(&prefix[0], want);
    if (in.gcount() != want)
      throw InputError(ErrorCode::kValue, "", "cannot read file '" + path + "'");
    try {
      json summary = inspectModelFile(prefix, file_size);
      if (summary["format"] == "safetensors_index") return withShards(path, std::move(summary));
      return summary;
    } catch (const HeaderIncomplete& e) {
      // The engine only asks for more than it was given, and never past the file's end.
      if (e.wanted_bytes() <= want || e.wanted_bytes() > file_size) throw;
      want = e.wanted_bytes();
    }
  }
}

namespace {

std::string text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "-";
  if (v.is_object() && v.contains("length")) return "[" + v["length"].dump() + " values]";
  return v.dump();
}

/// What the ONNX graph import understood: the engine's counts of the layer graph, or the
/// operators it does not model.
void printLayerGraph(std::ostream& out, const json& g) {
  out << "layer graph   " << groupDigits(g["understood_nodes"]) << " of " << groupDigits(g["nodes"])
      << " nodes understood";
  if (g["model"].is_object()) {
    out << ": " << g["model"]["layers"].size() << " layers, " << groupDigits(g["parameters"])
        << " parameters, " << groupDigits(g["macs_per_sample"])
        << " MACs per sample (`estimate --onnx`; `inspect --config` prints it)\n";
    if (g["unused_initializers"]["count"] != 0) {
      out << "  not read    " << g["unused_initializers"]["count"].dump()
          << " weight initializers no layer reads ("
          << groupDigits(g["unused_initializers"]["parameters"]) << " values)\n";
    }
    return;
  }
  out << "; no layer graph\n";
  if (g.contains("error")) out << "  " << g["error"]["message"].get<std::string>() << "\n";
  for (const auto& u : g["unmodelled"]) {
    out << "  not modelled " << u["op_type"].get<std::string>() << " x" << u["count"].dump() << ": "
        << u["reason"].get<std::string>() << "\n";
  }
  if (g["after_unmodelled_nodes"] != 0) {
    out << "  " << g["after_unmodelled_nodes"].dump()
        << " more nodes read their outputs (shapes unknown)\n";
  }
}

// printSummary prints in sections, each a function below: what the format itself says
// (a GGUF's architecture, an index's shards, an ONNX graph), then the weights by type.

/// A GGUF's architecture and the hyperparameters it stores.
void printGgufModel(std::ostream& out, const json& g) {
  out << "architecture  " << text(g["architecture"]);
  if (g["name"].is_string()) out << " (" << g["name"].get<std::string>() << ")";
  out << "\n";
  static const std::pair<const char*, const char*> kLabels[] = {
      {"context_length", "context length"},
      {"layers", "layers"},
      {"embedding_width", "embedding width"},
      {"feed_forward_width", "feed-forward width"},
      {"heads", "attention heads"},
      {"kv_heads", "KV heads"},
      {"head_dim", "head dim"},
      {"experts", "experts"},
      {"experts_used", "experts used"},
      {"vocab_size", "vocabulary"}};
  for (const auto& [key, label] : kLabels) {
    if (g["model"].contains(key)) {
      out << "  " << std::left << std::setw(20) << label << text(g["model"][key]) << "\n";
    }
  }
}

/// A safetensors index's shards. Returns false where the shards were not found, and the
/// summary has no parameters to print.
bool printShards(std::ostream& out, const json& s, ByteUnits units) {
  out << "tensors       " << s["tensor_count"].get<int64_t>() << " in " << s["shards"].size()
      << " shard(s)\n";
  for (const auto& sh : s["shards"]) {
    out << "  " << sh["file"].get<std::string>() << "  " << sh["tensors"].get<int64_t>()
        << " tensors\n";
  }
  if (!s["parameters"].is_null()) return true;
  if (s["weight_bytes"].is_number()) {
    const int64_t b = s["weight_bytes"];
    out << "weights       " << formatBytes(b, units) << " (" << groupDigits(b)
        << " B, metadata.total_size)\n";
  }
  out << "parameters    need the shards' headers; not found next to the index:";
  for (const auto& f : s["shards_not_found"]) out << " " << f.get<std::string>();
  out << "\n";
  return false;
}

/// An ONNX file's producer, operators and layer graph.
void printOnnxGraph(std::ostream& out, const json& s) {
  const json& o = s["onnx"];
  out << "producer      " << text(o["producer"]) << ", IR version " << o["ir_version"].dump()
      << "\n";
  out << "graph         " << groupDigits(o["nodes"]) << " nodes:";
  for (const auto& op : o["operators"]) {
    out << " " << op["op_type"].get<std::string>() << " " << op["count"].dump();
  }
  out << "\n";
  if (!o["other_initializers"].empty()) {
    out << "not weights   " << o["other_initializers"].size()
        << " int/bool initializers (shape constants, indices)\n";
  }
  printLayerGraph(out, s["layer_graph"]);
}

/// Parameters and bytes, by storage type, and (with --tensors) every tensor.
void printWeights(std::ostream& out, const json& s, ByteUnits units, bool tensors) {
  const int64_t params = s["parameters"];
  const int64_t bytes = s["weight_bytes"];
  out << "parameters    " << groupDigits(params) << " (" << formatCount(params) << ")\n";
  out << "weights       " << formatBytes(bytes, units) << " (" << groupDigits(bytes) << " B) in "
      << s["tensor_count"].get<int64_t>() << " tensors\n";
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : s["by_dtype"]) {
    rows.push_back({t["dtype"], groupDigits(t["tensors"]), groupDigits(t["parameters"]),
                    formatBytes(t["bytes"].get<int64_t>(), units),
                    t.contains("bits_per_weight") ? fixed(t["bits_per_weight"], 4) : "-"});
  }
  out << "by type\n";
  printTable(out, {"dtype", "tensors", "parameters", "bytes", "bits/weight"}, rows, 1, "  ");
  if (tensors) {
    rows.clear();
    for (const auto& t : s["tensors"]) {
      rows.push_back({t["name"], t["dtype"], t["shape"].dump(), groupDigits(t["parameters"]),
                      groupDigits(t["bytes"])});
    }
    out << "tensors\n";
    printTable(out, {"name", "dtype", "shape", "parameters", "bytes"}, rows, 3, "  ");
  }
}

void printSummary(std::ostream& out, const json& s, ByteUnits units, bool tensors) {
  const std::string format = s["format"];
  out << "format        " << format;
  if (format == "gguf") out << " v" << s["gguf"]["version"].get<int>();
  if (s["file_size"].is_number()) out << ", " << formatBytes(s["file_size"].get<int64_t>(), units);
  out << "\n";
  if (format == "gguf") printGgufModel(out, s["gguf"]);
  if (format == "safetensors_index" && !printShards(out, s, units)) return;
  if (format == "onnx") printOnnxGraph(out, s);
  if (format == "gguf" && s["gguf"].contains("config_check")) {
    const json& c = s["gguf"]["config_check"];
    out << "config check  the engine counts " << groupDigits(c["engine_parameters"])
        << " parameters for this architecture's config.json (difference "
        << groupDigits(c["difference"]) << "); `--config` prints it\n";
  } else if (format == "gguf") {
    out << "config        " << s["gguf"]["hf_config_error"]["message"].get<std::string>() << "\n";
  }
  printWeights(out, s, units, tensors);
}

}  // namespace

json ggufConfig(const json& summary) {
  if (summary["format"] != "gguf") {
    throw InputError(ErrorCode::kValue, "", "only a GGUF file stands for a config.json");
  }
  const json& g = summary["gguf"];
  if (g["hf_config"].is_null()) {
    const json& e = g["hf_config_error"];
    throw InputError(ErrorCode::kValue, e["path"].get<std::string>(),
                     e["message"].get<std::string>());
  }
  return g["hf_config"];
}

json modelFileNote(const json& summary) {
  return {{"format", summary["format"]},
          {"parameters", summary["parameters"]},
          {"weight_bytes", summary["weight_bytes"]},
          {"by_dtype", summary["by_dtype"]},
          {"config_check", summary.contains("gguf")
                               ? summary["gguf"].value("config_check", json(nullptr))
                               : json(nullptr)}};
}

void printModelFileNote(std::ostream& out, const json& summary, ByteUnits units) {
  const int64_t bytes = summary["weight_bytes"];
  out << "\nthe file itself: " << groupDigits(summary["parameters"]) << " parameters, "
      << formatBytes(bytes, units) << " (" << groupDigits(bytes) << " B) of weights as stored (";
  bool first = true;
  for (const auto& t : summary["by_dtype"]) {
    out << (first ? "" : ", ") << t["dtype"].get<std::string>();
    first = false;
  }
  out << ");\nthe weights line above is these bytes, whatever --weight-dtype says\n";
}

void printComponentCheck(std::ostream& out, const json& check) {
  if (check.is_null()) return;
  out << "the file's tensors by component (names as transformers' modules): "
      << (check["matches"].get<bool>() ? "each equals the engine's count\n"
                                       : "they differ from the engine's count:\n");
  for (const json& r : check["rows"]) {
    if (r["engine"] == 0 && r["file"] == 0) continue;
    out << "  " << std::left << std::setw(11) << r["component"].get<std::string>() << std::right
        << std::setw(18) << groupDigits(r["file"]) << " in the file, " << std::setw(18)
        << groupDigits(r["engine"]) << " by dlcost";
    if (r["difference"] != 0) out << "  (difference " << groupDigits(r["difference"]) << ")";
    out << "\n";
  }
  const json& u = check["unplaced"];
  if (u["count"] != 0) {
    out << "  " << groupDigits(u["count"]) << " tensors (" << groupDigits(u["parameters"])
        << " parameters) match no component's names, e.g.";
    for (const json& n : u["names"]) out << " " << n.get<std::string>();
    out << "\n";
  }
}

int runInspect(const std::vector<std::string>& args) {
  bool as_json = false;
  bool tensors = false;
  bool config = false;
  ByteUnits units = ByteUnits::kBinary;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      as_json = true;
    } else if (args[i] == "--tensors") {
      tensors = true;
    } else if (args[i] == "--config") {
      config = true;
    } else if (args[i] == "--units") {
      auto u = i + 1 < args.size() ? parseByteUnits(args[++i]) : std::nullopt;
      if (!u) throw UsageError{"--units must be binary or decimal"};
      units = *u;
    } else if (args[i].rfind("--", 0) == 0) {
      throw UsageError{"unknown option '" + args[i] + "' for inspect"};
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.size() != 1)
    throw UsageError{"inspect needs one FILE (GGUF, safetensors, a safetensors index or ONNX)"};
  const json summary = inspectFile(files[0]);
  if (config && summary["format"] == "onnx") {
    std::cout << dumpJson(onnxModelOrError(summary), 2) << "\n";
  } else if (config) {
    std::cout << dumpJson(ggufConfig(summary), 2) << "\n";
  } else if (as_json) {
    std::cout << dumpJson(summary, 2) << "\n";
  } else {
    printSummary(std::cout, summary, units, tensors);
  }
  return 0;
}

std::string findCachedHfConfig(const std::string& model_id) {
  const auto slash = model_id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == model_id.size() ||
      model_id.find('/', slash + 1) != std::string::npos ||
      model_id.find("..") != std::string::npos) {
    throw InputError(ErrorCode::kValue, "--hf",
                     "a Hub model id is ORG/NAME, not '" + model_id + "'");
  }
  // huggingface_hub's constants.py: HF_HUB_CACHE, else HF_HOME/hub, else
  // XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
  fs::path hub;
  if (const char* v = std::getenv("HF_HUB_CACHE"); v && *v) {
    hub = v;
  } else if (const char* h = std::getenv("HF_HOME"); h && *h) {
    hub = fs::path(h) / "hub";
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    hub = fs::path(x) / "huggingface" / "hub";
  } else {
    const char* home = std::getenv("HOME");
    hub = fs::path(home ? home : ".") / ".cache" / "huggingface" / "hub";
  }
  const fs::path repo =
      hub / ("models--" + model_id.substr(0, slash) + "--" + model_id.substr(slash + 1));
  std::error_code ec;
  // refs/main holds the commit the cache's snapshot for "main" is named after.
  std::ifstream ref(repo / "refs" / "main");
  std::string revision;
  if (ref && std::getline(ref, revision) && !revision.empty() &&
      fs::is_regular_file(repo / "snapshots" / revision / "config.json", ec)) {
    return (repo / "snapshots" / revision / "config.json").string();
  }
  fs::path newest;
  fs::file_time_type newest_time{};
  for (fs::directory_iterator it(repo / "snapshots", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path config = it->path() / "config.json";
    if (!fs::is_regular_file(config, ec)) continue;
    const auto t = fs::last_write_time(config, ec);
    if (newest.empty() || t > newest_time) {
      newest = config;
      newest_time = t;
    }
  }
  if (!newest.empty()) return newest.string();
  throw InputError(ErrorCode::kValue, "--hf",
                   "no config.json for '" + model_id + "' in the Hugging Face cache: looked in " +
                       (repo / "snapshots" / "*" / "config.json").string() +
                       " (set HF_HUB_CACHE or HF_HOME, or download it with `huggingface-cli "
                       "download " +
                       model_id + " config.json`)");
}

}  // namespace dlcost::cli
