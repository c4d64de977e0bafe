#include "options.hpp"

namespace dlcost::cli {

namespace {

/// Workload flags and the workload field each sets.
const std::map<std::string, std::string>& workloadFlags() {
  static const std::map<std::string, std::string> kFlags = {
      {"--batch", "batch"}, {"--dtype", "dtype"},           {"--optimizer", "optimizer"},
      {"--mode", "mode"},   {"--memory-gib", "memory_gib"}, {"--overhead-bytes", "overhead_bytes"},
  };
  return kFlags;
}

}  // namespace

const char* usageText() {
  return R"(dlcost - what a deep-learning model costs: parameters, MACs/FLOPs, memory

usage:
  dlcost estimate MODEL.json [options]     estimate a model described in JSON
  dlcost estimate --preset NAME [options]  estimate a built-in preset
  dlcost link MODEL.json|--preset NAME [options] [--lang en|zh]
                                           print a share-link fragment (#d1....) for the page
  dlcost link --decode FRAGMENT            print the state a share link carries
  dlcost estimate --link FRAGMENT [options]  estimate what a share link shows
  dlcost presets                           list the built-in presets
  dlcost preset NAME                       print a preset's model JSON
  dlcost --help | --version

options (each overrides the document's "workload"):
  --batch N                 samples per step (default 1)
  --dtype fp32|fp16|bf16|mixed
                            mixed: 16-bit weights/activations, fp32 master weights and states
  --optimizer sgd|momentum|adam|adamw|rmsprop|adagrad   (default adam)
  --mode train|infer        (default train)
  --memory-gib X            memory available: report the largest batch that fits
  --overhead-bytes N        fixed overhead added to the total (framework, CUDA context)
  --units binary|decimal    human output in GiB (2^30 B) or GB (10^9 B); default binary
  --json                    print the report as JSON (exact bytes and counts)

exit status: 0 success, 2 bad input or usage (the message names the field), 1 internal error
)";
}

Options parseOptions(int argc, const char* const* argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) throw UsageError{"no command given (try dlcost --help)"};
  size_t i = 0;
  o.command = args[i++];
  if (o.command == "--help" || o.command == "-h" || o.command == "help") {
    o.command = "help";
    return o;
  }
  if (o.command == "--version") {
    o.command = "version";
    return o;
  }
  if (o.command != "estimate" && o.command != "presets" && o.command != "preset" &&
      o.command != "link") {
    throw UsageError{"unknown command '" + o.command + "' (try dlcost --help)"};
  }
  auto value = [&](const std::string& flag) -> std::string {
    if (i >= args.size()) throw UsageError{flag + " needs a value"};
    return args[i++];
  };
  while (i < args.size()) {
    const std::string a = args[i++];
    if (a == "--json") {
      o.json = true;
    } else if (a == "--preset") {
      o.preset = value(a);
    } else if (a == "--link") {
      o.link = value(a);
    } else if (a == "--decode") {
      o.decode = true;
    } else if (a == "--lang") {
      o.lang = value(a);
      if (*o.lang != "en" && *o.lang != "zh") throw UsageError{"--lang must be en or zh"};
    } else if (a == "--units") {
      const std::string u = value(a);
      auto parsed = parseByteUnits(u);
      if (!parsed) throw UsageError{"--units must be binary or decimal, not '" + u + "'"};
      o.units = *parsed;
      o.units_given = true;
    } else if (auto it = workloadFlags().find(a); it != workloadFlags().end()) {
      o.workload[it->second] = value(a);
    } else if (a.rfind("--", 0) == 0) {
      throw UsageError{"unknown option '" + a + "' (try dlcost --help)"};
    } else {
      o.positional.push_back(a);
    }
  }
  return o;
}

}  // namespace dlcost::cli
