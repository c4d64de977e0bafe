// Steps, wall time, GPU-hours, money and energy of a training run (dlcost/gpu/run_cost.hpp;
// the value type RunCost in dlcost/types/run_cost.hpp).

#include "dlcost/gpu/run_cost.hpp"

#include <cmath>

#include "dlcost/base/error.hpp"
#include "dlcost/types/report.hpp"

namespace dlcost {

namespace {

constexpr double kMaxSteps = 9007199254740992.0;  // 2^53: exact in a double

std::vector<GpuListPrice> buildPrices() {
  // AWS's EC2 Capacity Blocks for ML price page listed each instance's effective hourly rate
  // and its rate per accelerator; these are the US East rates in effect until 2025-01-01.
  const std::string aws = "https://aws.amazon.com/ec2/capacityblocks/pricing/";
  return {
      {"a100-sxm4-40gb", 1.844, "AWS p4d.24xlarge (8 x A100 40GB), EC2 Capacity Blocks, US East",
       "2024-12", aws},
      {"h100-sxm", 4.916, "AWS p5.48xlarge (8 x H100), EC2 Capacity Blocks, US East", "2024-12",
       aws},
      {"h200", 5.408, "AWS p5e.48xlarge (8 x H200), EC2 Capacity Blocks, US East (Ohio)", "2024-12",
       aws},
  };
}

}  // namespace

const std::vector<GpuListPrice>& gpuListPrices() {
  static const std::vector<GpuListPrice> kPrices = buildPrices();
  return kPrices;
}

const GpuListPrice* findListPrice(const std::string& gpu_id) {
  for (const GpuListPrice& p : gpuListPrices())
    if (p.gpu == gpu_id) return &p;
  return nullptr;
}

std::optional<RunCost> runCost(const Report& r, const GpuFit& fit) {
  const Workload& w = r.workload;
  const RunSettings& s = w.run;
  if (w.mode != Mode::kTrain || (!s.tokens && !s.samples)) return std::nullopt;
  if (s.tokens && s.samples) {
    throw InputError(ErrorCode::kValue, "/workload/samples",
                     "give tokens or samples (with epochs), not both");
  }
  if (s.tokens && !r.transformer) {
    throw InputError(ErrorCode::kValue, "/workload/tokens",
                     "a layer graph counts samples, not tokens: give samples (and epochs)");
  }
  RunCost c;
  const double per_step_samples =
      static_cast<double>(w.batch) * static_cast<double>(fit.step.micro_steps);
  double steps = 0;
  if (s.tokens) {
    const double per_step = static_cast<double>(r.transformer->tokens_per_step);
    steps = std::ceil(static_cast<double>(*s.tokens) / per_step);
  } else {
    steps = std::ceil(static_cast<double>(*s.samples) * s.epochs / per_step_samples);
  }
  if (steps > kMaxSteps) {
    throw InputError(ErrorCode::kTooLarge, s.tokens ? "/workload/tokens" : "/workload/samples",
                     "the run takes more than 2^53 steps");
  }
  c.steps = static_cast<int64_t>(steps);
  c.samples = steps * per_step_samples;
  if (r.transformer) c.tokens = steps * static_cast<double>(r.transformer->tokens_per_step);
  c.wall_s = steps * fit.time.step_s;
  const double gpus = static_cast<double>(w.hardware.parallel.gpus);
  c.gpu_hours = c.wall_s / 3600.0 * gpus;
  if (s.price_per_gpu_hour) {
    c.price = *s.price_per_gpu_hour;
  } else if (const GpuListPrice* p = findListPrice(fit.gpu.id)) {
    c.price = p->usd_per_gpu_hour;
    c.price_is_list = true;
    c.list_price = *p;
  }
  if (c.price) c.cost_usd = c.gpu_hours * *c.price;
  const double watts =
      static_cast<double>(fit.gpu.tdp_watts) / std::max(1, fit.gpu.devices_per_board);
  c.energy_kwh = c.gpu_hours * watts / 1000.0;
  c.mfu = fit.step.mfu;
  return c;
}

}  // namespace dlcost
