#include "dlcost/measured/memory_snapshot.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "dlcost/base/checked.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/measured/pickle.hpp"

namespace dlcost {

namespace {

/// Sizes and addresses past 2^50 (1 PiB) are no GPU's; refusing them keeps every sum of up to
/// 2^24 of them inside 64 bits.
constexpr int64_t kMaxSnapshotBytes = int64_t{1} << 50;

/// Where a value sits, as a JSON pointer (the Error's path) and as Python would index it (the
/// message): "/device_traces/0/12/size" and "device_traces[0][12].size".
struct Where {
  std::string pointer;
  std::string python;
  Where key(const std::string& k) const {
    return {childPath(pointer, k), python.empty() ? k : python + "." + k};
  }
  Where at(size_t i) const {
    return {childPath(pointer, i), python + "[" + std::to_string(i) + "]"};
  }
};

class SnapshotFields {
 public:
  explicit SnapshotFields(const PickleDocument& doc) : doc_(doc) {}

  [[noreturn]] void fail(ErrorCode code, const Where& w, const std::string& why) const {
    throw InputError(code, w.pointer, (w.python.empty() ? "the snapshot" : w.python) + ": " + why);
  }
  void expect(uint32_t id, const Where& w, std::initializer_list<PickleKind> kinds) const {
    for (PickleKind k : kinds)
      if (doc_.value(id).kind == k) return;
    fail(ErrorCode::kType, w,
         std::string("a ") + pickleKindName(*kinds.begin()) + " was expected, the file has a " +
             pickleKindName(doc_.value(id).kind));
  }
  std::optional<uint32_t> optional(uint32_t dict, const Where& w, const char* key) const {
    expect(dict, w, {PickleKind::kDict});
    return doc_.get(dict, key);
  }
  uint32_t required(uint32_t dict, const Where& w, const char* key) const {
    const auto id = optional(dict, w, key);
    if (!id) fail(ErrorCode::kMissingField, w.key(key), "missing");
    return *id;
  }
  /// A list or tuple's items.
  const std::vector<uint32_t>& list(uint32_t id, const Where& w) const {
    expect(id, w, {PickleKind::kList, PickleKind::kTuple});
    return doc_.items(id);
  }
  /// A byte count or address: an int in [0, 2^50].
  int64_t bytes(uint32_t id, const Where& w) const {
    expect(id, w, {PickleKind::kInt});
    const int64_t v = doc_.value(id).integer;
    if (v < 0) fail(ErrorCode::kValue, w, "negative (" + std::to_string(v) + ")");
    if (v > kMaxSnapshotBytes) fail(ErrorCode::kTooLarge, w, std::to_string(v) + " is past 2^50");
    return v;
  }
  int64_t bytesField(uint32_t dict, const Where& w, const char* key) const {
    return bytes(required(dict, w, key), w.key(key));
  }
  std::string text(uint32_t id, const Where& w) const {
    expect(id, w, {PickleKind::kString});
    return *doc_.text(id);
  }

