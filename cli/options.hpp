#pragma once
// Command-line arguments of the dlcost tool, parsed into a value.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/units.hpp"

namespace dlcost::cli {

struct Options {
  std::string command;                  ///< estimate, compare, gpus, presets, preset, help, version
  std::vector<std::string> positional;  ///< e.g. the model file or preset name
  std::optional<std::string> preset;    ///< --preset NAME
  std::optional<std::string> hf;        ///< --hf ORG/NAME: config.json from the local HF cache
  std::optional<std::string> gguf;      ///< --gguf FILE: the architecture a GGUF stands for
  /// Workload overrides from flags, keyed by their workload field name ("batch", ...),
  /// with the flag's text value.
  std::map<std::string, std::string> workload;
  bool json = false;
  std::string sort = "samples_per_s";  ///< compare: --sort FIELD
  ByteUnits units = ByteUnits::kBinary;
  bool units_given = false;
  std::optional<std::string> link;  ///< --link FRAGMENT: read the document from a share link
  std::optional<std::string> lang;  ///< --lang en|zh: recorded in share links for the page
  bool decode = false;
  bool explain = false;  ///< estimate --explain: how each figure was computed              ///<
                         ///< link --decode FRAGMENT: print the state it carries
};

/// Throws UsageError for unknown flags or missing values.
Options parseOptions(int argc, const char* const* argv);

struct UsageError {
  std::string message;
};

/// The --help text.
const char* usageText();

}  // namespace dlcost::cli
