#include "memory/memory_json.hpp"

namespace dlcost {

namespace {

JsonObject termObject(const MemoryTerm& t, const MemoryBreakdown& m) {
  JsonArray inputs;
  for (const TermInput& in : t.inputs) {
    JsonObject input;
    input.add("name", in.name).add("value", in.value);
    if (!in.note.empty()) input.add("note", in.note);
    inputs.push(input);
  }
  // Share of the total, for the breakdown's percentages (0 when the total is 0).
  const double share =
      m.total > 0 ? static_cast<double>(t.bytes) / static_cast<double>(m.total) : 0.0;
  JsonObject j;
  j.add("key", memoryKeyName(t.key))
      .add("bytes", t.bytes)
      .add("share", share)
      .add("fixed", t.fixed)
      .add("per_sample", t.per_sample)
      .add("sharding", shardingName(t.sharding))
      .add("phase", memoryPhaseName(t.phase))
      // Whether the total counts it: the peak phase's terms and the others'.
      .add("in_peak", t.phase == MemoryPhase::kAlways || t.phase == m.peak_phase)
      .add("formula", t.formula)
      .add("inputs", inputs);
  return j;
}

}  // namespace

JsonObject memoryObject(const MemoryBreakdown& m, const char* units) {
  JsonArray terms;
  for (const MemoryTerm& t : m.terms) terms.push(termObject(t, m));
  JsonObject out;
  out.add("terms", terms)
      .add("total", m.total)
      .add("fixed", m.fixed)
      .add("per_sample", m.per_sample)
      .add("units", units);
  if (!m.phases.empty()) {
    JsonArray phases;
    for (const PhaseTotal& p : m.phases) {
      phases.push(JsonObject()
                      .add("phase", memoryPhaseName(p.phase))
                      .add("bytes", p.bytes)
                      .add("fixed", p.fixed)
                      .add("per_sample", p.per_sample));
    }
    out.add("phases", phases).add("peak_phase", memoryPhaseName(m.peak_phase));
  }
  if (m.first_step_total) out.add("first_step_total", *m.first_step_total);
  return out;
}

}  // namespace dlcost
