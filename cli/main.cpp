// dlcost: the command-line front end. Reads files and flags, prints reports; all figures
// come from the core engine.

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "dlcost/api.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/explore/advisor.hpp"
#include "dlcost/explore/layouts.hpp"
#include "dlcost/explore/serve_sim.hpp"
#include "dlcost/explore/serving_sweep.hpp"
#include "dlcost/gpu/step_json.hpp"
#include "dlcost/gpu/time_model.hpp"
#include "dlcost/measured/pickle.hpp"
#include "dlcost/model_files/onnx_graph.hpp"
#include "dlcost/model_files/weight_components.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/measured_json.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/report/share_link.hpp"
#include "dlcost/report/timeline_json.hpp"
#include "dlcost/schema/config_json.hpp"
#include "dlcost/schema/presets.hpp"
#include "dlcost/schema/task_defaults.hpp"
#include "dlcost/schema/workload_json.hpp"
#include "dlcost/serving/load_json.hpp"
#include "model_files.hpp"
#include "options.hpp"
#include "serve_sim_print.hpp"
#include "serving_print.hpp"
#include "table.hpp"
#include "timeline_print.hpp"

namespace {

using dlcost::ErrorCode;
using dlcost::InputError;
using nlohmann::json;

constexpr int kExitInput = 2;

/// The document the engine sees: the file (or preset) with the flags merged into its
/// "workload", so that `--json` equals what the page computes for the same document.
/// A MODEL FILE is read as what its bytes say it is: a GGUF or ONNX file as with --gguf or
/// --onnx, JSON as a document; a safetensors file holds no architecture.
void readFileKind(dlcost::cli::Options& o) {
  if (o.positional.size() != 1) return;
  const std::string path = o.positional[0];
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;  // named, not a file: said later
  switch (dlcost::cli::fileKind(path)) {
    case dlcost::ModelFileKind::kGguf:
      o.gguf = path;
      o.positional.clear();
      break;
    case dlcost::ModelFileKind::kOnnx:
      o.onnx = path;
      o.positional.clear();
      break;
    case dlcost::ModelFileKind::kSafetensors:
      throw InputError(ErrorCode::kValue, "",
                       "'" + path +
                           "' is a safetensors file: it holds weights, not the architecture; "
                           "give the model's config.json and the file with --weights");
    default:
      break;
  }
}

/// The document that the command line names: one MODEL.json, preset, Hugging Face config, GGUF
/// or ONNX file, or share link.
json readNamedDocument(const dlcost::cli::Options& o) {
  if ((o.preset ? 1 : 0) + (o.link ? 1 : 0) + (o.hf ? 1 : 0) + (o.gguf ? 1 : 0) + (o.onnx ? 1 : 0) +
              (o.positional.empty() ? 0 : 1) !=
          1 ||
      o.positional.size() > 1) {
    throw dlcost::cli::UsageError{
        "give one MODEL.json, --preset NAME, --hf ORG/NAME, --gguf FILE, --onnx FILE or --link "
        "FRAGMENT"};
  }
  if (o.gguf) {
    return dlcost::cli::ggufConfig(dlcost::cli::inspectFile(*o.gguf));
  }
  if (o.onnx) {
    json doc = json{{"model", dlcost::onnxModelOrError(dlcost::cli::inspectFile(*o.onnx))}};
    // The graph's own name is torch's "torch_jit" more often than not: the file names it.
    doc["model"]["name"] = std::filesystem::path(*o.onnx).stem().string();
    return doc;
  }
  if (o.hf) {
    return dlcost::parseDocumentText(dlcost::cli::readFile(dlcost::cli::findCachedHfConfig(*o.hf)));
  }
  if (o.preset) return json{{"model", {{"preset", *o.preset}}}};
  if (o.link) {
    const json state = dlcost::decodeShareLink(*o.link);
    if (!dlcost::shareLinkHasDocument(state)) {
      throw InputError(ErrorCode::kValue, "", "share link: it carries no model document");
    }
    return state["doc"];
  }
  return dlcost::parseDocumentText(dlcost::cli::readFile(o.positional[0]));
}

/// A config.json wrapped as a model document, with the flags that go on the model: --approximate,
/// --text-only and the tensor bytes of --weights (or --gguf).
void applyModelFlags(json& doc, const dlcost::cli::Options& o) {
  if (dlcost::isHfConfig(doc)) {
    // A config.json has no workload of its own: wrap it so the flags have one to go in.
    json workload = doc.contains("workload") ? doc["workload"] : json::object();
    doc.erase("workload");
    doc = json{{"model", {{"hf_config", std::move(doc)}}}, {"workload", std::move(workload)}};
  }
  const bool has_model = doc.contains("model") && doc["model"].is_object();
  if (o.approximate && has_model && doc["model"].contains("hf_config"))
    doc["model"]["approximate"] = true;
  if (o.text_only && has_model &&
      (doc["model"].contains("hf_config") || doc["model"].contains("preset")))
    doc["model"]["text_only"] = true;
  // A model file's tensor bytes stand for the weights term (the engine's file_weights.hpp).
  const std::optional<std::string> weights_path = o.weights ? o.weights : o.gguf;
  if (weights_path) {
    if (!has_model) throw dlcost::cli::UsageError{"--weights goes with a model document"};
    const json summary = dlcost::cli::inspectFile(*weights_path);
    if (!summary.contains("weights_file")) {
      throw InputError(ErrorCode::kValue, "--weights",
                       "'" + *weights_path +
                           "' lists no tensor sizes (an index needs its shards "
                           "beside it)");
    }
    doc["model"]["weights_file"] = summary["weights_file"];
  }
}

/// A named --task's settings over the document's workload, then the workload flags on top.
void applyWorkloadFlags(json& doc, const dlcost::cli::Options& o) {
  const bool has_model = doc.contains("model") && doc["model"].is_object();
  if (o.task && has_model) {
    // The task's settings for this kind of model over the document's workload, as the page's
    // task menu applies them; the flags below go on top.
    const bool transformer =
        std::holds_alternative<dlcost::Transformer>(dlcost::parseConfig(doc).model.body);
    const dlcost::TaskDefaults* task = dlcost::findTask(*o.task, transformer);
    if (!task) {
      std::string names;  // the task table's names for this kind, in menu order
      for (const dlcost::TaskDefaults& d : dlcost::taskDefaults())
        if (d.model_kind == (transformer ? "transformer" : "layer_graph"))
          names += (names.empty() ? "" : ", ") + d.task;
      throw dlcost::cli::UsageError{"--task must be one of " + names + " for this model, not '" +
                                    *o.task + "'"};
    }
    doc["workload"] = dlcost::applyTask(*task, doc.value("workload", json::object()));
  }
  // The flags' text, read by the workload schema's one rule (the page's fields use it too).
  const json flags = dlcost::workloadFromText(o.workload, "B");
  for (auto it = flags.begin(); it != flags.end(); ++it) {
    if (!doc.contains("workload")) doc["workload"] = json::object();
    if (!doc["workload"].is_object()) break;  // parseConfig reports it
    doc["workload"][it.key()] = *it;
  }
}

json buildDocument(const dlcost::cli::Options& o) {
  json doc = readNamedDocument(o);
  if (!doc.is_object()) return doc;  // parseConfig reports the type error
  applyModelFlags(doc, o);
  applyWorkloadFlags(doc, o);
  // The fields neither the document nor the flags set come from the task the workload implies
  // (training, or inference with --mode infer or an engine), as on the page's first screen for
  // the same model; a share link carries its whole workload, and a named task was applied above.
  if (!o.task && !o.link) return dlcost::startingDocument(std::move(doc));
  return doc;
}

/// Errors in values that came from flags name the flag, not the merged document's path.
InputError renameFlagPath(const InputError& e, const dlcost::cli::Options& o) {
  dlcost::Error err = e.error();
  const std::string prefix = "/workload/";
  // A config.json file was wrapped as /model/hf_config: its errors point into the file.
  const std::string wrapped = "/model/hf_config";
  if (!o.preset && err.path.rfind(wrapped, 0) == 0) err.path = err.path.substr(wrapped.size());
  if (err.path.rfind(prefix, 0) == 0 && o.workload.count(err.path.substr(prefix.size()))) {
    err.path = dlcost::findWorkloadField(err.path.substr(prefix.size()))->flag;
  }
  return InputError(err);
}

int runEstimate(const dlcost::cli::Options& o) {
  dlcost::Config config;
  dlcost::Report report;
  try {
    config = dlcost::parseConfig(buildDocument(o));
    report = dlcost::estimateWithAdvice(config.model, config.workload);
  } catch (const InputError& e) {
    throw renameFlagPath(e, o);
  }
  json explained;
  if (o.explain) {
    try {
      explained =
          dlcost::explainDocument(buildDocument(o), o.lang.value_or("en"),
                                  o.units == dlcost::ByteUnits::kBinary ? "binary" : "decimal");
    } catch (const InputError& e) {
      throw renameFlagPath(e, o);
    }
  }
  if (o.json) {
    json j = dlcost::reportToJson(report);
    if (o.explain) {
      j["explanations"] = explained["explanations"];
      j["dominant"] = explained["dominant"];
    }
    if (o.gguf || o.weights) {
      const json summary = dlcost::cli::inspectFile(o.weights ? *o.weights : *o.gguf);
      j["model_file"] = dlcost::cli::modelFileNote(summary);
      j["model_file"]["components"] = dlcost::componentCheck(summary, config.model);
    }
    std::cout << dlcost::dumpJson(j, 2) << "\n";
    return 0;
  }
  dlcost::cli::printReport(std::cout, report, o.units);
  if (report.serving) dlcost::cli::printServing(std::cout, *report.serving, o.units);
  if (o.gguf || o.weights) {
    const json summary = dlcost::cli::inspectFile(o.weights ? *o.weights : *o.gguf);
    dlcost::cli::printModelFileNote(std::cout, summary, o.units);
    dlcost::cli::printComponentCheck(std::cout, dlcost::componentCheck(summary, config.model));
  }
  if (o.explain) {
    std::cout << "\n";
    for (const auto& d : explained["dominant"])
      std::cout << "* " << d["text"].get<std::string>() << "\n";
    std::cout << "\n";
    for (const auto& e : explained["explanations"]) {
      std::cout << e["id"].get<std::string>() << "\n  " << e["text"].get<std::string>() << "\n";
    }
  }
  return 0;
}

/// `dlcost link`: the fragment for the document, checked first so no link fails to open.
int runLink(const dlcost::cli::Options& o) {
  if (o.decode) {
    if (o.positional.size() != 1) throw dlcost::cli::UsageError{"link --decode needs one FRAGMENT"};
    std::cout << dlcost::dumpJson(dlcost::decodeShareLink(o.positional[0]), 2) << "\n";
    return 0;
  }
  json doc;
  try {
    doc = buildDocument(o);
    dlcost::estimateDocument(doc);
  } catch (const InputError& e) {
    throw renameFlagPath(e, o);
  }
  json state = {{"doc", doc}};
  if (o.units_given)
    state["ui"]["units"] = o.units == dlcost::ByteUnits::kBinary ? "binary" : "decimal";
  if (o.lang) state["ui"]["lang"] = *o.lang;
  std::cout << dlcost::encodeShareLink(state) << "\n";
  return 0;
}

int runCompare(const dlcost::cli::Options& o) {
  json doc;
  try {
    doc = buildDocument(o);
  } catch (const InputError& e) {
    throw renameFlagPath(e, o);
  }
  json result;
  try {
    result = dlcost::compareDocument(doc, o.sort);
  } catch (const InputError& e) {
    dlcost::Error err = renameFlagPath(e, o).error();
    if (err.path == "/sort") err.path = "--sort";
    throw InputError(err);
  }
  if (o.json) {
    std::cout << dlcost::dumpJson(result, 2) << "\n";
  } else {
    dlcost::cli::printCompare(std::cout, result, o.units);
  }
  return 0;
}

/// `produce` applied to the command's document, errors that came from flags naming the flag.
json fromDocument(const dlcost::cli::Options& o, json (*produce)(const json&)) {
  try {
    return produce(buildDocument(o));
  } catch (const InputError& e) {
    throw renameFlagPath(e, o);
  }
}

/// `dlcost timeline --measured FILE`: the snapshot is read here, its bytes go to the engine;
/// a snapshot's error is named "--measured FILE" and the field inside it.
json measuredTimeline(const dlcost::cli::Options& o) {
  // Checked before reading: a multi-GiB file given by mistake is refused, not loaded.
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(*o.measured, ec);
  if (!ec) {
    try {
      dlcost::checkSnapshotFileSize(size);
    } catch (const InputError& e) {
      dlcost::Error err = e.error();
      err.path = "--measured " + *o.measured;
      throw InputError(err);
    }
  }
  const std::string bytes = dlcost::cli::readFile(*o.measured);
  json doc;
  try {
    doc = buildDocument(o);
  } catch (const InputError& e) {
    throw renameFlagPath(e, o);
  }
  try {
    return dlcost::measuredTimelineDocument(doc, bytes, o.device.value_or(-1));
  } catch (const InputError& e) {
    dlcost::Error err = e.error();
    if (err.path.rfind("/measured", 0) != 0) throw renameFlagPath(e, o);
    err.path = "--measured " + *o.measured + (err.path.size() > 9 ? " " + err.path.substr(9) : "");
    throw InputError(err);
  }
}

int runTimeline(const dlcost::cli::Options& o) {
  if (o.device && !o.measured) {
    throw dlcost::cli::UsageError{"--device goes with --measured SNAPSHOT.pickle"};
  }
  const json result = o.measured ? measuredTimeline(o) : fromDocument(o, dlcost::timelineDocument);
  if (o.json) {
    std::cout << dlcost::dumpJson(result, 2) << "\n";
  } else if (o.csv && o.measured) {
    dlcost::cli::printMeasuredCsv(std::cout, result["measured"]);
  } else if (o.csv) {
    dlcost::cli::printTimelineCsv(std::cout, result);
  } else {
    dlcost::cli::printTimeline(std::cout, result, o.units);
    if (o.measured) dlcost::cli::printMeasured(std::cout, result, o.units);
  }
  return 0;
}

int runLayouts(const dlcost::cli::Options& o) {
  const json result = fromDocument(o, dlcost::layoutsDocument);
  if (o.json) {
    std::cout << dlcost::dumpJson(result, 2) << "\n";
  } else {
    dlcost::cli::printLayouts(std::cout, result, o.units);
  }
  return 0;
}

/// A load flag's text as the JSON the engine reads: a number, or for --prompt/--output a length
/// "uniform:LO-HI" / "normal:MEAN,SD"; anything else stays text (the engine names the flag).
json loadFlagJson(const std::string& key, const std::string& text) {
  const auto number = [](const std::string& t) {
    const json v = json::parse(t, nullptr, false);
    return v.is_number() ? v : json(t);
  };
  const size_t colon = text.find(':');
  if ((key == "prompt" || key == "output") && colon != std::string::npos) {
    const std::string kind = text.substr(0, colon), rest = text.substr(colon + 1);
    const size_t sep = rest.find(kind == "uniform" ? '-' : ',');
    if (sep != std::string::npos) {
      return json{{kind, {number(rest.substr(0, sep)), number(rest.substr(sep + 1))}}};
    }
  }
  return number(text);
}

/// A load error's path as the flag it came from: /load/rate -> --rate; a trace row ->
/// "--trace FILE row N" (rows counted from 1, comments and a header not counted).
InputError renameLoadPath(const InputError& e, const dlcost::cli::Options& o) {
  dlcost::Error err = renameFlagPath(e, o).error();
  const std::string prefix = "/load/";
  if (err.path.rfind(prefix, 0) != 0) return InputError(err);
  std::string key = err.path.substr(prefix.size());
  const std::string rest = key.find('/') == std::string::npos ? "" : key.substr(key.find('/') + 1);
  key = key.substr(0, key.find('/'));
  if (key == "trace" && o.trace) {
    err.path = "--trace " + *o.trace;
    if (!rest.empty()) err.path += " row " + std::to_string(std::stoll(rest) + 1);
  } else if (key != "trace") {  // every other load field is a flag of its own
    for (char& c : key) c = c == '_' ? '-' : c;
    err.path = "--" + key;
  }
  return InputError(err);
}

int runServeSim(const dlcost::cli::Options& o) {
  json doc = buildDocument(o);
  json load = json::object();
  for (const auto& [key, text] : o.load) load[key] = loadFlagJson(key, text);
  json result;
  try {
    if (o.trace) {
      json rows = json::array();
      for (const dlcost::LoadRequest& q : dlcost::parseTraceText(dlcost::cli::readFile(*o.trace))) {
        rows.push_back({q.arrival_s, q.prompt_tokens, q.output_tokens});
      }
      load["trace"] = std::move(rows);
    }
    doc["load"] = load;
    result = dlcost::serveSimDocument(doc);
  } catch (const InputError& e) {
    throw renameLoadPath(e, o);
  }
  if (o.json) {
    std::cout << dlcost::dumpJson(result, 2) << "\n";
  } else if (o.csv) {
    dlcost::cli::printLoadTimelineCsv(std::cout, result["result"]);
  } else {
    dlcost::cli::printServeSim(std::cout, result);
  }
  return 0;
}

/// "1,8,64" as the JSON array text the engine's sweep reads (it validates the entries).
std::string listJson(const std::string& text) {
  return "[" + text + "]";
}

/// The engine's sweep of `doc`, from the calls the page makes: at --batches, or with a GPU at
/// the throughput chart's batches (sweepThroughput, which adds each point's throughput and
/// the saturation point), else at the memory chart's batches (estimateWithSweep).
json sweepOf(const json& doc, const dlcost::cli::Options& o) {
  const bool gpu = doc.is_object() && doc.contains("workload") && doc["workload"].is_object() &&
                   doc["workload"].contains("gpu");
  const bool throughput = o.batches || gpu;
  const json out =
      json::parse(throughput ? dlcost::sweepThroughputText(
                                   doc.dump(), o.batches ? listJson(*o.batches) : "null")
                             : dlcost::estimateWithSweepText(doc.dump(), 25));
  if (out.contains("error")) {
    dlcost::Error err{ErrorCode::kValue, out["error"]["path"], out["error"]["message"]};
    for (ErrorCode c : {ErrorCode::kParse, ErrorCode::kMissingField, ErrorCode::kUnknownField,
                        ErrorCode::kType, ErrorCode::kValue, ErrorCode::kShape, ErrorCode::kGraph,
                        ErrorCode::kTooLarge, ErrorCode::kInternal}) {
      if (out["error"]["code"] == dlcost::errorCodeName(c)) err.code = c;
    }
    if (err.path.rfind("/batches", 0) == 0) err.path = "--batches";
    throw renameFlagPath(InputError(err), o);
  }
  return throughput ? out : out["sweep"];
}

/// Whether the document serves its model with an engine (its sweep is over users and contexts).
bool servesWithEngine(const json& doc) {
  return doc.is_object() && doc.contains("workload") && doc["workload"].is_object() &&
         doc["workload"].contains("engine") && doc["workload"]["engine"] != "none";
}

/// `dlcost sweep` with an engine: the serving plan at each --batches (users) x --contexts.
int runServingSweep(const json& doc, const dlcost::cli::Options& o) {
  const json out =
      json::parse(dlcost::servingSweepText(doc.dump(), o.batches ? listJson(*o.batches) : "null",
                                           o.contexts ? listJson(*o.contexts) : "null"));
  if (out.contains("error")) {
    dlcost::Error err{ErrorCode::kValue, out["error"]["path"], out["error"]["message"]};
    if (err.path.rfind("/users", 0) == 0) err.path = "--batches";
    if (err.path.rfind("/contexts", 0) == 0) err.path = "--contexts";
    throw renameFlagPath(InputError(err), o);
  }
  if (o.json) {
    std::cout << dlcost::dumpJson(out, 2) << "\n";
  } else {
    dlcost::cli::printServingSweep(std::cout, out, o.units);
  }
  return 0;
}

int runSweep(const dlcost::cli::Options& o) {
  json doc;
  try {
    doc = buildDocument(o);
  } catch (const InputError& e) {
    throw renameFlagPath(e, o);
  }
  if (servesWithEngine(doc)) return runServingSweep(doc, o);
  // One sweep per sequence length (--contexts), else one at the workload's.
  std::vector<std::optional<int64_t>> contexts{std::nullopt};
  if (o.contexts) {
    const json list = dlcost::parseDocumentText(listJson(*o.contexts));
    contexts.clear();
    for (const json& c : list) {
      if (!c.is_number_integer() || c.get<int64_t>() < 1) {
        throw InputError(ErrorCode::kValue, "--contexts", "must list whole numbers of tokens >= 1");
      }
      contexts.push_back(c.get<int64_t>());
    }
  }
  json sweeps = json::array();
  for (const std::optional<int64_t>& context : contexts) {
    json at = doc;
    if (context) at["workload"]["seq_len"] = *context;
    json s = sweepOf(at, o);
    if (context) s["seq_len"] = *context;
    sweeps.push_back(std::move(s));
  }
  if (o.json) {
    std::cout << dlcost::dumpJson(o.contexts ? json{{"sweeps", sweeps}} : sweeps[0], 2) << "\n";
  } else {
    dlcost::cli::printSweeps(std::cout, sweeps, o.units, o.csv);
  }
  return 0;
}

int run(dlcost::cli::Options o) {
  // Every command that reads a MODEL file reads it by its bytes (not `preset NAME`).
  if (o.command != "preset" && o.command != "help" && o.command != "schema") readFileKind(o);
  if (o.command == "help") {
    std::cout << dlcost::cli::usageText();
    return 0;
  }
  if (o.command == "version") {
    std::cout << "dlcost " DLCOST_VERSION "\n";  // project(VERSION) in CMakeLists.txt
    return 0;
  }
  if (o.command == "presets") {
    if (o.json) {
      // The same list the page gets (with each preset's published metrics).
      std::cout << dlcost::dumpJson(dlcost::presetListJson(), 2) << "\n";
    } else {
      for (const auto& p : dlcost::presetList()) std::cout << p.name << "\t" << p.family << "\n";
    }
    return 0;
  }
  if (o.command == "gpus") {
    if (o.json) {
      std::cout << dlcost::gpuTable().dump(2) << "\n";
    } else {
      dlcost::cli::printGpus(std::cout, dlcost::gpuTable(), o.units);
    }
    return 0;
  }
  if (o.command == "schema") {
    // The workload schema the flags, --help and the page's form are built from.
    if (o.json) {
      std::cout << dlcost::dumpJson(dlcost::workloadSchemaJson(), 2) << "\n";
    } else {
      std::cout << dlcost::cli::workloadHelp();
    }
    return 0;
  }
  if (o.command == "compare") return runCompare(o);
  if (o.command == "layouts") return runLayouts(o);
  if (o.command == "timeline") return runTimeline(o);
  if (o.command == "serve-sim") return runServeSim(o);
  if (o.command == "links") {
    if (o.json) {
      std::cout << dlcost::dumpJson({{"links", dlcost::interconnectTableJson()},
                                     {"prices", dlcost::listPricesJson()}},
                                    2)
                << "\n";
    } else {
      dlcost::cli::printLinks(std::cout, dlcost::interconnectTableJson(), dlcost::listPricesJson());
    }
    return 0;
  }
  if (o.command == "sweep") return runSweep(o);
  if (o.command == "preset") {
    if (o.positional.size() != 1) throw dlcost::cli::UsageError{"preset needs one NAME"};
    const char* text = dlcost::presetJson(o.positional[0]);
    if (!text) {
      throw InputError(ErrorCode::kValue, "",
                       "unknown preset '" + o.positional[0] + "' (`dlcost presets` lists them)");
    }
    std::cout << text;
    return 0;
  }
  if (o.command == "link") return runLink(o);
  return runEstimate(o);
}

}  // namespace

int main(int argc, char** argv) {
  bool want_json = false;
  for (int i = 1; i < argc; ++i) want_json = want_json || std::string(argv[i]) == "--json";
  try {
    // Calibration only (scripts/calibrate_speed.py --fit): trial time-model parameters.
    if (const char* params = std::getenv("DLCOST_TIME_PARAMS")) {
      dlcost::overrideTimeParams(dlcost::cli::readFile(params));
    }
    if (argc > 1 && std::string(argv[1]) == "inspect") {
      return dlcost::cli::runInspect(std::vector<std::string>(argv + 2, argv + argc));
    }
    return run(dlcost::cli::parseOptions(argc, argv));
  } catch (const dlcost::cli::UsageError& e) {
    std::cerr << "dlcost: " << e.message << "\n";
    return kExitInput;
  } catch (const InputError& e) {
    const dlcost::Error& err = e.error();
    if (want_json) std::cout << dlcost::dumpJson(dlcost::errorToJson(err), 2) << "\n";
    std::cerr << "dlcost: error at " << (err.path.empty() ? "/" : err.path) << ": " << err.message
              << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "dlcost: internal error: " << e.what() << "\n";
    return 1;
  }
}
