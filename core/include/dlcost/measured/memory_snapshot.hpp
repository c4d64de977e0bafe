#pragma once
// A PyTorch CUDA memory snapshot (`torch.cuda.memory._record_memory_history()` then
// `_dump_snapshot()`: the pickle PyTorch's memory viewer reads) read as the active-memory curve
// of one device, computed as the viewer computes it (torch/utils/viz/MemoryViz.js,
// process_alloc_data): blocks alive before recording started are taken from the segments and
// from frees whose allocation the trace lacks; each `alloc` adds its size, each
// `free_completed` (or a legacy `free`) takes it away; `free_requested` changes nothing.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dlcost {

/// One point of the measured curve: active bytes just after a trace event.
struct MeasuredPoint {
  int64_t event = -1;    ///< index in the device's trace; -1 for the state before the trace
  int64_t time_us = -1;  ///< the event's `time_us`, -1 where the trace has none
  int64_t active_bytes = 0;
};

/// What a snapshot says about one device.
struct MeasuredMemory {
  int device = 0;                     ///< the device read (the one with the most trace events)
  std::vector<int> devices;           ///< every device the snapshot names, ascending
  std::vector<MeasuredPoint> points;  ///< the curve: before the trace, then one per alloc/free
  size_t peak = 0;                    ///< index in points of the first highest point
  int64_t reserved_bytes = 0;         ///< segments' total_size at the snapshot (cudaMalloc'd)
  int64_t peak_reserved_bytes = 0;    ///< the most reserved over the trace (segment events)
  int64_t active_at_snapshot = 0;     ///< active_allocated blocks' requested_size at the snapshot
  int64_t segments = 0;               ///< segments of this device
  int64_t trace_events = 0;           ///< entries of this device's trace, every action
  int64_t allocs = 0, frees = 0, ooms = 0;
  int64_t peak_bytes() const { return points.empty() ? 0 : points[peak].active_bytes; }
};

/// Reads the snapshot's bytes (readPickle's subset and limits). `device` -1 picks the device
/// with the most trace events (ties: the lowest; no trace: the one with the most reserved
/// bytes). Throws InputError: kParse for a bad pickle, kType / kMissingField / kValue naming
/// the field ("/device_traces/0/12/size", the message saying device_traces[0][12].size),
/// kTooLarge for sizes past 2^50 bytes.
MeasuredMemory readMemorySnapshot(const uint8_t* data, size_t size, int device = -1);

}  // namespace dlcost