 private:
  const PickleDocument& doc_;
};

/// One alloc or free of the chosen device's trace, before the curve is summed.
struct ActiveChange {
  int64_t event;
  int64_t time_us;
  int64_t delta;
};

/// The trace walk: the changes of active bytes, the bytes freed that the trace never saw
/// allocated (alive before it started), and the addresses still allocated at its end.
struct TraceWalk {
  std::vector<ActiveChange> changes;
  std::vector<std::pair<int64_t, int64_t>> segment_changes;  ///< (event, reserved delta)
  std::unordered_map<int64_t, int64_t> live;                 ///< addr -> size at the end
  int64_t freed_unseen = 0;
};

void walkEvent(const SnapshotFields& f, uint32_t e, const Where& w, int64_t index, TraceWalk& walk,
               MeasuredMemory& m) {
  const std::string action = f.text(f.required(e, w, "action"), w.key("action"));
  if (action == "oom") ++m.ooms;
  const bool alloc = action == "alloc", free = action == "free_completed" || action == "free";
  const bool seg_up = action == "segment_alloc" || action == "segment_map";
  const bool seg_down = action == "segment_free" || action == "segment_unmap";
  if (!alloc && !free && !seg_up && !seg_down) return;  // free_requested, snapshot, oom, ...
  const int64_t addr = f.bytesField(e, w, "addr");
  const int64_t size = f.bytesField(e, w, "size");
  if (seg_up || seg_down) {
    walk.segment_changes.emplace_back(index, seg_up ? size : -size);
    return;
  }
  const auto t = f.optional(e, w, "time_us");
  const int64_t time_us = t ? f.bytes(*t, w.key("time_us")) : -1;
  if (alloc) {
    ++m.allocs;
    walk.live[addr] = size;
    walk.changes.push_back({index, time_us, size});
    return;
  }
  ++m.frees;
  const auto found = walk.live.find(addr);
  // The viewer frees what the alloc allocated; a free with no alloc was alive from the start.
  const int64_t freed = found != walk.live.end() ? found->second : size;
  if (found != walk.live.end()) {
    walk.live.erase(found);
  } else {
    walk.freed_unseen = checkedAdd(walk.freed_unseen, size);
  }
  walk.changes.push_back({index, time_us, -freed});
}

/// Active blocks of the device's segments that the trace did not allocate (alive before it
/// began), and the segments' totals; block addresses follow from the segment's address and
/// the sizes before them, as the viewer computes them.
int64_t readSegments(const SnapshotFields& f, const std::vector<uint32_t>& segments, const Where& w,
                     const TraceWalk& walk, MeasuredMemory& m) {
  int64_t alive_before = 0;
  for (size_t s = 0; s < segments.size(); ++s) {
    const Where ws = w.at(s);
    const int64_t device = f.bytesField(segments[s], ws, "device");
    if (device != m.device) continue;
    ++m.segments;
    m.reserved_bytes = checkedAdd(m.reserved_bytes, f.bytesField(segments[s], ws, "total_size"));
    int64_t addr = f.bytesField(segments[s], ws, "address");
    const Where wb = ws.key("blocks");
    const std::vector<uint32_t>& blocks = f.list(f.required(segments[s], ws, "blocks"), wb);
    for (size_t b = 0; b < blocks.size(); ++b) {
      const Where wi = wb.at(b);
      const int64_t size = f.bytesField(blocks[b], wi, "size");
      const auto requested = f.optional(blocks[b], wi, "requested_size");
      const int64_t used = requested ? f.bytes(*requested, wi.key("requested_size")) : size;
      const std::string state = f.text(f.required(blocks[b], wi, "state"), wi.key("state"));
      if (state == "active_allocated") {
        m.active_at_snapshot = checkedAdd(m.active_at_snapshot, used);
        if (!walk.live.count(addr)) alive_before = checkedAdd(alive_before, used);
      }
      addr = checkedAdd(addr, size);
    }
  }
  return alive_before;
}

/// Every device the snapshot names, with its trace length and reserved bytes, to choose one.
int chooseDevice(const SnapshotFields& f, const std::vector<uint32_t>& traces,
                 const std::vector<uint32_t>& segments, const Where& wt, const Where& ws,
                 int wanted, MeasuredMemory& m) {
  std::map<int64_t, std::pair<size_t, int64_t>> seen;  // device -> (events, reserved)
  for (size_t d = 0; d < traces.size(); ++d) {
    const size_t events = f.list(traces[d], wt.at(d)).size();
    if (events > 0) seen[static_cast<int64_t>(d)].first = events;
  }
  for (size_t s = 0; s < segments.size(); ++s) {
    const int64_t device = f.bytesField(segments[s], ws.at(s), "device");
    auto& entry = seen[device];
    entry.second = checkedAdd(entry.second, f.bytesField(segments[s], ws.at(s), "total_size"));
  }
  if (seen.empty()) {
    f.fail(ErrorCode::kValue, Where{},
           "no device has a segment or a trace event: was _record_memory_history() on while "
           "the model ran?");
  }
  int64_t best = seen.begin()->first;
  for (const auto& [device, counts] : seen) {
    m.devices.push_back(static_cast<int>(std::min<int64_t>(device, 1 << 20)));
    if (counts > seen[best]) best = device;  // more events first, then more reserved bytes
  }
  if (wanted < 0) return static_cast<int>(std::min<int64_t>(best, 1 << 20));
  if (!seen.count(wanted)) {
    f.fail(ErrorCode::kValue, Where{},
           "device " + std::to_string(wanted) + " has neither segments nor trace events");
  }
  return wanted;
}

/// The curve from the walk: the bytes alive before the trace, then each change; the peak; and
/// the most reserved, walking the segment events back from the reserved bytes at the end.
void sumCurve(const TraceWalk& walk, int64_t alive_before, MeasuredMemory& m) {
  int64_t level = checkedAdd(alive_before, walk.freed_unseen);
  m.points.reserve(walk.changes.size() + 1);
  m.points.push_back({-1, -1, level});
  for (const ActiveChange& c : walk.changes) {
    level = checkedAdd(level, c.delta);
    m.points.push_back({c.event, c.time_us, level});
    if (level > m.points[m.peak].active_bytes) m.peak = m.points.size() - 1;
  }
  int64_t reserved = m.reserved_bytes;
  m.peak_reserved_bytes = reserved;
  for (auto it = walk.segment_changes.rbegin(); it != walk.segment_changes.rend(); ++it) {
    reserved = checkedSub(reserved, it->second);
    m.peak_reserved_bytes = std::max(m.peak_reserved_bytes, reserved);
  }
}

}  // namespace

MeasuredMemory readMemorySnapshot(const uint8_t* data, size_t size, int device) {
  const PickleDocument doc = readPickle(data, size);
  const SnapshotFields f(doc);
  const Where top{};
  const Where wt = top.key("device_traces"), ws = top.key("segments");
  const std::vector<uint32_t>& segments = f.list(f.required(doc.root(), top, "segments"), ws);
  const auto traces_id = f.optional(doc.root(), top, "device_traces");
  static const std::vector<uint32_t> kNone;
  const std::vector<uint32_t>& traces = traces_id ? f.list(*traces_id, wt) : kNone;

  MeasuredMemory m;
  m.device = chooseDevice(f, traces, segments, wt, ws, device, m);
  TraceWalk walk;
  if (static_cast<size_t>(m.device) < traces.size()) {
    const Where wd = wt.at(static_cast<size_t>(m.device));
    const std::vector<uint32_t>& events = f.list(traces[static_cast<size_t>(m.device)], wd);
    m.trace_events = static_cast<int64_t>(events.size());
    for (size_t i = 0; i < events.size(); ++i)
      walkEvent(f, events[i], wd.at(i), static_cast<int64_t>(i), walk, m);
  }
  const int64_t alive_before = readSegments(f, segments, ws, walk, m);
  sumCurve(walk, alive_before, m);
  return m;
}

}  // namespace dlcost
