// Every data x tensor x pipeline split of a workload's GPUs, estimated and ranked
// (dlcost/layouts.hpp).

#include "dlcost/explore/layouts.hpp"

#include <algorithm>
#include <variant>

#include "dlcost/base/engine_limits.hpp"
#include "dlcost/gpu/interconnect_table.hpp"
#include "dlcost/gpu/step_json.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/report/report_json.hpp"
#include "dlcost/schema/config_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i) {
    if (n % i != 0) continue;
    d.push_back(i);
    if (i != n / i) d.push_back(n / i);
  }
  std::sort(d.begin(), d.end());
  return d;
}

/// Fitting options by step time, then the rest by memory per GPU, then the refused ones.
bool ranksBefore(const LayoutOption& a, const LayoutOption& b) {
  if (a.fit.has_value() != b.fit.has_value()) return a.fit.has_value();
  if (!a.fit) return false;
  if (a.fit->fits != b.fit->fits) return a.fit->fits;
  if (a.fit->fits) return a.fit->time.step_s < b.fit->time.step_s;
  return a.fit->per_gpu.total < b.fit->per_gpu.total;
}

/// `o` as a row; a split refused because `batch` does not divide over its replicas and
/// micro-batches carries the one-click fix: the next batch that does ("fix": {"batch": n}).
json optionJson(const LayoutOption& o, int64_t batch) {
  const Parallelism& p = o.parallel;
  json j = {{"dp", p.batchReplicas()},
            {"tp", p.tp},
            {"pp", p.pp},
            {"ep", p.ep},
            {"cp", p.cp},
            {"virtual_stages", p.virtual_stages},
            {"zero", p.zero},
            {"sp", p.sp},
            {"microbatches", p.microbatchCount()},
            {"batch", o.batch},
            {"grad_accum", o.grad_accum}};
  // The workload fields that apply this row (the page's "Use" button sets exactly these).
  j["set"] = {{"tp", p.tp},
              {"pp", p.pp},
              {"ep", p.ep},
              {"cp", p.cp},
              {"zero", p.zero},
              {"batch", o.batch},
              {"grad_accum", o.grad_accum}};
  if (p.pp > 1) j["set"]["microbatches"] = p.microbatchCount();
  if (!o.fit) {
    j["error"] = {{"code", errorCodeName(o.error->code)},
                  {"path", o.error->path},
                  {"message", o.error->message}};
    const int64_t step = p.batchReplicas() * p.microbatchCount();
    if (o.error->path == "/workload/batch" && step > 0 && batch <= kMaxBatch - step)
      j["fix"] = {{"batch", (batch + step - 1) / step * step}};
    return j;
  }
  const GpuFit& f = *o.fit;
  j["fits"] = f.fits;
  j["per_gpu_bytes"] = f.per_gpu.total;
  j["usable_bytes"] = f.usable_bytes;
  j["headroom_bytes"] = f.headroom_bytes;
  j["step_s"] = f.time.step_s;
  j["samples_per_s"] = f.time.samples_per_s;
  j["mfu"] = f.step.mfu;
  j["step_time"] = stepBreakdownToJson(f.step);
  j["per_gpu"] = memoryToJson(f.per_gpu, "bytes per GPU");
  j["run"] = f.run ? runCostToJson(*f.run) : json();
  return j;
}

}  // namespace

namespace {

LayoutOption estimated(const Model& model, const Workload& w) {
  LayoutOption o;
  o.parallel = w.hardware.parallel;
  o.batch = w.batch;
  o.grad_accum = w.grad_accum;
  try {
    Report r = estimate(model, w);
    o.fit = std::move(r.gpu_fit);
  } catch (const InputError& e) {
    o.error = e.error();
  }
  return o;
}

bool fits(const LayoutOption& o) {
  return o.fit && o.fit->fits;
}

/// The ways one split can hold the same step in less memory, least change first: the ZeRO
/// stages from the workload's up (with data parallelism to shard over), and for a transformer
/// without a pipeline, gradient accumulation k dividing each replica's samples (batch / k per
/// micro-step, grad_accum x k: the optimizer step and its tokens unchanged).
struct Savings {
  std::vector<int> zero;
  std::vector<int64_t> accumulation;
};

Savings savingsOf(const Model& model, const Workload& w) {
  Savings s;
  const Parallelism& p = w.hardware.parallel;
  for (int z = p.zero; z <= (p.dataParallel() > 1 ? 3 : p.zero); ++z) s.zero.push_back(z);
  const bool accumulates = std::holds_alternative<Transformer>(model.body) &&
                           w.mode == Mode::kTrain && p.pp == 1 && w.batch % p.batchReplicas() == 0;
  if (!accumulates) return {s.zero, {1}};
  for (int64_t k : divisors(w.batch / p.batchReplicas()))
    if (w.grad_accum <= kMaxBatch / k) s.accumulation.push_back(k);
  return s;
}

Workload accumulated(Workload w, int zero, int64_t k) {
  w.hardware.parallel.zero = zero;
  w.batch /= k;
  w.grad_accum *= k;
  return w;
}

/// The split `w` as asked when it fits; else the fastest of its ZeRO stages, each with the
/// least accumulation that fits (memory falls as k grows, so a bisection finds it); else the
/// one that needs the least memory per GPU, to show how far it is.
LayoutOption bestOfSplit(const Model& model, const Workload& w) {
  LayoutOption asked = estimated(model, w);
  if (!asked.fit || asked.fit->fits) return asked;
  const Savings s = savingsOf(model, w);
  std::optional<LayoutOption> best;
  LayoutOption least = asked;
  for (int z : s.zero) {
    LayoutOption most = estimated(model, accumulated(w, z, s.accumulation.back()));
    if (!fits(most)) {
      if (most.fit && most.fit->per_gpu.total < least.fit->per_gpu.total) least = most;
      continue;
    }
    size_t lo = 0, hi = s.accumulation.size() - 1;  // accumulation[hi] fits
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      LayoutOption o = estimated(model, accumulated(w, z, s.accumulation[mid]));
      if (fits(o)) {
        hi = mid;
        most = std::move(o);
      } else {
        lo = mid + 1;
      }
    }
    if (!best || most.fit->time.step_s < best->fit->time.step_s) best = std::move(most);
  }
  return best ? *best : least;
}

}  // namespace

