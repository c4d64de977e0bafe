#include "table.hpp"

#include <algorithm>
#include <iomanip>
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

}  // namespace

void printReport(std::ostream& out, const Report& r, ByteUnits units) {
  const Workload& w = r.workload;
  out << r.model_name << "  (" << modeName(w.mode) << ", batch " << w.batch << ", "
      << precisionName(w.precision);
  if (w.mode == Mode::kTrain) out << ", " << optimizerName(w.optimizer);
  out << ")\n\n";

  const std::vector<std::string> head = {"layer",  "type", "output",
                                         "params", "MACs", "activations"};
  std::vector<std::vector<std::string>> rows;
  for (const LayerReport& l : r.layers) {
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
  const MemoryBreakdown& m = r.memory;
  out << "\nmemory (" << unit_note << ")\n";
  auto line = [&](const char* label, int64_t bytes) {
    out << "  " << std::left << std::setw(22) << label << std::right << std::setw(12)
        << formatBytes(bytes, units) << "  " << std::setw(16) << groupDigits(bytes) << " B\n";
  };
  line("weights", m.weights);
  if (m.buffers) line("buffers", m.buffers);
  if (w.mode == Mode::kTrain) {
    line("gradients", m.gradients);
    if (m.master_weights) line("master weights (fp32)", m.master_weights);
    line("optimizer states", m.optimizer_states);
    line("activations (saved)", m.activations);
    line("backward peak extra", m.activation_gradients);
  } else {
    line("activations (peak)", m.activations);
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
