// GPUs and hardware settings in JSON: the preset table, custom GPUs, the workload's GPU and
// parallelism fields, and the fit part of the report.

#include "dlcost/gpu/gpu_json.hpp"

#include <cmath>
#include <tuple>

#include "dlcost/types/interconnect.hpp"

#include "dlcost/base/error.hpp"
#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/gpu/gpu_table.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "gpu/gpu_writers.hpp"
#include "memory/memory_json.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

constexpr int64_t kMaxBytes = int64_t{1} << 60;
constexpr double kMaxRate = 1e21;  // operations or bytes per second

std::string presetNames() {
  std::string s;
  for (const Gpu& g : gpuPresets()) s += (s.empty() ? "" : ", ") + g.id;
  return s;
}

const Gpu& requirePreset(const json& v, const std::string& path) {
  if (!v.is_string()) {
    throw InputError(ErrorCode::kType, path,
                     std::string("must be a GPU name or object, not ") + jsonTypeName(v));
  }
  const Gpu* g = findGpu(v.get<std::string>());
  if (!g) {
    throw InputError(ErrorCode::kValue, path,
                     "unknown GPU '" + v.get<std::string>() + "' (known: " + presetNames() + ")");
  }
  return *g;
}

double rate(const ObjectReader& r, const char* key, double fallback) {
  return r.optionalNumber(key, fallback, 0, kMaxRate);
}

}  // namespace

