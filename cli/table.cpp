#include "table.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <string>
#include <vector>

namespace dlcost::cli {

namespace {

void printRow(std::ostream& out, const std::vector<std::string>& cells,
              const std::vector<size_t>& widths) {
  for (size_t c = 0; c < cells.size(); ++c) {
    const bool left = c < 3;
    out << (left ? std::left : std::right) << std::setw(static_cast<int>(widths[c])) << cells[c];
    out << (c + 1 < cells.size() ? "  " : "\n");
  }
}

/// What only transformers report: parameters by component, per-token figures, phases.
void printTransformer(std::ostream& out, const Report& r) {
  const TransformerSummary& t = *r.transformer;
  const TransformerParams& p = t.params;
  out << "  by component     embeddings " << formatCount(p.embeddings) << ", attention "
      << formatCount(p.attention) << ", MLP " << formatCount(p.mlp) << ", norms "
      << formatCount(p.norms) << ", LM head " << formatCount(p.lm_head);
  if (p.other) out << ", other " << formatCount(p.other);
  out << "\n";
  if (p.active_per_token != p.total)
    out << "  active per token " << groupDigits(p.active_per_token) << " ("
        << formatCount(p.active_per_token) << ")\n";
  if (r.params.adapters)
    out << "  LoRA adapters    " << groupDigits(r.params.adapters) << " (trainable)\n";
  const bool generates = r.workload.mode != Mode::kTrain && t.kv_cache_bytes_per_token > 0;
  out << "tokens           " << t.seq_len << (generates ? " prompt" : " per sequence");
  if (generates) out << " + " << t.generated_tokens << " generated";
  out << "; forward " << formatCount(t.forward_flops_per_token) << "FLOPs per token at "
      << t.context_tokens << " tokens of context\n";
  for (const PhaseWork& ph : r.phases) {
    out << "phase " << std::left << std::setw(11) << ph.name << std::right << formatCount(ph.flops)
        << "FLOPs, " << formatBytes(ph.bytes, ByteUnits::kDecimal) << " moved, " << ph.tokens
        << " tokens\n";
  }
}

}  // namespace

void printReport(std::ostream& out, const Report& r, ByteUnits units) {
  const Workload& w = r.workload;
  out << r.model_name << "  (" << modeName(w.mode) << ", batch " << w.batch << ", "
      << precisionName(w.precision);
  if (w.mode == Mode::kTrain) out << ", " << optimizerName(w.optimizer);
  if (r.transformer && w.finetune != Finetune::kNone)
    out << ", finetune " << finetuneName(w.finetune);
  if (r.transformer) out << ", " << attentionName(w.attention) << " attention";
  if (r.transformer && w.mode == Mode::kTrain && w.recompute != Recompute::kNone)
    out << ", " << recomputeName(w.recompute) << " recomputation";
  out << ")\n\n";

  const std::vector<std::string> head = {"layer",  "type", "output",
                                         "params", "MACs", "activations"};
  std::vector<std::vector<std::string>> rows;
  // Transformer layers repeat: identical rows "layers.7.mlp" fold into one
  // "layers.0-31.mlp (x32)" row.
  struct Fold {
    size_t row;
    std::string prefix, suffix, first, last;
    int count;
  };
  std::vector<Fold> folds;
  std::map<std::string, size_t> fold_of;
  for (const LayerReport& l : r.layers) {
    const size_t dot = l.name.rfind('.');
    const size_t num =
        dot == std::string::npos || dot == 0 ? std::string::npos : l.name.rfind('.', dot - 1);
    const std::string index = num == std::string::npos ? "" : l.name.substr(num + 1, dot - num - 1);
    const bool numbered = r.transformer && !index.empty() &&
                          index.find_first_not_of("0123456789") == std::string::npos;
    if (numbered) {
      const std::string prefix = l.name.substr(0, num + 1), suffix = l.name.substr(dot);
      const std::string key = prefix + "*" + suffix + "|" + l.type + "|" +
                              std::to_string(l.params) + "|" + std::to_string(l.macs) + "|" +
                              std::to_string(l.activation_bytes);
      auto it = fold_of.find(key);
      if (it != fold_of.end()) {
        Fold& f = folds[it->second];
        f.last = index;
        ++f.count;
        rows[f.row][0] =
            f.prefix + f.first + "-" + f.last + f.suffix + " (x" + std::to_string(f.count) + ")";
        continue;
      }
      fold_of[key] = folds.size();
      folds.push_back({rows.size(), prefix, suffix, index, index, 1});
    }
    rows.push_back({l.name, l.type + (l.inplace ? " (in-place)" : ""),
                    shapeToString(l.output_shape), groupDigits(l.params), groupDigits(l.macs),
                    formatBytes(l.activation_bytes, units)});
  }
  std::vector<size_t> widths(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    widths[c] = head[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  printRow(out, head, widths);
  for (const auto& row : rows) printRow(out, row, widths);

  const char* unit_note = units == ByteUnits::kBinary ? "binary units: 1 GiB = 2^30 bytes"
                                                      : "decimal units: 1 GB = 10^9 bytes";
  out << "\nparameters       " << groupDigits(r.params.total) << " (" << formatCount(r.params.total)
      << "), trainable " << groupDigits(r.params.trainable) << ", buffers "
      << groupDigits(r.params.buffers) << "\n";
  out << "MACs forward     " << groupDigits(r.macs.forward) << " (" << formatCount(r.macs.forward)
      << "MACs = " << formatCount(2 * r.macs.forward) << "FLOPs; FLOPs = 2 x MACs)\n";
  if (w.mode == Mode::kTrain) {
    out << "MACs backward    " << groupDigits(r.macs.backward) << " ("
        << formatCount(r.macs.backward) << "MACs)\n";
  }
  if (r.transformer) printTransformer(out, r);
  const MemoryBreakdown& m = r.memory;
  out << "\nmemory (" << unit_note << ")\n";
  auto line = [&](const char* label, int64_t bytes) {
    out << "  " << std::left << std::setw(22) << label << std::right << std::setw(12)
        << formatBytes(bytes, units) << "  " << std::setw(16) << groupDigits(bytes) << " B\n";
  };
  line("weights", m.weights);
  if (m.quant_scales) line("quantization scales", m.quant_scales);
  if (m.buffers) line("buffers", m.buffers);
  if (w.mode == Mode::kTrain) {
    const bool adapters = m.adapter_weights > 0;
    if (!adapters || m.gradients) line("gradients", m.gradients);
    if (m.master_weights) line("master weights (fp32)", m.master_weights);
    if (!adapters || m.optimizer_states) line("optimizer states", m.optimizer_states);
    if (adapters) {
      line("LoRA adapter weights", m.adapter_weights);
      line("LoRA adapter gradients", m.adapter_gradients);
      line("LoRA optimizer states", m.adapter_optimizer_states);
    }
    line("activations (saved)", m.activations);
    line("backward peak extra", m.activation_gradients);
  } else {
    line("activations (peak)", m.activations);
    if (r.transformer && r.transformer->kv_cache_bytes_per_token) line("KV cache", m.kv_cache);
  }
  if (m.overhead) line("overhead", m.overhead);
  line("total", m.total);
  out << "  = fixed " << formatBytes(m.fixed, units) << " + batch " << w.batch << " x "
      << formatBytes(m.per_sample, units) << " per sample\n";
  if (r.max_batch && w.memory_bytes) {
    out << "\nlargest batch in " << formatBytes(*w.memory_bytes, units) << ": " << *r.max_batch
        << "\n";
  }
  for (const auto& warning : r.warnings) out << "warning: " << warning << "\n";
}

}  // namespace dlcost::cli
