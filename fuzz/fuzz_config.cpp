// libFuzzer target: any bytes as an input document must give a report or a clean
// InputError, never a crash, a hang, undefined behaviour or an uncaught exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlcost/api.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string out = dlcost::estimateText(text);
  // estimateText turns unexpected exceptions into code "internal"; those are bugs too.
  if (out.find("\"code\":\"internal\"") != std::string::npos) __builtin_trap();
  return 0;
}
