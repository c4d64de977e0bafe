// dlcost: the command-line front end. Reads files and flags, prints reports; all figures
// come from the core engine.

#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "dlcost/api.hpp"
#include "dlcost/config_json.hpp"
#include "dlcost/error.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/presets.hpp"
#include "dlcost/report_json.hpp"
#include "dlcost/share_link.hpp"
#include "options.hpp"
#include "table.hpp"

namespace {

using dlcost::ErrorCode;
using dlcost::InputError;
using nlohmann::json;

constexpr int kExitInput = 2;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(ErrorCode::kValue, "", "cannot read file '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Reads the flag's text as the JSON value its workload field expects.
json flagValue(const std::string& field, const std::string& text) {
  if (field == "sp") return text == "true";
  static const std::set<std::string> kNumeric = {"batch",
                                                 "overhead_bytes",
                                                 "memory_gib",
                                                 "gpus",
                                                 "zero",
                                                 "tp",
                                                 "pp",
                                                 "microbatches",
                                                 "utilization",
                                                 "reserve_bytes",
                                                 "fragmentation",
                                                 "grad_accum",
                                                 "seq_len",
                                                 "prompt_tokens",
                                                 "generated_tokens",
                                                 "quant_group_size",
                                                 "lora_rank",
                                                 "lora_alpha"};
  if (kNumeric.count(field)) {
    size_t used = 0;
    double v = 0;
    try {
      v = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || text.empty()) {
      throw InputError(ErrorCode::kType, "/workload/" + field,
                       "must be a number, not '" + text + "'");
    }
    if (field != "memory_gib" && field != "utilization" && field != "fragmentation" &&
        field != "lora_alpha" && v == static_cast<double>(static_cast<int64_t>(v)) &&
        text.find_first_of(".eE") == std::string::npos) {
      return std::stoll(text);
    }
    return v;
  }
  return text;
}

/// A Hugging Face config.json given as the whole file (the engine's own test is the same).
bool isHfConfig(const json& doc) {
  return doc.is_object() && (doc.contains("model_type") || doc.contains("architectures"));
}

/// The document the engine sees: the file (or preset) with the flags merged into its
/// "workload", so that `--json` equals what the page computes for the same document.
json buildDocument(const dlcost::cli::Options& o) {
  json doc;
  if ((o.preset ? 1 : 0) + (o.link ? 1 : 0) + (o.positional.empty() ? 0 : 1) != 1 ||
      o.positional.size() > 1) {
    throw dlcost::cli::UsageError{"give one MODEL.json, --preset NAME or --link FRAGMENT"};
  }
  if (o.preset) {
    doc = json{{"model", {{"preset", *o.preset}}}};
  } else if (o.link) {
    const json state = dlcost::decodeShareLink(*o.link);
    if (!state.contains("doc") || !state["doc"].is_object()) {
      throw InputError(ErrorCode::kValue, "", "share link: it carries no model document");
    }
    doc = state["doc"];
  } else {
    doc = dlcost::parseDocumentText(readFile(o.positional[0]));
  }
  if (!doc.is_object()) return doc;  // parseConfig reports the type error
  if (isHfConfig(doc)) {
    // A config.json has no workload of its own: wrap it so the flags have one to go in.
    json workload = doc.contains("workload") ? doc["workload"] : json::object();
    doc.erase("workload");
    doc = json{{"model", {{"hf_config", std::move(doc)}}}, {"workload", std::move(workload)}};
  }
  for (const auto& [field, text] : o.workload) {
    if (!doc.contains("workload")) doc["workload"] = json::object();
    if (!doc["workload"].is_object()) break;  // parseConfig reports it
    doc["workload"][field] = flagValue(field, text);
  }
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
    std::string flag = err.path.substr(prefix.size());
    for (char& c : flag) c = c == '_' ? '-' : c;
    err.path = "--" + flag;
  }
  return InputError(err);
}

int runEstimate(const dlcost::cli::Options& o) {
  dlcost::Config config;
  dlcost::Report report;
  try {
    config = dlcost::parseConfig(buildDocument(o));
    report = dlcost::estimate(config.model, config.workload);
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
    std::cout << dlcost::dumpJson(j, 2) << "\n";
    return 0;
  }
  dlcost::cli::printReport(std::cout, report, o.units);
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

int run(const dlcost::cli::Options& o) {
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
  if (o.command == "compare") return runCompare(o);
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
