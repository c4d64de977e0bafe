// The weights term from a model file's tensor table.
#include "report/file_weights.hpp"

#include <algorithm>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/units.hpp"
#include "dlcost/memory/memory_terms.hpp"
#include "dlcost/types/report.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

void useFileWeights(Report& r, const FileWeights& f, const Workload& w) {
  std::vector<MemoryTerm> terms = r.memory.terms;
  terms.erase(std::remove_if(terms.begin(), terms.end(),
                             [](const MemoryTerm& t) { return t.key == MemoryKey::kQuantScales; }),
              terms.end());
  for (MemoryTerm& t : terms) {
    if (t.key != MemoryKey::kWeights) continue;
    t.fixed = f.bytes;
    t.per_sample = 0;
    // The file decides the bytes whatever the workload's precision or weight_dtype says.
    t.formula = "weight_bytes (the " + f.format + " file's tensors, each in its stored type)";
    t.inputs = {{"weight_bytes", f.bytes, f.format + " file"},
                {"file_parameters", f.parameters, f.format + " file"}};
  }
  r.memory = sumTerms(std::move(terms), w.batch);
  const MemoryBreakdown& m = r.memory;
  if (w.memory_bytes) r.max_batch = maxBatchFor(m.fixed, m.per_sample, *w.memory_bytes);
  if (f.parameters != r.params.total) {
    r.warnings.push_back("the " + f.format + " file holds " + groupDigits(f.parameters) +
                         " parameters and the config counts " + groupDigits(r.params.total) +
                         ": the weights term is the file's bytes, the other terms use the "
                         "config's count");
  }
}

}  // namespace dlcost
