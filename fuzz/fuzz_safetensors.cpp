// libFuzzer target: any bytes read as a safetensors file or a JSON index (whatever
// inspectModelFile detects; inputs starting with "GGUF" are left to fuzz_gguf). See
// fuzz_model_file.hpp for what must hold.
#include <cstring>

#include "fuzz_model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "GGUF", 4) == 0) return 0;
  fuzzModelFile(data, size);
  return 0;
}
