// libFuzzer target: any trace file dropped on the page or given to `dlcost serve-sim --trace`
// (CSV or JSON Lines) reads to sorted requests with lengths >= 1 and arrivals >= 0, or raises
// InputError; never a crash, a hang or an allocation sized by the input's claims.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dlcost/base/error.hpp"
#include "dlcost/serving/load_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<dlcost::LoadRequest> trace;
  try {
    trace = dlcost::parseTraceText(text);
  } catch (const dlcost::InputError&) {
    return 0;
  }
  for (size_t i = 0; i < trace.size(); ++i) {
    if (trace[i].prompt_tokens < 1 || trace[i].output_tokens < 1) __builtin_trap();
    if (!(trace[i].arrival_s >= 0)) __builtin_trap();
    if (i > 0 && trace[i].arrival_s < trace[i - 1].arrival_s) __builtin_trap();
  }
  return 0;
}
