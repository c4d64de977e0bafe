// Prints a serving plan (see serving_print.hpp).
#include "serving_print.hpp"

#include "table.hpp"

namespace dlcost::cli {

namespace {

void memory(std::ostream& out, const char* title, const MemoryBreakdown& m, ByteUnits units) {
  out << "  " << title << ": " << formatBytes(m.total, units) << "\n";
  for (const MemoryTerm& t : m.terms) {
    if (t.bytes == 0 && t.key != MemoryKey::kKvCache) continue;
    out << "    " << memoryKeyLabel(t.key, Mode::kInfer) << ": " << formatBytes(t.bytes, units)
        << "\n";
  }
}

}  // namespace

void printServing(std::ostream& out, const ServingPlan& p, ByteUnits units) {
  out << "\nserving (" << engineName(p.engine) << "): " << p.users << " user"
      << (p.users == 1 ? "" : "s") << " x " << p.context << " tokens "
      << (p.fits ? "fit" : "do NOT fit") << "; at most " << p.max_users << " users\n";
  if (p.capacity_bytes > 0) {
    out << (p.on_cpu ? "  system RAM " : "  GPU ") << formatBytes(p.capacity_bytes, units)
        << (p.on_cpu ? ", usable " : ", engine budget ") << formatBytes(p.budget_bytes, units)
        << "\n";
  }
  memory(out, p.on_cpu ? "in system RAM (CPU)" : "on the GPU", p.device, units);
  if (p.engine == Engine::kVllm || p.engine == Engine::kSglang || p.engine == Engine::kTrtllm) {
    // kv_tokens is vLLM's "GPU KV cache size": with several KV cache groups (sliding-window
    // models) the blocks are shared among the groups.
    out << "  KV pool: " << p.num_blocks << " blocks of " << p.block_size
        << " tokens; KV cache size " << p.kv_tokens << " tokens; max concurrency at " << p.context
        << " tokens: " << fixed(p.max_concurrency, 2) << "x";
    if (p.max_num_seqs > 0) out << " (max_num_seqs " << p.max_num_seqs << ")";
    out << "\n";
  }
  if (!p.stage_layers.empty()) {
    out << "  pipeline: " << p.stage_layers.size() << " stages of";
    for (size_t i = 0; i < p.stage_layers.size(); ++i) out << (i ? ", " : " ") << p.stage_layers[i];
    out << " layers; the pool is stage " << p.limiting_stage << "'s (the fewest blocks), shown\n";
  }
  if (p.engine == Engine::kLlamaCpp && p.on_cpu) {
    out << "  n_ctx " << p.n_ctx << ", every layer on the CPU (-ngl 0)\n";
  } else if (p.engine == Engine::kLlamaCpp) {
    out << "  n_ctx " << p.n_ctx << ", -ngl " << p.gpu_layers << " (of " << p.layers
        << " layers + the output layer)\n";
    memory(out, "in system RAM", p.host, units);
  }
  if (p.speed.itl_s > 0) {
    // ttft_s is 0 only without a published compute rate: the prefill's time is unknown.
    const ServingSpeed& s = p.speed;
    const TimeKind all = s.users > 1 ? TimeKind::kServingThroughput : TimeKind::kDecode;
    out << "  speed: time to first token "
        << (s.ttft_s > 0 ? approx(s.ttft_s, TimeKind::kServingLatency, false, 1, 1e3) + " ms"
                         : "unavailable")
        << "; inter-token latency " << approx(s.itl_s, TimeKind::kDecode, false, 2, 1e3)
        << " ms\n         " << approx(s.tokens_per_s_per_user, TimeKind::kDecode, true, 1)
        << " tokens/s per user, " << approx(s.tokens_per_s, all, true, 1) << " in all (" << s.bound
        << "-bound)\n";
    if (s.tokens_per_step > 0) {
      out << "  speculative decoding: " << fixed(s.tokens_per_step, 2)
          << " tokens a step per user; a step is the draft's forwards " << fixed(s.draft_s * 1e3, 2)
          << " ms + the model's check " << fixed(s.verify_s * 1e3, 2) << " ms\n";
    }
    if (p.speed.prefill_copy_bytes > 0) {
      out << "  prompt: " << formatBytes(p.speed.prefill_copy_bytes, units)
          << " of CPU-held weights copied to the GPU (in the time to first token)\n";
    }
  }
  out << "  launch: " << p.command << "\n";
  for (const std::string& n : p.notes) out << "  note: " << n << "\n";
}

void printServingSweep(std::ostream& out, const nlohmann::json& sweep, ByteUnits units) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : sweep["points"]) {
    std::vector<std::string> row = {
        std::to_string(p["context"].get<int64_t>()), std::to_string(p["users"].get<int64_t>()),
        p["fits"].get<bool>() ? "yes" : "no", formatBytes(p["device_bytes"].get<int64_t>(), units)};
    if (p.contains("speed")) {
      const auto& s = p["speed"];
      row.push_back(fixed(s["tokens_per_s_per_user"].get<double>(), 1));
      row.push_back(fixed(s["tokens_per_s"].get<double>(), 1));
      row.push_back(fixed(s["itl_s"].get<double>() * 1e3, 2) + " ms");
      row.push_back(s["bound"].get<std::string>());
    }
    rows.push_back(std::move(row));
  }
  out << "serving sweep (" << sweep["engine"].get<std::string>() << ")\n";
  printTable(out,
             {"context", "users", "fits", "GPU memory", "tok/s/user", "tok/s", "latency", "bound"},
             rows, 3);
}

}  // namespace dlcost::cli
