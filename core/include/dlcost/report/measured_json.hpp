#pragma once
// The user's own run beside the prediction (#28 item 3): the active-memory curve of a PyTorch
// CUDA memory snapshot (measured/memory_snapshot.hpp) paired with the predicted timeline
// (timeline_json.hpp), the two peaks and their difference, and what the engine does not model.

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "dlcost/measured/memory_snapshot.hpp"

namespace dlcost {

/// Most points of the measured curve in the JSON; longer curves keep each bucket's lowest and
/// highest point, so the peak always survives.
constexpr size_t kMaxMeasuredPoints = 2000;

/// `{"device", "devices", "events", "allocs", "frees", "ooms", "segments", "reserved_bytes",
/// "peak_reserved_bytes", "active_at_snapshot_bytes", "points_total", "points": [{"event",
/// "time_us", "bytes"}] (at most kMaxMeasuredPoints), "peak": {"point" (index in points),
/// "event", "time_us", "bytes"}}`; bytes are exact integers, event -1 is the state before the
/// trace and time_us -1 a trace without times.
nlohmann::json measuredToJson(const MeasuredMemory& m);

/// timelineDocument(document) with `"measured"` (measuredToJson of the snapshot's bytes),
/// `"comparison": {"predicted_peak_bytes", "measured_peak_bytes", "difference_bytes"
/// (measured - predicted), "difference_percent" (of predicted; null when it is 0)}` and
/// `"not_modelled": [{"id", "en", "zh", "bytes" (where the snapshot shows them)}]`. Throws
/// InputError for a bad document, and for a bad snapshot with its path under "/measured".
/// Refuses a snapshot file of `file_size` bytes past kMaxPickleBytes before anyone reads it
/// whole (the CLI from the file system, the page from File.size): InputError kTooLarge at
/// "/measured", in English and Chinese. Sizes at or under the limit pass.
void checkSnapshotFileSize(uint64_t file_size);

nlohmann::json measuredTimelineDocument(const nlohmann::json& document, const std::string& snapshot,
                                        int device = -1);

}  // namespace dlcost