Gpu parseGpu(const json& v, const std::string& path) {
  if (v.is_string()) return requirePreset(v, path);
  ObjectReader r(v, path);
  r.rejectUnknown({"base", "id", "name", "vendor", "architecture", "release_year", "memory_bytes",
                   "memory_gib", "smi_total_mib", "cuda_total_mib", "bandwidth_bytes_per_s",
                   "fp32_flops", "tf32_flops", "fp16_flops", "bf16_flops", "fp8_flops", "int8_ops",
                   "tdp_watts", "price_usd", "devices_per_board", "intra_node_link",
                   "inter_node_link", "notes", "source", "comment",
                   // written by gpuToJson, derived or descriptive: accepted, ignored
                   "capacity_bytes", "convention",
                   // read below
                   "unified_memory", "cpu"});
  Gpu g;
  const bool has_base = r.has("base");
  if (has_base) {
    g = requirePreset(r.require("base"), r.pathOf("base"));
  } else {
    g.id = "custom";
    g.name = "custom GPU";
    if (!r.has("memory_bytes") && !r.has("memory_gib")) r.require("memory_bytes");
    r.require("bandwidth_bytes_per_s");
    r.require("fp32_flops");
  }
  g.id = r.optionalString("id", has_base ? g.id : "custom");
  g.name = r.optionalString("name", g.name);
  g.vendor = r.optionalString("vendor", g.vendor);
  g.architecture = r.optionalString("architecture", g.architecture);
  g.release_year = static_cast<int>(r.optionalInt("release_year", g.release_year, 0, 3000));
  if (r.has("memory_gib") && r.has("memory_bytes")) {
    throw InputError(ErrorCode::kValue, r.pathOf("memory_bytes"),
                     "give memory_gib or memory_bytes, not both");
  }
  if (r.has("memory_gib") || r.has("memory_bytes")) {
    g.smi_total_mib = 0;  // the given size rules
    g.cuda_total_mib = 0;
  }
  if (r.has("memory_gib")) {
    const double gib = r.optionalNumber("memory_gib", 0, 0, 1 << 30);
    g.memory_bytes = static_cast<int64_t>(std::floor(gib * 1073741824.0));
  }
  g.memory_bytes = r.optionalInt("memory_bytes", g.memory_bytes, 0, kMaxBytes);
  g.smi_total_mib = r.optionalInt("smi_total_mib", g.smi_total_mib, 0, kMaxBytes >> 20);
  g.cuda_total_mib = r.optionalInt("cuda_total_mib", g.cuda_total_mib, 0, kMaxBytes >> 20);
  g.bandwidth_bytes_per_s = rate(r, "bandwidth_bytes_per_s", g.bandwidth_bytes_per_s);
  g.fp32_flops = rate(r, "fp32_flops", g.fp32_flops);
  g.tf32_flops = rate(r, "tf32_flops", g.tf32_flops);
  g.fp16_flops = rate(r, "fp16_flops", g.fp16_flops);
  g.bf16_flops = rate(r, "bf16_flops", g.bf16_flops);
  g.fp8_flops = rate(r, "fp8_flops", g.fp8_flops);
  g.int8_ops = rate(r, "int8_ops", g.int8_ops);
  g.tdp_watts = static_cast<int>(r.optionalInt("tdp_watts", g.tdp_watts, 0, 1 << 20));
  g.price_usd = static_cast<int>(r.optionalInt("price_usd", g.price_usd, 0, 1 << 30));
  g.devices_per_board =
      static_cast<int>(r.optionalInt("devices_per_board", g.devices_per_board, 1, 64));
  g.intra_node_link = r.optionalString("intra_node_link", has_base ? g.intra_node_link : "");
  g.inter_node_link = r.optionalString("inter_node_link", has_base ? g.inter_node_link : "");
  for (const auto& [key, link, scope] :
       {std::tuple{"intra_node_link", &g.intra_node_link, LinkScope::kIntraNode},
        std::tuple{"inter_node_link", &g.inter_node_link, LinkScope::kInterNode}}) {
    const Interconnect* known = findInterconnect(*link);
    if (!link->empty() && (!known || known->scope != scope)) {
      std::string ids;
      for (const std::string& id : interconnectIds(scope)) ids += (ids.empty() ? "" : ", ") + id;
      throw InputError(ErrorCode::kValue, r.pathOf(key),
                       "unknown link '" + *link + "' (known: " + ids + ")");
    }
  }
  g.notes = r.optionalString("notes", g.notes);
  g.source = r.optionalString("source", has_base ? g.source : "user-supplied");
  // A GPU must be able to hold and move data and compute at all.
  if (g.memory_bytes <= 0 && g.smi_total_mib <= 0) {
    throw InputError(ErrorCode::kValue,
                     r.pathOf(r.has("memory_gib") ? "memory_gib" : "memory_bytes"),
                     "a GPU needs memory above 0");
  }
  if (g.bandwidth_bytes_per_s <= 0) {
    throw InputError(ErrorCode::kValue, r.pathOf("bandwidth_bytes_per_s"),
                     "a GPU needs bandwidth above 0");
  }
  // gpuToJson's "unified_memory" object reads back, so a unified-memory preset's JSON is
  // the same GPU; such a part may have no published compute rate (fp32 0, gpu.hpp).
  if (r.has("unified_memory")) {
    ObjectReader u(r.require("unified_memory"), r.pathOf("unified_memory"));
    u.rejectUnknown({"gpu_limit"});
    g.unified_memory = true;
    g.unified_memory_note = u.optionalString("gpu_limit", g.unified_memory_note);
  }
  if (g.fp32_flops <= 0 && !g.unified_memory) {
    throw InputError(ErrorCode::kValue, r.pathOf("fp32_flops"), "a GPU needs an FP32 rate above 0");
  }
  // gpuToJson's "cpu" object: the device is a CPU and its system RAM.
  if (r.has("cpu")) {
    ObjectReader c(r.require("cpu"), r.pathOf("cpu"));
    c.rejectUnknown({"memory_channels", "memory_mt_s"});
    g.cpu = true;
    g.memory_channels =
        static_cast<int>(c.optionalInt("memory_channels", g.memory_channels, 0, 64));
    g.memory_mt_s = static_cast<int>(c.optionalInt("memory_mt_s", g.memory_mt_s, 0, 100000));
  }
  return g;
}

json gpuToJson(const Gpu& g) {
  json j = {{"id", g.id},
            {"name", g.name},
            {"vendor", g.vendor},
            {"architecture", g.architecture},
            {"release_year", g.release_year},
            {"memory_bytes", g.memory_bytes},
            {"smi_total_mib", g.smi_total_mib},
            {"cuda_total_mib", g.cuda_total_mib},
            {"capacity_bytes", gpuCapacityBytes(g)},
            {"bandwidth_bytes_per_s", g.bandwidth_bytes_per_s},
            {"fp32_flops", g.fp32_flops},
            {"tf32_flops", g.tf32_flops},
            {"fp16_flops", g.fp16_flops},
            {"bf16_flops", g.bf16_flops},
            {"fp8_flops", g.fp8_flops},
            {"int8_ops", g.int8_ops},
            {"tdp_watts", g.tdp_watts},
            {"price_usd", g.price_usd},
            {"devices_per_board", g.devices_per_board},
            {"intra_node_link", g.intra_node_link},
            {"inter_node_link", g.inter_node_link},
            {"notes", g.notes},
            {"source", g.source},
            {"convention",
             "per device; dense rates in operations/s, 16-bit and FP8 with FP32 accumulate; "
             "0 = no fast path"}};
  if (g.unified_memory) j["unified_memory"] = {{"gpu_limit", g.unified_memory_note}};
  if (g.cpu) j["cpu"] = {{"memory_channels", g.memory_channels}, {"memory_mt_s", g.memory_mt_s}};
  return j;
}

