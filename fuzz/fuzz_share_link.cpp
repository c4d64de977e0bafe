// libFuzzer target: any text as a share-link fragment decodes to a state object or raises
// InputError; a decoded state re-encodes to a link that decodes to the same state.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/report/share_link.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string fragment(reinterpret_cast<const char*>(data), size);
  nlohmann::json state;
  try {
    state = dlcost::decodeShareLink(fragment);
  } catch (const dlcost::InputError&) {
    return 0;
  }
  if (dlcost::decodeShareLink(dlcost::encodeShareLink(state)) != state) __builtin_trap();
  return 0;
}
