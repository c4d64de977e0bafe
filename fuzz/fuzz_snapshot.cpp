// libFuzzer target: any bytes given to `dlcost timeline --measured` read as a PyTorch CUDA
// memory snapshot (the pickle subset, then the snapshot's fields) to a curve that never goes
// below zero and whose peak is its highest point, or raise InputError; never a crash, a hang
// or an allocation sized by the input's claims.
#include <cstddef>
#include <cstdint>

#include "dlcost/base/error.hpp"
#include "dlcost/measured/memory_snapshot.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dlcost::MeasuredMemory m;
  try {
    m = dlcost::readMemorySnapshot(data, size);
  } catch (const dlcost::InputError&) {
    return 0;
  }
  if (m.points.empty() || m.peak >= m.points.size()) __builtin_trap();
  for (const dlcost::MeasuredPoint& p : m.points) {
    if (p.active_bytes < 0 || p.active_bytes > m.peak_bytes()) __builtin_trap();
  }
  if (m.reserved_bytes < 0 || m.peak_reserved_bytes < m.reserved_bytes) __builtin_trap();
  return 0;
}
