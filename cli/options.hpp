#pragma once
// Command-line arguments of the dlcost tool, parsed into a value.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dlcost/base/units.hpp"

namespace dlcost::cli {

struct Options {
  std::string command;  ///< estimate, compare, gpus, presets, preset, schema, help, version
  std::vector<std::string> positional;  ///< e.g. the model file or preset name
  std::optional<std::string> preset;    ///< --preset NAME
  std::optional<std::string> hf;        ///< --hf ORG/NAME: config.json from the local HF cache
  std::optional<std::string> gguf;      ///< --gguf FILE: the architecture a GGUF stands for
  std::optional<std::string> onnx;      ///< --onnx FILE: the ONNX graph as a layer graph
  /// --weights FILE: a model file whose tensors' bytes are the weights term (with a config)
  std::optional<std::string> weights;
  /// --task NAME: start the workload from the page's task table (core/src/task_defaults.cpp)
  std::optional<std::string> task;
  /// Workload overrides from flags, keyed by their workload field name ("batch", ...),
  /// with the flag's text value.
  std::map<std::string, std::string> workload;
  bool json = false;
  bool approximate = false;  ///< --approximate: the generic reading of an unknown model_type
  bool text_only = false;    ///< --text-only: a vision-language model's language model alone
  std::string sort = "samples_per_s";  ///< compare: --sort FIELD
  ByteUnits units = ByteUnits::kBinary;
  bool units_given = false;
  std::optional<std::string> link;      ///< --link FRAGMENT: read the document from a share link
  std::optional<std::string> lang;      ///< --lang en|zh: recorded in share links for the page
  std::optional<std::string> batches;   ///< sweep --batches 1,8,64: batch sizes, comma-separated
  std::optional<std::string> contexts;  ///< sweep --contexts 512,2048: sequence lengths
  bool csv = false;                     ///< sweep --csv
  /// serve-sim: the load's fields ("rate", "slo_ttft_ms", ...) from their flags, as text.
  std::map<std::string, std::string> load;
  std::optional<std::string> trace;  ///< serve-sim --trace FILE (CSV or JSON Lines)
  /// timeline --measured FILE: a PyTorch CUDA memory snapshot (torch.cuda.memory._dump_snapshot)
  std::optional<std::string> measured;
  /// timeline --measured FILE --device N: the snapshot's device to read (0 or more); absent:
  /// the device with the most trace events (readMemorySnapshot's default).
  std::optional<int> device;
  bool decode = false;
  bool explain = false;  ///< estimate --explain: how each figure was computed              ///<
                         ///< link --decode FRAGMENT: print the state it carries
};

/// Throws UsageError for unknown flags or missing values.
Options parseOptions(int argc, const char* const* argv);

struct UsageError {
  std::string message;
};

/// The --help text; its workload part is workloadHelp().
std::string usageText();

/// The workload flags with their help, ranges, units and defaults, from the workload schema.
std::string workloadHelp();

}  // namespace dlcost::cli
