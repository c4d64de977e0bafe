// libFuzzer target: any bytes read as an ONNX ModelProto, through the ByteSource reader the
// CLI uses (readOnnx) and through the page's entry point (inspectModelFile, which detects
// ONNX by its leading ir_version tag). Each must give a summary or a clean InputError, with
// no allocation beyond what the bytes themselves justify; anything else traps.
//
// The summary includes the graph import (onnx_graph.hpp). A layer graph it gives must be one
// the engine accepts: it is parsed and estimated, and any error but a size past the engine's
// limits (too_large) is a bug in the import, so it traps.
#include <cstdint>
#include <string>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/model_files/onnx.hpp"
#include "dlcost/model_files/onnx_graph.hpp"
#include "dlcost/report/estimate.hpp"
#include "dlcost/schema/config_json.hpp"
#include "fuzz_model_file.hpp"

namespace {

void estimateGraph(const nlohmann::json& model) {
  try {
    for (const dlcost::Mode mode : dlcost::kModes) {
      dlcost::Workload w;
      w.mode = mode;
      (void)dlcost::estimate(dlcost::parseModel(model, ""), w);
    }
  } catch (const dlcost::InputError& e) {
    if (e.error().code != dlcost::ErrorCode::kTooLarge) __builtin_trap();
  } catch (const dlcost::ArithmeticOverflow&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const dlcost::MemorySource src(data, static_cast<int64_t>(size));
    const nlohmann::json summary =
        dlcost::onnxFileSummaryJson(dlcost::readOnnx(src), static_cast<int64_t>(size));
    const nlohmann::json& model = summary["layer_graph"]["model"];
    if (model.is_object()) estimateGraph(model);
  } catch (const dlcost::InputError&) {
  }
  // Seeds start with the ir_version tag, so mutations mostly reach the ONNX branch here too.
  if (size > 0 && data[0] == 0x08) fuzzModelFile(data, size);
  return 0;
}