std::vector<LayoutOption> layoutOptions(const Model& model, const Workload& workload) {
  if (!workload.hardware.gpu) {
    throw InputError(ErrorCode::kMissingField, "/workload/gpu",
                     "layout advice needs a GPU (gpu) and a number of GPUs (gpus)");
  }
  const int64_t gpus = workload.hardware.parallel.gpus;
  // Errors of the network apply to every layout: report them once, as they are.
  resolveNetwork(workload.hardware.network, gpus, *workload.hardware.gpu);
  // Mixture-of-experts models also split their experts: every ep dividing the data-parallel
  // GPUs and the expert count.
  const auto* t = std::get_if<Transformer>(&model.body);
  const int64_t experts = t ? t->experts : 0;
  std::vector<LayoutOption> options;
  for (int64_t tp : divisors(gpus)) {
    for (int64_t pp : divisors(gpus / tp)) {
      // The workload's context-parallel degree, in the splits whose data-parallel GPUs it
      // divides.
      if ((gpus / tp / pp) % workload.hardware.parallel.cp != 0) continue;
      for (int64_t ep : divisors(gpus / tp / pp)) {
        if (ep > 1 && (experts == 0 || experts % ep != 0)) continue;
        Workload w = workload;
        Parallelism& p = w.hardware.parallel;
        p.tp = tp;
        p.pp = pp;
        p.ep = ep;
        // The workload's interleaving where there is a pipeline to interleave.
        if (pp == 1) p.virtual_stages = 1;
        if (workload.hardware.parallel.microbatches == 0 && pp > 1 &&
            w.batch % p.batchReplicas() == 0) {
          p.microbatches = w.batch / p.batchReplicas();
        }
        options.push_back(bestOfSplit(model, w));
      }
    }
  }
  std::stable_sort(options.begin(), options.end(), ranksBefore);
  return options;
}

json layoutsDocument(const json& document) {
  const Config c = parseConfig(document);
  const std::vector<LayoutOption> options = layoutOptions(c.model, c.workload);
  json rows = json::array(), refused = json::array();
  for (const LayoutOption& o : options)
    (o.fit ? rows : refused).push_back(optionJson(o, c.workload.batch));
  if (rows.empty()) {
    const Error& first = *options.front().error;
    throw InputError(ErrorCode::kValue, "/workload/gpus",
                     "no split of " + std::to_string(c.workload.hardware.parallel.gpus) +
                         " GPUs suits the model; e.g. " + first.path + ": " + first.message);
  }
  const Network net = options.front().fit->network;
  return {{"schema", "dlcost.layouts/1"},
          {"model", c.model.name},
          {"gpus", c.workload.hardware.parallel.gpus},
          {"network", networkToJson(net)},
          {"rows", rows},
          {"refused", refused},
          {"notes",
           {"ranked: layouts that fit by step time, then the others by memory per GPU",
            "with pp > 1 and no microbatches in the workload, one sample per micro-batch",
            "a split that does not fit as asked takes the fastest ZeRO stage (from the "
            "workload's up) that fits, with the least gradient accumulation that fits "
            "(transformers without a pipeline: batch / k per micro-step, grad_accum x k, the "
            "same optimizer step); else it shows the least memory per GPU they reach",
            "mixture-of-experts models: every expert-parallel degree ep dividing the "
            "data-parallel GPUs and the expert count; the workload's virtual_stages where pp > 1",
            "the workload's context-parallel degree cp, in the splits whose gpus / (tp x pp) it "
            "divides (dp counts the batch's replicas: gpus / (tp x pp x cp))",
            "tensor-parallel ranks are adjacent (inside a node while tp <= GPUs per node), "
            "then data-parallel, then pipeline stages (Megatron-LM's order)"}}};
}

}  // namespace dlcost
