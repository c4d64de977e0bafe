#include "dlcost/report/measured_json.hpp"

#include <algorithm>

#include "dlcost/base/error.hpp"
#include "dlcost/measured/pickle.hpp"
#include "dlcost/report/timeline_json.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

json pointJson(const MeasuredPoint& p) {
  return {{"event", p.event}, {"time_us", p.time_us}, {"bytes", p.active_bytes}};
}

/// Indices of the points kept: all of them when few; else, in each of kMaxMeasuredPoints / 2
/// buckets, the first lowest and the first highest in order (the first highest of all, the
/// peak, is its bucket's first highest).
std::vector<size_t> keptPoints(const std::vector<MeasuredPoint>& points) {
  std::vector<size_t> kept;
  const size_t n = points.size();
  if (n <= kMaxMeasuredPoints) {
    for (size_t i = 0; i < n; ++i) kept.push_back(i);
    return kept;
  }
  const size_t buckets = kMaxMeasuredPoints / 2;
  for (size_t b = 0; b < buckets; ++b) {
    const size_t from = n * b / buckets, to = n * (b + 1) / buckets;
    size_t lo = from, hi = from;
    for (size_t i = from; i < to; ++i) {
      if (points[i].active_bytes < points[lo].active_bytes) lo = i;
      if (points[i].active_bytes > points[hi].active_bytes) hi = i;
    }
    kept.push_back(std::min(lo, hi));
    if (lo != hi) kept.push_back(std::max(lo, hi));
  }
  return kept;
}

/// What the snapshot or the GPU holds that neither the engine's curve nor (for some) the
/// snapshot's active curve shows.
json notModelled(const MeasuredMemory& m) {
  json out = json::array();
  const int64_t cached = std::max<int64_t>(0, m.peak_reserved_bytes - m.peak_bytes());
  out.push_back({{"id", "allocator_cache"},
                 {"bytes", cached},
                 {"en",
                  "the caching allocator's reserved but unused memory (cached free blocks, "
                  "fragmentation): the snapshot's reserved peak above its active peak; "
                  "nvidia-smi shows reserved memory"},
                 {"zh",
                  "缓存分配器已保留但未使用的显存（缓存的空闲块、碎片）：快照的保留峰值高于活跃峰值"
                  "的部分；nvidia-smi 显示的是保留显存"}});
  out.push_back(
      {{"id", "cuda_context"},
       {"en",
        "the CUDA context and loaded kernels (hundreds of MiB per process), "
        "outside the allocator: in neither curve"},
       {"zh", "CUDA 上下文与已加载的内核（每个进程数百 MiB），不经分配器：两条曲线都不含"}});
  out.push_back(
      {{"id", "nccl"},
       {"en", "NCCL's communication buffers, which NCCL allocates itself: in neither curve"},
       {"zh", "NCCL 自行分配的通信缓冲区：两条曲线都不含"}});
  out.push_back({{"id", "other_processes"},
                 {"en", "other processes on the same GPU"},
                 {"zh", "同一 GPU 上的其他进程"}});
  if (m.points.front().active_bytes > 0) {
    out.push_back({{"id", "before_recording"},
                   {"bytes", m.points.front().active_bytes},
                   {"en",
                    "memory allocated before recording began is placed at the start of the "
                    "measured curve, not where it was allocated"},
                   {"zh", "开始记录之前分配的显存放在实测曲线的起点，而不是其分配之时"}});
  }
  return out;
}

}  // namespace

json measuredToJson(const MeasuredMemory& m) {
  json points = json::array();
  size_t peak_at = 0;
  for (size_t i : keptPoints(m.points)) {
    if (i == m.peak) peak_at = points.size();
    points.push_back(pointJson(m.points[i]));
  }
  json peak = pointJson(m.points[m.peak]);
  peak["point"] = peak_at;
  return {{"device", m.device},
          {"devices", m.devices},
          {"events", m.trace_events},
          {"allocs", m.allocs},
          {"frees", m.frees},
          {"ooms", m.ooms},
          {"segments", m.segments},
          {"reserved_bytes", m.reserved_bytes},
          {"peak_reserved_bytes", m.peak_reserved_bytes},
          {"active_at_snapshot_bytes", m.active_at_snapshot},
          {"points_total", m.points.size()},
          {"points", std::move(points)},
          {"peak", std::move(peak)}};
}

void checkSnapshotFileSize(uint64_t file_size) {
  if (file_size <= kMaxPickleBytes) return;
  const std::string size = std::to_string(file_size), limit = std::to_string(kMaxPickleBytes >> 20);
  throw InputError(
      ErrorCode::kTooLarge, "/measured",
      Text{"memory snapshot: the file is " + size + " bytes; dlcost reads snapshots of at most " +
               limit + " MiB",
           "内存快照：文件有 " + size + " 字节；dlcost 读取的快照最多 " + limit + " MiB"});
}

json measuredTimelineDocument(const json& document, const std::string& snapshot, int device) {
  MeasuredMemory m;
  try {
    m = readMemorySnapshot(reinterpret_cast<const uint8_t*>(snapshot.data()), snapshot.size(),
                           device);
  } catch (const InputError& e) {
    Error err = e.error();
    err.path = "/measured" + err.path;
    err.message = "memory snapshot: " + err.message;
    throw InputError(err);
  }
  json out = timelineDocument(document);
  const int64_t predicted = out["peak"]["total"].get<int64_t>();
  const int64_t measured = m.peak_bytes();
  json percent = nullptr;
  if (predicted > 0) percent = 100.0 * static_cast<double>(measured - predicted) / predicted;
  out["measured"] = measuredToJson(m);
  out["comparison"] = {{"predicted_peak_bytes", predicted},
                       {"measured_peak_bytes", measured},
                       {"difference_bytes", measured - predicted},
                       {"difference_percent", percent}};
  out["not_modelled"] = notModelled(m);
  return out;
}

}  // namespace dlcost
