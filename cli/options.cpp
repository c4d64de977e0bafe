#include "options.hpp"

#include "dlcost/explore/compare.hpp"
#include "dlcost/schema/workload_schema.hpp"
#include "dlcost/serving/load_json.hpp"

namespace dlcost::cli {

using dlcost::EnumValue;
using dlcost::FieldType;
using dlcost::WorkloadField;
using dlcost::workloadFields;

namespace {

/// What a flag's value looks like in --help.
std::string valueHint(const WorkloadField& f) {
  switch (f.type) {
    case FieldType::kInteger:
      return f.unit == "bytes" ? "N[UNIT]" : "N";
    case FieldType::kNumber:
      return "X";
    case FieldType::kEnum: {
      std::string list;
      for (const EnumValue& v : f.values) list += (list.empty() ? "" : "|") + v.name;
      return list;
    }
    case FieldType::kBoolean:
      return "";
    case FieldType::kNameList:
      return "LIST";
    case FieldType::kGpu:
      return "NAME";
  }
  return "";
}

std::string defaultText(const WorkloadField& f) {
  if (!f.default_value.is_null()) {
    const nlohmann::json& d = f.default_value;
    if (d.is_string()) return d.get<std::string>();
    if (d.is_array()) {
      std::string list;
      for (const auto& v : d) list += (list.empty() ? "" : ",") + v.get<std::string>();
      return list;
    }
    return d.dump();
  }
  return f.default_note.en;
}

/// `text` in lines of at most 96 columns, each after the first indented to `column`.
std::string wrap(const std::string& text, size_t column) {
  constexpr size_t kWidth = 96;
  std::string out, line, word;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ' ') {
      word += text[i];
      continue;
    }
    if (!line.empty() && column + line.size() + 1 + word.size() > kWidth) {
      out += line + "\n" + std::string(column, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    word.clear();
  }
  return out + line + "\n";
}

const char* groupHeading(const std::string& group) {
  if (group == "workload") return "workload options (each overrides the document's \"workload\"):";
  if (group == "gpu") return "memory and GPU:";
  if (group == "parallel") return "multi-GPU and roofline (with --gpu):";
  if (group == "run") return "the whole training run (with --gpu):";
  return "transformer options (a Hugging Face config.json as MODEL.json, or an hf/ preset):";
}

bool knownCommand(const std::string& c) {
  static const char* const commands[] = {"estimate", "presets", "preset",    "link",
                                         "compare",  "gpus",    "sweep",     "schema",
                                         "layouts",  "links",   "serve-sim", "timeline"};
  for (const char* k : commands) {
    if (c == k) return true;
  }
  return false;
}

/// serve-sim's load flags, from core's loadFieldNames: --rate -> "rate", ...; nullptr for
/// other flags and for --trace (a file, read by the CLI).
const std::string* loadFlagKey(const std::string& flag) {
  for (const std::string& k : loadFieldNames()) {
    if (k == "trace") continue;
    std::string f = "--" + k;
    for (char& c : f) c = c == '_' ? '-' : c;
    if (f == flag) return &k;
  }
  return nullptr;
}

}  // namespace

std::string workloadHelp() {
  constexpr size_t kColumn = 28;  // where descriptions start
  std::string out;
  std::string group;
  for (const WorkloadField& f : workloadFields()) {
    if (f.group != group) {
      group = f.group;
      out += std::string(out.empty() ? "" : "\n") + groupHeading(group) + "\n";
    }
    std::string head = "  " + f.flag;
    const std::string hint = valueHint(f);
    if (!hint.empty()) head += " " + hint;
    if (head.size() + 2 > kColumn) {
      out += head + "\n" + std::string(kColumn, ' ');
    } else {
      out += head + std::string(kColumn - head.size(), ' ');
    }
    std::string text = f.help.en;
    if (f.type == FieldType::kInteger || f.type == FieldType::kNumber) {
      text += "; " + describeAccepted(f);
    }
    text += "; default " + defaultText(f);
    out += wrap(text, kColumn);
  }
  return out;
}

/// compareSortFields() as "a, b, c", folded to the help's column.
static std::string sortFieldList() {
  std::string out;
  size_t line = 0;
  for (const std::string& f : dlcost::compareSortFields()) {
    if (!out.empty()) {
      out += ",";
      if (line + f.size() + 2 > 50) {
        out += "\n                            ";
        line = 0;
      } else {
        out += " ";
        ++line;
      }
    }
    out += f;
    line += f.size() + 1;
  }
  return out;
}

/// `dlcost serve-sim` in the usage's command list.
static std::string serveSimUsage() {
  return R"(  dlcost serve-sim MODEL.json|--preset NAME --engine E --gpu NAME (--rate R | --concurrency C
                   | --trace FILE) [--requests N] [--prompt LEN] [--output LEN] [--seed S]
                   [--replicas K] [--slo-ttft-ms X] [--slo-itl-ms Y] [--csv|--json]
                                           the engine under load: requests arrive (Poisson at
                                           R/s, C in flight, or a CSV/JSON Lines trace of
                                           arrival_s,prompt_tokens,output_tokens), its
                                           scheduler batches them iteration by iteration;
                                           TTFT, inter-token and end-to-end percentiles,
                                           throughput, preemptions, KV use over time (--csv);
                                           with an objective, the largest rate one instance
                                           meets and the replicas the rate needs. LEN: N,
                                           uniform:LO-HI or normal:MEAN,SD (tokens)
)";
}

