// libFuzzer target: any bytes read as a Hugging Face config.json. Bytes that parse as JSON
// are wrapped as {"model": {"hf_config": doc}} and estimated for inference and for training;
// each must give a report or a clean InputError, never a crash, undefined behaviour or an
// exception of another kind (which the front ends would report as an internal error).
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json config = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) return 0;  // not JSON: fuzz_config covers the parser's errors
  for (const char* mode : {"infer", "train"}) {
    const nlohmann::json document = {{"model", {{"hf_config", config}}},
                                     {"workload", {{"mode", mode}, {"batch", 2}}}};
    // The text path the CLI and the page share; it turns exceptions other than InputError
    // into code "internal", and those are bugs.
    const std::string out = dlcost::estimateText(document.dump());
    if (out.find("\"code\":\"internal\"") != std::string::npos) __builtin_trap();
  }
  return 0;
}