json gpuTableJson() {
  json list = json::array();
  for (const Gpu& g : gpuPresets()) list.push_back(gpuToJson(g));
  return list;
}

json hardwareToJson(const HardwareSettings& hw) {
  json j = json::object();
  if (hw.gpu) {
    // A preset by its id; a custom (or changed) GPU in full, so the workload reads back.
    const Gpu* preset = findGpu(hw.gpu->id);
    const bool is_preset = preset && gpuToJson(*preset) == gpuToJson(*hw.gpu);
    j["gpu"] = is_preset ? json(hw.gpu->id) : gpuToJson(*hw.gpu);
  }
  const Parallelism& p = hw.parallel;
  j["gpus"] = p.gpus;
  j["zero"] = p.zero;
  j["tp"] = p.tp;
  j["pp"] = p.pp;
  j["sp"] = p.sp;
  j["microbatches"] = p.microbatchCount();
  if (hw.utilization) j["utilization"] = *hw.utilization;
  if (hw.reserve_bytes) j["reserve_bytes"] = *hw.reserve_bytes;
  j["fragmentation"] = hw.fragmentation.value_or(kDefaultFragmentation);
  if (hw.math) j["gpu_dtype"] = mathFormatName(*hw.math);
  const NetworkSettings& n = hw.network;
  if (n.nodes) j["nodes"] = *n.nodes;
  if (n.gpus_per_node) j["gpus_per_node"] = *n.gpus_per_node;
  if (n.intra_link) j["intra_node_link"] = *n.intra_link;
  if (n.inter_link) j["inter_node_link"] = *n.inter_link;
  return j;
}

namespace {

/// The workload fields a piece of advice changes, as workload JSON to merge.
json workloadPatch(const Workload& from, const Workload& to) {
  json j = json::object();
  if (from.batch != to.batch) j["batch"] = to.batch;
  if (from.precision != to.precision) j["dtype"] = precisionName(to.precision);
  if (from.optimizer != to.optimizer) j["optimizer"] = optimizerName(to.optimizer);
  if (from.optimizer_impl != to.optimizer_impl) {
    j["optimizer_impl"] = optimizerImplName(to.optimizer_impl);
  }
  if (from.grad_accum != to.grad_accum) j["grad_accum"] = to.grad_accum;
  if (from.recompute != to.recompute) j["recompute"] = recomputeName(to.recompute);
  if (from.finetune != to.finetune) j["finetune"] = finetuneName(to.finetune);
  if (from.weight_dtype != to.weight_dtype && to.weight_dtype) {
    j["weight_dtype"] = dtypeName(*to.weight_dtype);
  }
  if (from.kv_dtype != to.kv_dtype && to.kv_dtype) j["kv_dtype"] = dtypeName(*to.kv_dtype);
  const Parallelism &a = from.hardware.parallel, &b = to.hardware.parallel;
  if (a.gpus != b.gpus) j["gpus"] = b.gpus;
  if (a.zero != b.zero) j["zero"] = b.zero;
  if (a.tp != b.tp) j["tp"] = b.tp;
  if (a.pp != b.pp) j["pp"] = b.pp;
  if (a.cp != b.cp) j["cp"] = b.cp;
  // Serving advice: the engine's settings and the GPU.
  if (from.serving.quant != to.serving.quant) j["quant"] = quantFormatName(to.serving.quant);
  if (from.serving.users != to.serving.users) j["users"] = to.serving.users;
  if (from.serving.context != to.serving.context && to.serving.context)
    j["context"] = *to.serving.context;
  if (to.hardware.gpu && (!from.hardware.gpu || from.hardware.gpu->id != to.hardware.gpu->id))
    j["gpu"] = to.hardware.gpu->id;
  return j;
}

}  // namespace

std::vector<double> rangeOf(TimeKind kind, double value, bool rate) {
  const std::array<double, 2> r = timeRange(kind, value, rate);
  return {r[0], r[1]};
}