/// The commands, one by one.
static std::string commandsUsage() {
  return R"(dlcost - what a deep-learning model costs: parameters, MACs/FLOPs, memory

usage:
  dlcost estimate MODEL.json [options]     estimate a model described in JSON
  dlcost estimate --preset NAME [options]  estimate a built-in preset
  dlcost estimate --hf ORG/NAME [options]  estimate a Hub model's config.json from the local
                                           Hugging Face cache (HF_HUB_CACHE, HF_HOME; offline)
  dlcost estimate --gguf FILE [options]    estimate the architecture a GGUF file stands for
                                           (its config.json: `inspect --config`); the weights
                                           line is the file's exact tensor bytes
  dlcost estimate --onnx FILE [options]    estimate an ONNX graph as the engine's layer graph
                                           (`inspect --config` prints it); refused, naming
                                           them, when it has operators dlcost does not model
  dlcost estimate CONFIG|--hf ORG/NAME --weights FILE [options]
                                           the weights line from a .gguf, .safetensors,
                                           model.safetensors.index.json or .onnx file's
                                           tensors instead of parameters x dtype
  dlcost inspect FILE [--json] [--tensors] [--config]
                                           parameters and exact bytes by type of a .gguf,
                                           .safetensors, model.safetensors.index.json or .onnx,
                                           from its header only (an ONNX's layer graph too)
  dlcost link MODEL.json|--preset NAME [options] [--lang en|zh]
                                           print a share-link fragment (#d1....) for the page
  dlcost link --decode FRAGMENT            print the state a share link carries
  dlcost estimate --link FRAGMENT [options]  estimate what a share link shows
  dlcost compare MODEL.json|--preset NAME [options] [--sort FIELD]
                                           the workload on every GPU preset
  dlcost sweep MODEL.json|--preset NAME [options] [--batches 1,8,64] [--contexts 512,2048]
          [--csv]                          memory (per GPU with --gpu), fit and throughput
                                           over batch sizes (default: the page's chart
                                           batches) and, for transformers, sequence lengths;
                                           with --engine: the serving plan over users
                                           (--batches) and contexts (docs/serving.md)
  dlcost layouts MODEL.json|--preset NAME --gpu NAME --gpus N [options]
                                           every data x tensor x pipeline split of the GPUs
                                           that the model takes, ranked by step time, with
                                           memory per GPU and the step's breakdown
  dlcost timeline MODEL.json|--preset NAME [options] [--csv|--json]
                                           the step's memory over time: one line per op
                                           event (forward, recomputation, backward, optimizer
                                           step), stacked by term, the peak named; with
                                           --measured SNAPSHOT.pickle (torch.cuda.memory.
                                           _dump_snapshot) the run's active memory beside it:
                                           both peaks, their difference, what is not modelled
                                           (--csv then prints the measured curve);
                                           --device N reads GPU N of a snapshot of several
                                           (default: the one with the most trace events)
)" + serveSimUsage() +
         R"(  dlcost links                             the links between GPUs and nodes, and the dated
                                           list prices per GPU-hour
  dlcost gpus                              list the GPU presets
  dlcost presets                           list the built-in presets
  dlcost preset NAME                       print a preset's model JSON
  dlcost schema [--json]                   the workload fields: flags, ranges, defaults
  dlcost --help | --version

)";
}

