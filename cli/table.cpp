#include "table.hpp"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "dlcost/gpu/gpu_compute.hpp"

namespace dlcost::cli {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string approx(double v, TimeKind kind, bool rate, int digits, double scale) {
  const std::array<double, 2> r = timeRange(kind, v, rate);
  return "≈ " + fixed(v * scale, digits) + " (" + fixed(r[0] * scale, digits) + "–" +
         fixed(r[1] * scale, digits) + ")";
}

std::string approxSeconds(double s, TimeKind kind) {
  const double scale = s >= 1 ? 1 : s >= 1e-3 ? 1e3 : 1e6;
  const char* unit = s >= 1 ? " s" : s >= 1e-3 ? " ms" : " us";
  return approx(s, kind, false, 2, scale) + unit;
}

void printTable(std::ostream& out, const std::vector<std::string>& head,
                const std::vector<std::vector<std::string>>& rows, size_t left_columns,
                const std::string& indent) {
  std::vector<size_t> widths(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    widths[c] = head[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    out << indent;
    for (size_t c = 0; c < cells.size(); ++c) {
      out << (c < left_columns ? std::left : std::right) << std::setw(static_cast<int>(widths[c]))
          << cells[c] << (c + 1 < cells.size() ? "  " : "\n");
    }
  };
  line(head);
  for (const auto& row : rows) line(row);
}

namespace {

void printRow(std::ostream& out, const std::vector<std::string>& cells,
              const std::vector<size_t>& widths) {
  for (size_t c = 0; c < cells.size(); ++c) {
    const bool left = c < 3;
    out << (left ? std::left : std::right) << std::setw(static_cast<int>(widths[c])) << cells[c];
    out << (c + 1 < cells.size() ? "  " : "\n");
  }
}

/// Lines a table leaves out when they hold nothing (no batchnorm, no overhead).
bool optionalWhenZero(MemoryKey key) {
  return key == MemoryKey::kBuffers || key == MemoryKey::kQuantScales ||
         key == MemoryKey::kOverhead;
}

std::string seconds(double s) {
  if (s >= 1) return fixed(s, 2) + " s";
  if (s >= 1e-3) return fixed(s * 1e3, 2) + " ms";
  return fixed(s * 1e6, 1) + " us";
}

// printFit prints in sections, each a function below: the per-GPU memory against the usable
// memory, the step time and its parts, the network and the whole run, then the advice.

/// The heading and the per-GPU memory terms against what the GPU can use.
void printFitMemory(std::ostream& out, const GpuFit& f, const Workload& w, ByteUnits units,
                    bool serving) {
  const Parallelism& p = w.hardware.parallel;
  out << "\non " << f.gpu.name;
  if (p.gpus > 1) {
    out << " x " << p.gpus << " (data parallel " << f.data_parallel << ", tp " << p.tp << ", pp "
        << p.pp << (p.cp > 1 ? ", cp " + std::to_string(p.cp) : std::string()) << ", ZeRO "
        << p.zero << (p.sp ? ", sequence parallel" : "") << ")";
  }
  out << ": " << (f.fits ? "fits" : "DOES NOT FIT") << "\n";
  auto line = [&](const char* label, int64_t bytes) {
    out << "  " << std::left << std::setw(22) << label << std::right << std::setw(12)
        << formatBytes(bytes, units) << "\n";
  };
  const PerGpuMemory& m = f.per_gpu;
  for (const MemoryTerm& term : m.terms) {
    if (term.bytes || !optionalWhenZero(term.key))
      line(memoryKeyLabel(term.key, w.mode), term.bytes);
  }
  line("per GPU total", m.total);
  if (!m.phases.empty()) {
    line("  backward phase", m.phases[0].bytes);
    line("  optimizer step phase", m.phases[1].bytes);
  }
  out << "  usable " << formatBytes(f.usable_bytes, units)
      << (f.gpu.cpu ? " = system RAM " : " = nvidia-smi ") << formatBytes(f.capacity_bytes, units)
      << (f.gpu.cpu ? " - OS reserve " : " - reserve ") << formatBytes(f.reserve_bytes, units)
      << " - fragmentation " << formatBytes(f.fragmentation_bytes, units) << "; headroom "
      << (f.headroom_bytes < 0 ? "-" : "") << formatBytes(std::llabs(f.headroom_bytes), units)
      << "\n";
  if (!serving) out << "  largest batch that fits: " << f.max_batch << "\n";
}

/// The step time from the time model, and the parts it adds up. With a serving plan there is
/// none to print: the plan gives users, time to first token and tokens/s.
void printStepTime(std::ostream& out, const GpuFit& f, const Workload& w, bool serving) {
  if (serving) return;
  if (!gpuComputePublished(f.gpu)) {
    out << "  step time unavailable: " << f.gpu.name << " has no published compute rate\n";
    return;
  }
  const TimeKind kind = w.mode == Mode::kTrain ? TimeKind::kTraining : TimeKind::kPrefill;
  out << "  step time " << approxSeconds(f.time.step_s, kind) << " (" << mathFormatName(f.math)
      << " peak " << fixed(f.peak_flops / 1e12, 1) << " TFLOPS x " << fixed(f.utilization, 2)
      << ", " << fixed(f.gpu.bandwidth_bytes_per_s / 1e9, 0) << " GB/s; " << stepBound(f.time)
      << "-bound), " << approx(f.time.samples_per_s, kind, true, 1) << " samples/s";
  if (f.time.tokens_per_s) {
    out << ", " << approx(*f.time.tokens_per_s, TimeKind::kDecode, true, 1) << " tokens/s";
  }
  out << "\n";
  const StepBreakdown& s = f.step;
  // The parts a layout has: a single GPU has no communication and no bubble to list.
  out << "  = compute " << seconds(s.compute_s);
  const std::pair<const char*, double> parts[] = {
      {"tp comm", s.tp_comm_s},           {"pp comm", s.pp_comm_s},
      {"ep comm", s.ep_comm_s},           {"cp ring (exposed)", s.cp_comm_s},
      {"dp comm (exposed)", s.dp_comm_s}, {"bubble", s.bubble_s},
      {"optimizer", s.optimizer_s}};
  for (const auto& [part, time_s] : parts) {
    if (time_s > 0) out << " + " << part << " " << seconds(time_s);
  }
  out << "; MFU " << fixed(100 * s.mfu, 1) << " %\n";
}

/// The nodes and links of a multi-GPU layout, the whole run's cost, and throughput per dollar
/// and per watt.
void printRunAndValue(std::ostream& out, const GpuFit& f, const Workload& w, bool serving) {
  if (w.hardware.parallel.gpus > 1) {
    const Network& n = f.network;
    out << "  " << n.nodes << " node(s) of " << n.gpus_per_node << " GPUs";
    if (n.intra) out << "; inside a node " << n.intra->name;
    if (n.inter) out << "; between nodes " << n.inter->name;
    out << "\n";
  }
  if (f.run) {
    const RunCost& r = *f.run;
    out << "  run: " << groupDigits(r.steps) << " steps, "
        << approx(r.wall_s / 86400, TimeKind::kTraining, false, 2) << " days, "
        << fixed(r.gpu_hours, 0) << " GPU-hours";
    if (r.cost_usd) {
      const std::array<double, 2> range = timeRange(TimeKind::kTraining, *r.cost_usd, false);
      out << ", ≈ $" << groupDigits(static_cast<int64_t>(*r.cost_usd)) << " ($"
          << groupDigits(static_cast<int64_t>(range[0])) << "–$"
          << groupDigits(static_cast<int64_t>(range[1])) << ") at $" << fixed(*r.price, 3)
          << "/GPU-hour";
      if (r.list_price)
        out << " (list price " << r.list_price->date << ": " << r.list_price->offer << ")";
    }
    out << ", " << fixed(r.energy_kwh, 0) << " kWh at TDP; MFU " << fixed(100 * r.mfu, 1) << " %\n";
  }
  // Samples/s per dollar and per watt are the training-style batch's: not shown with a serving
  // plan (one figure per question).
  if (serving || !gpuComputePublished(f.gpu)) return;
  out << "  ";
  if (f.samples_per_s_per_1000usd) {
    out << fixed(*f.samples_per_s_per_1000usd, 2) << " samples/s per $1000, ";
  }
  out << fixed(f.samples_per_s_per_watt, 3) << " samples/s per W\n";
}

/// `serving`: the report has a serving plan, which answers "how many users" and "how fast";
/// the training-style batch and step are then left out (one figure per question).
void printFit(std::ostream& out, const GpuFit& f, const Workload& w, ByteUnits units,
              bool serving) {
  printFitMemory(out, f, w, units, serving);
  printStepTime(out, f, w, serving);
  printRunAndValue(out, f, w, serving);
  for (const auto& n : f.notes) out << "  note: " << n << "\n";
  if (!f.advice.empty()) {
    out << "\nto make it fit (each checked by re-estimating):\n";
    for (const Advice& a : f.advice) {
      out << "  - " << a.change << ": " << formatBytes(a.per_gpu_bytes, units) << " per GPU\n";
    }
  } else if (!f.fits) {
    out << "\nno single change among batch, precision, optimizer, ZeRO and GPU count makes it "
           "fit\n";
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
  out << "tokens           ";
  if (generates && r.workload.cached_tokens > 0) out << r.workload.cached_tokens << " cached + ";
  out << t.seq_len << (generates ? " prompt" : " per sequence");
  if (generates) out << " + " << t.generated_tokens << " generated";
  out << "; forward " << formatCount(t.forward_flops_per_token) << "FLOPs per token at "
      << t.context_tokens << " tokens of context\n";
  for (const PhaseWork& ph : r.phases) {
    out << "phase " << std::left << std::setw(11) << ph.name << std::right << formatCount(ph.flops)
        << "FLOPs, " << formatBytes(ph.bytes, ByteUnits::kDecimal) << " moved, " << ph.tokens
        << " tokens\n";
  }
}

// printReport prints in sections, each a function below: the heading, the table of layers
// (repeated transformer layers folded into one row), the totals, then the memory terms.

/// The model and the workload settings that change its figures.
void printHeading(std::ostream& out, const Report& r) {
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
}

/// The rows of the layer table. Transformer layers repeat: identical rows "layers.7.mlp"
/// fold into one "layers.0-31.mlp (x32)" row.
std::vector<std::vector<std::string>> layerRows(const Report& r, ByteUnits units) {
  std::vector<std::vector<std::string>> rows;
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
  return rows;
}

void printLayerTable(std::ostream& out, const Report& r, ByteUnits units) {
  const std::vector<std::string> head = {"layer",  "type", "output",
                                         "params", "MACs", "activations"};
  const std::vector<std::vector<std::string>> rows = layerRows(r, units);
  std::vector<size_t> widths(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    widths[c] = head[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  printRow(out, head, widths);
  for (const auto& row : rows) printRow(out, row, widths);
}

/// Parameters and MACs of the whole model (and a transformer's own figures).
void printTotals(std::ostream& out, const Report& r) {
  out << "\nparameters       " << groupDigits(r.params.total) << " (" << formatCount(r.params.total)
      << "), trainable " << groupDigits(r.params.trainable) << ", buffers "
      << groupDigits(r.params.buffers) << "\n";
  out << "MACs forward     " << groupDigits(r.macs.forward) << " ("
      << formatCount(r.macs.forward, "MACs") << " = "
      << formatCount(flopsOf(r.macs.forward), "FLOPs") << "; FLOPs = 2 x MACs)\n";
  if (r.workload.mode == Mode::kTrain) {
    out << "MACs backward    " << groupDigits(r.macs.backward) << " ("
        << formatCount(r.macs.backward, "MACs") << ")\n";
  }
  if (r.transformer) printTransformer(out, r);
}

/// The memory terms, their total and (training) its phases.
void printMemory(std::ostream& out, const Report& r, ByteUnits units) {
  const Workload& w = r.workload;
  const char* unit_note = units == ByteUnits::kBinary ? "binary units: 1 GiB = 2^30 bytes"
                                                      : "decimal units: 1 GB = 10^9 bytes";
  const MemoryBreakdown& m = r.memory;
  out << "\nmemory (" << unit_note << ")\n";
  auto line = [&](const char* label, int64_t bytes) {
    out << "  " << std::left << std::setw(22) << label << std::right << std::setw(12)
        << formatBytes(bytes, units) << "  " << std::setw(16) << groupDigits(bytes) << " B\n";
  };
  for (const MemoryTerm& term : m.terms) {
    if (term.bytes || !optionalWhenZero(term.key))
      line(memoryKeyLabel(term.key, w.mode), term.bytes);
  }
  line("total", m.total);
  out << "  = fixed " << formatBytes(m.fixed, units) << " + batch " << w.batch << " x "
      << formatBytes(m.per_sample, units) << " per sample";
  if (!m.phases.empty()) {
    // Training: the total is the larger phase's; each phase counts its own terms.
    out << ", the " << (m.peak_phase == MemoryPhase::kBackward ? "backward" : "optimizer step")
        << " phase's peak\n";
    line("  backward phase", m.phases[0].bytes);
    line("  optimizer step phase", m.phases[1].bytes);
    if (m.first_step_total) line("  first step", *m.first_step_total);
  } else {
    out << "\n";
  }
}

}  // namespace

void printReport(std::ostream& out, const Report& r, ByteUnits units) {
  const Workload& w = r.workload;
  printHeading(out, r);
  printLayerTable(out, r, units);
  printTotals(out, r);
  printMemory(out, r, units);
  if (r.max_batch && w.memory_bytes) {
    out << "\nlargest batch in " << formatBytes(*w.memory_bytes, units) << ": " << *r.max_batch
        << "\n";
  }
  if (r.gpu_fit) printFit(out, *r.gpu_fit, w, units, r.serving.has_value());
  for (const auto& warning : r.warnings) out << "warning: " << warning << "\n";
}

void printGpus(std::ostream& out, const nlohmann::json& table, ByteUnits units) {
  const std::vector<std::string> head = {"id",          "name",          "memory",     "bandwidth",
                                         "FP32 TFLOPS", "16-bit TFLOPS", "FP8 TFLOPS", "TDP W",
                                         "price USD",   "year"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : table) {
    const double bf16 = g["bf16_flops"].get<double>(), fp16 = g["fp16_flops"].get<double>();
    // fp32 0 means the vendor publishes no compute rate (gpu.hpp): every rate is unknown,
    // not "no fast path", so none is printed as a number.
    const bool rated = g["fp32_flops"].get<double>() > 0;
    const auto tflops = [rated](double flops) { return rated ? fixed(flops / 1e12, 1) : "-"; };
    const auto published = [](int value) { return value ? std::to_string(value) : "-"; };
    rows.push_back({g["id"].get<std::string>(), g["name"].get<std::string>(),
                    formatBytes(g["capacity_bytes"].get<int64_t>(), units),
                    fixed(g["bandwidth_bytes_per_s"].get<double>() / 1e9, 0) + " GB/s",
                    tflops(g["fp32_flops"].get<double>()), tflops(std::max(fp16, bf16)),
                    tflops(g["fp8_flops"].get<double>()), published(g["tdp_watts"].get<int>()),
                    published(g["price_usd"].get<int>()),
                    std::to_string(g["release_year"].get<int>())});
  }
  printTable(out, head, rows, 2);
  out << "\nmemory as nvidia-smi reports it (unified memory: the GPU's default limit; CPU: a "
         "default RAM size, system_ram_gib sets yours); rates "
         "dense, per device, 16-bit with FP32 accumulate (GeForce: half the headline); 0 = no "
         "fast path; - = not published\n";
}

void printCompare(std::ostream& out, const nlohmann::json& result, ByteUnits units) {
  out << result["model"]["name"].get<std::string>() << " on every GPU (sorted by "
      << result["sort"].get<std::string>() << ")\n\n";
  const std::vector<std::string> head = {"gpu",          "fits",    "per GPU",   "usable",
                                         "max batch",    "step",    "samples/s", "tokens/s",
                                         "/s per $1000", "/s per W"};
  std::vector<std::vector<std::string>> rows;
  auto optional = [](const nlohmann::json& v, int digits) {
    return v.is_null() ? std::string("-") : fixed(v.get<double>(), digits);
  };
  for (const auto& r : result["rows"]) {
    rows.push_back({r["gpu"].get<std::string>(), r["fits"].get<bool>() ? "yes" : "no",
                    formatBytes(r["per_gpu_bytes"].get<int64_t>(), units),
                    formatBytes(r["usable_bytes"].get<int64_t>(), units),
                    groupDigits(r["max_batch"].get<int64_t>()),
                    seconds(r["step_time_s"].get<double>()),
                    fixed(r["samples_per_s"].get<double>(), 1), optional(r["tokens_per_s"], 1),
                    optional(r["samples_per_s_per_1000usd"], 2),
                    fixed(r["samples_per_s_per_watt"].get<double>(), 3)});
  }
  printTable(out, head, rows, 1);
  for (const auto& s : result.value("skipped", nlohmann::json::array()))
    out << "left out: " << s["message"].get<std::string>() << "\n";
}

namespace {

/// "8 x 4 x 2", with "(ep 4)", "(cp 2)" and "(v 2)" where the layout splits experts or
/// sequences, or interleaves.
std::string layoutName(const nlohmann::json& r) {
  std::string s = std::to_string(r["dp"].get<int64_t>()) + " x " +
                  std::to_string(r["tp"].get<int64_t>()) + " x " +
                  std::to_string(r["pp"].get<int64_t>());
  const int64_t ep = r.value("ep", int64_t{1}), v = r.value("virtual_stages", int64_t{1});
  const int64_t cp = r.value("cp", int64_t{1});
  if (ep > 1) s += " (ep " + std::to_string(ep) + ")";
  if (cp > 1) s += " (cp " + std::to_string(cp) + ")";
  if (v > 1) s += " (v " + std::to_string(v) + ")";
  return s;
}

}  // namespace

void printLayouts(std::ostream& out, const nlohmann::json& result, ByteUnits units) {
  const nlohmann::json& net = result["network"];
  out << result["model"].get<std::string>() << " on " << result["gpus"].get<int64_t>() << " GPUs ("
      << net["nodes"].get<int64_t>() << " node(s) of " << net["gpus_per_node"].get<int64_t>()
      << ")\n\n";
  // micro: the pipeline's micro-batches, or without a pipeline the gradient accumulation.
  const std::vector<std::string> head = {"dp x tp x pp (ep, cp, v)",
                                         "ZeRO",
                                         "micro",
                                         "fits",
                                         "per GPU",
                                         "step",
                                         "compute",
                                         "tp comm",
                                         "pp comm",
                                         "ep comm",
                                         "cp comm",
                                         "dp comm",
                                         "bubble",
                                         "MFU",
                                         "cost"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : result["rows"]) {
    const auto& s = r["step_time"];
    const auto& run = r["run"];
    const int64_t micro = r["pp"].get<int64_t>() > 1 ? r["microbatches"].get<int64_t>()
                                                     : r["grad_accum"].get<int64_t>();
    rows.push_back({layoutName(r), std::to_string(r["zero"].get<int>()), std::to_string(micro),
                    r["fits"].get<bool>() ? "yes" : "no",
                    formatBytes(r["per_gpu_bytes"].get<int64_t>(), units),
                    seconds(r["step_s"].get<double>()), seconds(s["compute_s"].get<double>()),
                    seconds(s["tp_comm_s"].get<double>()), seconds(s["pp_comm_s"].get<double>()),
                    seconds(s["ep_comm_s"].get<double>()), seconds(s["cp_comm_s"].get<double>()),
                    seconds(s["dp_comm_s"].get<double>()), seconds(s["bubble_s"].get<double>()),
                    fixed(100 * r["mfu"].get<double>(), 1) + " %",
                    run.is_null() || run["cost_usd"].is_null()
                        ? "-"
                        : "$" + groupDigits(static_cast<int64_t>(run["cost_usd"].get<double>()))});
  }
  printTable(out, head, rows, 1);
  for (const auto& r : result["refused"]) {
    out << "not " << layoutName(r) << ": " << r["error"]["path"].get<std::string>() << ": "
        << r["error"]["message"].get<std::string>() << "\n";
  }
  for (const auto& n : result["notes"]) out << "note: " << n.get<std::string>() << "\n";
}

void printLinks(std::ostream& out, const nlohmann::json& links, const nlohmann::json& prices) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& l : links["links"]) {
    rows.push_back({l["id"].get<std::string>(), l["scope"].get<std::string>(),
                    fixed(l["bandwidth_bytes_per_s"].get<double>() / 1e9, 2) + " GB/s",
                    fixed(l["bus_efficiency"].get<double>() * 100, 0) + " %",
                    fixed(l["step_latency_s"].get<double>() * 1e6, 1) + " us",
                    l["source"].get<std::string>()});
  }
  printTable(out, {"link", "scope", "per GPU, each way", "NCCL reaches", "per step", "source"},
             rows, 0);
  out << "\n" << links["convention"].get<std::string>() << "\n\nlist prices (defaults):\n";
  rows.clear();
  for (const auto& p : prices["prices"]) {
    rows.push_back({p["gpu"].get<std::string>(),
                    "$" + fixed(p["usd_per_gpu_hour"].get<double>(), 3) + "/GPU-h",
                    p["date"].get<std::string>(), p["offer"].get<std::string>(),
                    p["source"].get<std::string>()});
  }
  printTable(out, {"gpu", "price", "date", "offer", "source"}, rows, 0);
}

void printSweeps(std::ostream& out, const nlohmann::json& sweeps, ByteUnits units, bool csv) {
  const bool contexts = !sweeps.empty() && sweeps[0].contains("seq_len");
  const bool per_gpu = !sweeps.empty() && sweeps[0].value("per_gpu", false);
  std::vector<std::string> head;
  if (contexts) head.push_back("seq_len");
  for (const char* h :
       {"batch", per_gpu ? "memory_per_gpu" : "memory", "fits", "samples_per_s", "step_time"}) {
    head.push_back(h);
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : sweeps) {
    for (const auto& p : s["points"]) {
      std::vector<std::string> row;
      if (contexts) row.push_back(std::to_string(s["seq_len"].get<int64_t>()));
      row.push_back(std::to_string(p["batch"].get<int64_t>()));
      const int64_t total = p["total"].get<int64_t>();
      row.push_back(csv ? std::to_string(total) : formatBytes(total, units));
      row.push_back(p.contains("fits") ? (p["fits"].get<bool>() ? "yes" : "no") : "");
      const bool timed = p.contains("samples_per_s");
      row.push_back(!timed ? ""
                    : csv  ? std::to_string(p["samples_per_s"].get<double>())
                           : fixed(p["samples_per_s"].get<double>(), 1));
      row.push_back(!timed ? ""
                    : csv  ? std::to_string(p["step_time_s"].get<double>())
                           : seconds(p["step_time_s"].get<double>()));
      rows.push_back(std::move(row));
    }
  }
  if (csv) {
    if (!head.empty()) head[head.size() - 1] = "step_time_s";
    if (contexts ? head.size() > 2 : head.size() > 1) head[contexts ? 2 : 1] += "_bytes";
    for (const auto& line : {head}) {
      for (size_t c = 0; c < line.size(); ++c) out << line[c] << (c + 1 < line.size() ? "," : "\n");
    }
    for (const auto& row : rows) {
      for (size_t c = 0; c < row.size(); ++c) out << row[c] << (c + 1 < row.size() ? "," : "\n");
    }
    return;
  }
  printTable(out, head, rows, 0);
  if (!sweeps.empty()) {
    const auto& s = sweeps[0];
    if (s.contains("memory_bytes")) {
      out << "\ncompared with " << formatBytes(s["memory_bytes"].get<int64_t>(), units)
          << (per_gpu ? " usable per GPU" : "");
      if (s.contains("max_batch")) out << "; largest batch that fits: " << s["max_batch"];
      out << "\n";
    }
    if (s.contains("saturation")) {
      out << "throughput reaches " << fixed(s["saturation"]["share"].get<double>() * 100, 0)
          << " % of its best at batch " << s["saturation"]["batch"] << "\n";
    }
  }
}

}  // namespace dlcost::cli
