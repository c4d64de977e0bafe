#pragma once
// Costs of a Transformer under a Workload: parameters, MACs, memory, phases.

#include <string>
#include <vector>

#include "dlcost/types/report.hpp"
#include "dlcost/types/timeline.hpp"
#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// Throws InputError for workloads the model cannot run (a sequence longer than learned
/// positions, quantized weights in full training, ...) and for totals beyond 64 bits. With
/// `events`, fills them with the step's timeline events at layer granularity (per sequence).
Report estimateTransformer(const std::string& name, const Transformer& t, const Workload& w,
                           std::vector<TimelineEvent>* events = nullptr);

/// Bytes of activations one layer of a decoder keeps for backward, per token (multiply by
/// sequence length x batch), with `context` tokens attended to. Follows Korthikanti et al.
/// 2022, eq. 1-2 and Table 2: with 2-byte activations, dropout, eager attention and no
/// recomputation a GPT layer gives 34h + 5 a s (per token); selective recomputation 34h;
/// full recomputation 2h.
/// `layer` picks the layer where layers differ (dense or MoE MLP, local or global attention).
int64_t layerActivationBytesPerToken(const Transformer& t, const Workload& w, int64_t context,
                                     int64_t layer = 0);

}  // namespace dlcost