// With a serving plan the plan's verdict is the answer: fits is its users at its context, the
// headroom its budget over the memory it plans (a paged engine's pool takes the rest).
JsonObject gpuFitObject(const GpuFit& f, const Workload& w, const ServingPlan* serving) {
  JsonArray advice;
  for (const Advice& a : f.advice) {
    advice.push(JsonObject()
                    .add("change", a.change)
                    .add("change_zh", a.change_zh)
                    .add("set", workloadPatch(w, a.workload))
                    .add("grad_accumulation", a.grad_accumulation)
                    .add("per_gpu_bytes", a.per_gpu_bytes)
                    .add("usable_bytes", f.usable_bytes));
  }
  // A GPU with no published compute rate has no step time: null, not a confident 0.
  const bool compute_published = gpuComputePublished(f.gpu);
  const Parallelism& p = w.hardware.parallel;
  JsonObject j;
  j.add("gpu", gpuToJson(f.gpu))
      .add("fits", serving ? serving->fits : f.fits)
      .add("headroom_bytes",
           serving ? serving->budget_bytes - serving->device.total : f.headroom_bytes)
      .add("max_batch", serving ? serving->max_users : f.max_batch)
      .add("answered_by", serving ? "serving" : "gpu_fit");
  // One figure per question: with a serving plan the step of a training-style batch is not
  // an answer (null), and the decode speed is the plan's.
  const TimeKind step_kind = w.mode == Mode::kTrain ? TimeKind::kTraining : TimeKind::kPrefill;
  const bool step_shown = compute_published && !serving;
  std::optional<double> tokens = f.time.tokens_per_s;
  if (serving) {
    tokens = serving->speed.itl_s > 0 ? std::optional(serving->speed.tokens_per_s) : std::nullopt;
  }
  const TimeKind tokens_kind =
      serving && serving->speed.users > 1 ? TimeKind::kServingThroughput : TimeKind::kDecode;
  j.add("step_time_s", step_shown ? std::optional(f.time.step_s) : std::nullopt)
      .add("step_time_s_range",
           step_shown ? std::optional(rangeOf(step_kind, f.time.step_s, false)) : std::nullopt)
      .add("samples_per_s", step_shown ? std::optional(f.time.samples_per_s) : std::nullopt)
      .add(
          "samples_per_s_range",
          step_shown ? std::optional(rangeOf(step_kind, f.time.samples_per_s, true)) : std::nullopt)
      .add("tokens_per_s", tokens)
      .add("tokens_per_s_range",
           tokens ? std::optional(rangeOf(tokens_kind, *tokens, true)) : std::nullopt)
      .add("per_gpu", memoryObject(f.per_gpu, "bytes per GPU"))
      .add("advice", advice)
      .add("gpu_memory", JsonObject()
                             .add("capacity_bytes", f.capacity_bytes)
                             .add("reserve_bytes", f.reserve_bytes)
                             .add("fragmentation_bytes", f.fragmentation_bytes)
                             .add("usable_bytes", f.usable_bytes))
      .add("roofline", JsonObject()
                           .add("math", mathFormatName(f.math))
                           .add("peak_flops", f.peak_flops)
                           .add("utilization", f.utilization)
                           .add("family", deviceFamilyName(deviceFamily(f.gpu)))
                           .add("engine", engineName(w.serving.engine))
                           .add("fitted", timeParams().fitted)
                           .add("bandwidth_bytes_per_s", f.gpu.bandwidth_bytes_per_s)
                           .add("compute_s", f.time.compute_s)
                           .add("memory_s", f.time.memory_s)
                           .add("optimizer_s", f.time.optimizer_s)
                           .add("bound", stepBound(f.time))
                           .add("compute_published", compute_published))
      .add("parallel", JsonObject()
                           .add("gpus", p.gpus)
                           .add("data_parallel", f.data_parallel)
                           .add("replica_batch", f.replica_batch)
                           .add("zero", p.zero)
                           .add("tp", p.tp)
                           .add("pp", p.pp)
                           .add("sp", p.sp)
                           .add("microbatches", p.microbatchCount())
                           .add("ep", p.ep)
                           .add("cp", p.cp)
                           .add("cp_load_balance", p.cp_load_balance ? "head_tail" : "none")
                           .add("virtual_stages", p.virtual_stages))
      .add("network", networkObject(f.network))
      .add("step_time", stepBreakdownObject(f.step))
      .add("run", f.run ? std::optional(runCostObject(*f.run)) : std::nullopt)
      .add("samples_per_s_per_watt", f.samples_per_s_per_watt)
      .add("samples_per_s_per_1000usd", f.samples_per_s_per_1000usd)
      .add("notes", f.notes);
  return j;
}

}  // namespace dlcost