/// How numbers are written, --task and the output flags, and the exit status.
static std::string outputUsage() {
  return R"(
numbers: spaces around them are ignored; 4, +4, 2.0, 1e3 and .5 are numbers (no hex,
separators, inf or nan); integer fields take any exact whole value (2.0 = 2, 1e3 = 1000,
2.5 is refused); byte sizes may carry a unit: 1.5GiB, 800MB (B, kB, MB, GB, TB, KiB, MiB,
GiB, TiB). The page reads its fields by the same rule.

task:
  --task NAME               start the workload from a task's settings, as the page's task
                            menu does (train, infer; for transformers pretrain, lora,
                            qlora; see `dlcost schema --json` "tasks"); the flags above
                            override them. The page's first screen for a preset is
                            `--task train --memory-gib 24` (schema "start")

output:
  --sort FIELD[:asc|:desc]  compare: )" +
         sortFieldList() + R"(
                            (default samples_per_s); FIELD alone puts what fits first, then
                            the best value; :asc or :desc orders by the value alone
  --units binary|decimal    human output in GiB (2^30 B) or GB (10^9 B); default binary
  --approximate             read a config.json of a model_type dlcost does not count
                            exactly as a generic decoder (figures marked approximate)
  --text-only               read a vision-language config (or preset) as its language
                            model alone, without vision tower and projector (stated)
  --json                    print the report as JSON (exact bytes and counts)
  --explain                 also show how every figure was computed and what dominates it
                            (with --json: adds "explanations" and "dominant")
  --lang en|zh              language of --explain (and of share links made by `link`)

exit status: 0 success, 2 bad input or usage (the message names the field), 1 internal error
)";
}

std::string usageText() {
  return commandsUsage() + workloadHelp() + outputUsage();
}

namespace {

/// `--device N`: a CUDA device index, written as decimal digits (0 to 1048576, as many as a
/// snapshot may name).
int parseDevice(const std::string& text) {
  constexpr long kMaxDevice = 1L << 20;
  const bool digits = !text.empty() && text.size() <= 7 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stol(text) > kMaxDevice) {
    throw UsageError{"--device must be a device index 0 to " + std::to_string(kMaxDevice) +
                     ", not '" + text + "'"};
  }
  return static_cast<int>(std::stol(text));
}

/// The switch a flag that takes no value sets, or null.
bool Options::*switchFlag(const std::string& flag) {
  static const std::pair<const char*, bool Options::*> kSwitches[] = {
      {"--json", &Options::json},           {"--approximate", &Options::approximate},
      {"--text-only", &Options::text_only}, {"--csv", &Options::csv},
      {"--decode", &Options::decode},       {"--explain", &Options::explain}};
  for (const auto& [name, member] : kSwitches)
    if (flag == name) return member;
  return nullptr;
}

/// The option a flag whose value is kept as written sets, or null.
std::optional<std::string> Options::*textFlag(const std::string& flag) {
  static const std::pair<const char*, std::optional<std::string> Options::*> kTexts[] = {
      {"--trace", &Options::trace},     {"--measured", &Options::measured},
      {"--batches", &Options::batches}, {"--contexts", &Options::contexts},
      {"--preset", &Options::preset},   {"--hf", &Options::hf},
      {"--gguf", &Options::gguf},       {"--onnx", &Options::onnx},
      {"--weights", &Options::weights}, {"--task", &Options::task},
      {"--link", &Options::link}};
  for (const auto& [name, member] : kTexts)
    if (flag == name) return member;
  return nullptr;
}

/// The flags whose value is checked (--device, --sort, --lang, --units) and the workload's
/// fields; false for any other.
template <typename Value>
bool readCheckedFlag(const std::string& a, Value& value, Options& o) {
  if (a == "--device") {
    o.device = parseDevice(value(a));
  } else if (a == "--sort") {
    o.sort = value(a);
  } else if (a == "--lang") {
    o.lang = value(a);
    if (*o.lang != "en" && *o.lang != "zh") throw UsageError{"--lang must be en or zh"};
  } else if (a == "--units") {
    const std::string u = value(a);
    auto parsed = parseByteUnits(u);
    if (!parsed) throw UsageError{"--units must be binary or decimal, not '" + u + "'"};
    o.units = *parsed;
    o.units_given = true;
  } else if (const WorkloadField* f = findWorkloadFlag(a)) {
    // A boolean flag takes no value: its presence sets the field.
    o.workload[f->key] = f->type == FieldType::kBoolean ? "true" : value(a);
  } else {
    return false;
  }
  return true;
}

}  // namespace

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
  if (!knownCommand(o.command)) {
    throw UsageError{"unknown command '" + o.command + "' (try dlcost --help)"};
  }
  auto value = [&](const std::string& flag) -> std::string {
    if (i >= args.size()) throw UsageError{flag + " needs a value"};
    return args[i++];
  };
  while (i < args.size()) {
    const std::string a = args[i++];
    if (bool Options::*on = switchFlag(a)) {
      o.*on = true;
    } else if (const std::string* key = loadFlagKey(a)) {
      o.load[*key] = value(a);
    } else if (std::optional<std::string> Options::*text = textFlag(a)) {
      o.*text = value(a);
    } else if (!readCheckedFlag(a, value, o)) {
      if (a.rfind("--", 0) == 0) throw UsageError{"unknown option '" + a + "' (try dlcost --help)"};
      o.positional.push_back(a);
    }
  }
  return o;
}

}  // namespace dlcost::cli
