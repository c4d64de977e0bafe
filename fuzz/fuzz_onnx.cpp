// libFuzzer target: any bytes read as an ONNX ModelProto, through the ByteSource reader the
// CLI uses (readOnnx) and through the page's entry point (inspectModelFile, which detects
// ONNX by its leading ir_version tag). Each must give a summary or a clean InputError, with
// no allocation beyond what the bytes themselves justify; anything else traps.
#include <cstdint>
#include <string>

#include "dlcost/checked.hpp"
#include "dlcost/error.hpp"
#include "dlcost/onnx.hpp"
#include "fuzz_model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const dlcost::MemorySource src(data, static_cast<int64_t>(size));
    (void)dlcost::onnxSummaryJson(dlcost::readOnnx(src), static_cast<int64_t>(size));
  } catch (const dlcost::InputError&) {
  }
  // Seeds start with the ir_version tag, so mutations mostly reach the ONNX branch here too.
  if (size > 0 && data[0] == 0x08) fuzzModelFile(data, size);
  return 0;
}
