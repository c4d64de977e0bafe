// libFuzzer target: any bytes read as a GGUF file (the magic is forced so that every input
// reaches the GGUF reader). See fuzz_model_file.hpp for what must hold.
#include <cstring>
#include <vector>

#include "fuzz_model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  if (bytes.size() >= 4) std::memcpy(bytes.data(), "GGUF", 4);
  fuzzModelFile(bytes.data(), bytes.size());
  return 0;
}
