#pragma once
// How each figure of a report was computed, in words and symbols with the inputs' values,
// and which layers or terms dominate. One source for the CLI's --explain and the page.

#include <optional>
#include <string>
#include <vector>

#include "dlcost/base/units.hpp"
#include "dlcost/types/model.hpp"
#include "dlcost/types/report.hpp"

namespace dlcost {

enum class Language { kEnglish, kChinese };

/// "en" or "zh" (also "zh-CN"); nullopt otherwise.
std::optional<Language> parseLanguage(const std::string& name);

/// One input of a formula: its symbol, what it is, and its value with its unit.
struct FormulaTerm {
  std::string symbol;  ///< e.g. "P"
  std::string label;   ///< e.g. "trainable parameters"
  std::string value;   ///< e.g. "25,557,032"
};

/// The derivation of one figure.
struct Explanation {
  /// JSON pointer of the figure in the report JSON, e.g. "/memory/optimizer_states" or
  /// "/layers/3/macs", so a front end can attach it to the number it shows.
  std::string id;
  std::string title;    ///< e.g. "Optimizer states"
  std::string formula;  ///< symbols, e.g. "k × P × b"
  std::vector<FormulaTerm> inputs;
  std::string result;  ///< e.g. "204,456,256 B (195.0 MiB)"
  /// The whole derivation with numbers, e.g. "optimizer states = 2 states (adam) ×
  /// 25,557,032 trainable parameters × 4 B (fp32) = 204,456,256 B (195.0 MiB)".
  std::string text;
};

/// Explanations of the totals, every memory line, the largest batch, the GPU fit (when the
/// report has one) and each layer-graph row's params, MACs and activation bytes. Every
/// number in the texts is the report's own.
std::vector<Explanation> explainReport(const Model& model, const Report& report, Language language,
                                       ByteUnits units);

/// A quantity that a few layers of one kind account for most of.
struct Dominance {
  std::string quantity;    ///< "params", "macs" or "activation_bytes"
  std::string layer_type;  ///< e.g. "linear"
  int64_t layers = 0;      ///< how many layers of that type
  double share = 0;        ///< of the report's total of the quantity, 0..1
  std::vector<std::string> names;
  std::string text;  ///< e.g. "3 linear layers hold 96.1 % of the parameters"
};

/// For params, MACs and activation bytes: the layer type with the largest share; plus the
/// largest memory line's share of the total (quantity "memory", layer_type = the line).
std::vector<Dominance> dominantTerms(const Report& report, Language language);

}  // namespace dlcost
