// dlcost: the command-line front end. Reads files and flags, prints reports; all figures
// come from the core engine.

#include <fstream>
#include <iostream>
#include <sstream>

#include "dlcost/config_json.hpp"
#include "dlcost/error.hpp"
#include "dlcost/estimate.hpp"
#include "dlcost/presets.hpp"
#include "dlcost/report_json.hpp"
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

/// Turns the flags' text into a workload patch; errors name the flag.
dlcost::Workload applyFlags(const dlcost::cli::Options& o, const dlcost::Workload& base) {
  json patch = json::object();
  for (const auto& [field, text] : o.workload) {
    if (field == "batch" || field == "overhead_bytes") {
      size_t used = 0;
      long long v = 0;
      try {
        v = std::stoll(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != text.size() || text.empty()) {
        throw InputError(ErrorCode::kType, "/" + field, "must be an integer, not '" + text + "'");
      }
      patch[field] = v;
    } else if (field == "memory_gib") {
      size_t used = 0;
      double v = 0;
      try {
        v = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != text.size() || text.empty()) {
        throw InputError(ErrorCode::kType, "/" + field, "must be a number, not '" + text + "'");
      }
      patch[field] = v;
    } else {
      patch[field] = text;
    }
  }
  try {
    return dlcost::parseWorkload(patch, "", base);
  } catch (const InputError& e) {
    dlcost::Error err = e.error();
    std::string flag = err.path.substr(1);
    for (char& c : flag) c = c == '_' ? '-' : c;
    err.path = "--" + flag;
    throw InputError(err);
  }
}

int runEstimate(const dlcost::cli::Options& o) {
  dlcost::Config config;
  if (o.preset) {
    if (!o.positional.empty())
      throw dlcost::cli::UsageError{"give a model file or --preset, not both"};
    config = dlcost::parseConfig(json{{"model", {{"preset", *o.preset}}}});
  } else {
    if (o.positional.size() != 1)
      throw dlcost::cli::UsageError{"estimate needs one MODEL.json (or --preset NAME)"};
    config = dlcost::parseConfigText(readFile(o.positional[0]));
  }
  config.workload = applyFlags(o, config.workload);
  const dlcost::Report report = dlcost::estimate(config.model, config.workload);
  if (o.json) {
    std::cout << dlcost::reportToJson(report).dump(2) << "\n";
  } else {
    dlcost::cli::printReport(std::cout, report, o.units);
  }
  return 0;
}

int run(const dlcost::cli::Options& o) {
  if (o.command == "help") {
    std::cout << dlcost::cli::usageText();
    return 0;
  }
  if (o.command == "version") {
    std::cout << "dlcost 0.1.0\n";
    return 0;
  }
  if (o.command == "presets") {
    if (o.json) {
      json list = json::array();
      for (const auto& p : dlcost::presetList()) {
        list.push_back({{"name", p.name}, {"family", p.family}, {"source", p.source}});
      }
      std::cout << list.dump(2) << "\n";
    } else {
      for (const auto& p : dlcost::presetList()) std::cout << p.name << "\t" << p.family << "\n";
    }
    return 0;
  }
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
    if (want_json) std::cout << dlcost::errorToJson(err).dump(2) << "\n";
    std::cerr << "dlcost: error at " << (err.path.empty() ? "/" : err.path) << ": " << err.message
              << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "dlcost: internal error: " << e.what() << "\n";
    return 1;
  }
}
