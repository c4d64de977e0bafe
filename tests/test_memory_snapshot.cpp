// PyTorch CUDA memory snapshots read as an active-memory curve, and every way the pickle can
// be refused. The fixtures under tests/fixtures/memory-snapshots/ are WRITTEN FROM THE FORMAT
// (tests/measured/make_snapshots.py: the dict layout of torch/csrc/cuda/Module.cpp, pickled by
// Python's pickle at protocol 4), NOT RECORDED on a GPU; the expected figures are the ones that
// script computes the way PyTorch's memory viewer does (MemoryViz.js, process_alloc_data).
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dlcost/base/error.hpp"
#include "dlcost/measured/memory_snapshot.hpp"
#include "dlcost/measured/pickle.hpp"
#include "dlcost/report/measured_json.hpp"

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/memory-snapshots/" + name, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

dlcost::MeasuredMemory read(const std::string& bytes, int device = -1) {
  return dlcost::readMemorySnapshot(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                    device);
}

dlcost::Error readError(const std::string& bytes) {
  try {
    read(bytes);
  } catch (const dlcost::InputError& e) {
    return e.error();
  }
  FAIL("no InputError");
  return {};
}

}  // namespace

TEST_CASE("A snapshot's peak, reserved bytes and counts are the viewer's", "[snapshot]") {
  struct Case {
    const char* file;
    int device;
    int64_t peak;
    size_t points;
    int64_t reserved;
    int64_t peak_reserved;
  };
  // make_snapshots.py: train_step = weights 8 MiB (requested 8 MiB - 512) and a 1 MiB buffer
  // alive before the trace, then +4 +6 +2 -2 +8 MiB -> 27 MiB - 512 at the gradients' alloc;
  // reserved 8 + 32 MiB at the end, 42 MiB before the 2 MiB segment_free.
  const Case c = GENERATE(Case{"train_step.pickle", 0, 27 * kMiB - 512, 11, 40 * kMiB, 42 * kMiB},
                          // one active block of 1,000,000 requested bytes; pending frees are not
                          // active_allocated
                          Case{"segments_only.pickle", 0, 1000000, 1, 2 * kMiB, 2 * kMiB},
                          // device 1 has the trace: 1 MiB, 2 MiB, 1 MiB
                          Case{"two_devices.pickle", 1, 2 * kMiB, 4, 2 * kMiB, 2 * kMiB});
  CAPTURE(c.file);
  const dlcost::MeasuredMemory m = read(fixture(c.file));
  CHECK(m.device == c.device);
  CHECK(m.peak_bytes() == c.peak);
  CHECK(m.points.size() == c.points);
  CHECK(m.reserved_bytes == c.reserved);
  CHECK(m.peak_reserved_bytes == c.peak_reserved);
}

TEST_CASE("The train-step snapshot's peak is the gradients' alloc, event 6", "[snapshot]") {
  const dlcost::MeasuredMemory m = read(fixture("train_step.pickle"));
  const dlcost::MeasuredPoint& p = m.points[m.peak];
  CHECK(p.event == 6);
  CHECK(p.time_us == 1050);
  CHECK(m.points.front().event == -1);
  CHECK(m.points.front().active_bytes == 9 * kMiB - 512);  // alive before the trace
  CHECK(m.trace_events == 14);
  CHECK(m.allocs == 5);
  CHECK(m.frees == 5);
  CHECK(m.segments == 2);
  CHECK(m.active_at_snapshot == 16 * kMiB - 512);  // the weights and the gradients
  CHECK(m.devices == std::vector<int>{0});
}

TEST_CASE("A device is chosen by number and an absent one is refused", "[snapshot]") {
  const std::string bytes = fixture("two_devices.pickle");
  CHECK(read(bytes, 0).peak_bytes() == 2 * kMiB);  // device 0: its one active block
  CHECK(read(bytes, 0).devices == std::vector<int>{0, 1});
  try {
    read(bytes, 3);
    FAIL("device 3 read");
  } catch (const dlcost::InputError& e) {
    CHECK_THAT(e.error().message, Catch::Contains("device 3"));
  }
}

TEST_CASE("Bad snapshot bytes are refused with the offset and the opcode", "[snapshot]") {
  const std::string good = fixture("train_step.pickle");
  struct Case {
    const char* what;
    std::string bytes;
    dlcost::ErrorCode code;
    const char* says;
  };
  const std::string huge_count =
      std::string("\x80\x04\x8d", 3) + std::string("\xff\xff\xff\x7f\0\0\0\0", 8);
  const Case c = GENERATE_COPY(
      Case{"truncated", good.substr(0, good.size() / 2), dlcost::ErrorCode::kParse, "truncated"},
      Case{"empty", "", dlcost::ErrorCode::kParse, "PROTO"},
      Case{"protocol 1", std::string("\x80\x01N.", 4), dlcost::ErrorCode::kParse, "protocol 1"},
      Case{"JSON, not a pickle", "{\"segments\": []}", dlcost::ErrorCode::kParse, "PROTO"},
      // os.system by name: refused before anything could be built
      Case{"GLOBAL", std::string("\x80\x04\x63posix\nsystem\n.", 17), dlcost::ErrorCode::kParse,
           "pickle byte 2, opcode 0x63 (GLOBAL)"},
      Case{"STACK_GLOBAL", std::string("\x80\x04\x93.", 4), dlcost::ErrorCode::kParse,
           "(STACK_GLOBAL)"},
      Case{"REDUCE", std::string("\x80\x04NN\x52.", 6), dlcost::ErrorCode::kParse, "(REDUCE)"},
      // a string claiming 2^31 bytes in a 14-byte file: refused before any allocation
      Case{"huge count", huge_count, dlcost::ErrorCode::kParse, "more bytes"},
      Case{"int of 9 bytes", std::string("\x80\x04\x8a\x09", 4) + std::string(9, '\1') + ".",
           dlcost::ErrorCode::kParse, "wider than 64 bits"},
      Case{"65 nested lists",
           std::string("\x80\x04", 2) + std::string(65, ']') + std::string(64, 'a') + ".",
           dlcost::ErrorCode::kParse, "nest deeper than 64"},
      Case{"65 nested MARKs", std::string("\x80\x04", 2) + std::string(65, '('),
           dlcost::ErrorCode::kParse, "MARKs nest deeper"},
      Case{"BINGET of an unset memo", std::string("\x80\x04h\x07.", 5), dlcost::ErrorCode::kParse,
           "memo entry 7"},
      Case{"APPEND to a dict", std::string("\x80\x04}Na.", 6), dlcost::ErrorCode::kParse,
           "not a list"},
      Case{"not a dict", std::string("\x80\x04N.", 4), dlcost::ErrorCode::kType,
           "a dict was expected"},
      Case{"no segments", std::string("\x80\x04}.", 4), dlcost::ErrorCode::kMissingField,
           "segments: missing"});
  CAPTURE(c.what);
  const dlcost::Error e = readError(c.bytes);
  CHECK(e.code == c.code);
  CHECK_THAT(e.message, Catch::Contains(c.says));
}

TEST_CASE("A bad field is named by its path in the snapshot", "[snapshot]") {
  // make_snapshots.py: the trace's first event has size -5.
  const dlcost::Error e = readError(fixture("negative_size.pickle"));
  CHECK(e.code == dlcost::ErrorCode::kValue);
  CHECK(e.path == "/device_traces/0/0/size");
  CHECK_THAT(e.message, Catch::StartsWith("device_traces[0][0].size: negative"));
}

TEST_CASE("A very long pickle is refused without reading it", "[snapshot]") {
  // The size check comes first: the bytes past the header are never touched.
  const std::string head("\x80\x04N.", 4);
  try {
    dlcost::readPickle(reinterpret_cast<const uint8_t*>(head.data()), dlcost::kMaxPickleBytes + 1);
    FAIL("read");
  } catch (const dlcost::InputError& e) {
    CHECK(e.error().code == dlcost::ErrorCode::kTooLarge);
  }
}

TEST_CASE("A snapshot file past the limit is refused from its size, in both languages",
          "[snapshot]") {
  // The CLI (file_size) and the page (File.size) ask before reading the file.
  CHECK_NOTHROW(dlcost::checkSnapshotFileSize(dlcost::kMaxPickleBytes));
  try {
    dlcost::checkSnapshotFileSize(uint64_t{300} << 20);
    FAIL("accepted");
  } catch (const dlcost::InputError& e) {
    CHECK(e.error().code == dlcost::ErrorCode::kTooLarge);
    CHECK(e.error().path == "/measured");
    CHECK(
        e.error().message ==
        "memory snapshot: the file is 314572800 bytes; dlcost reads snapshots of at most 256 MiB");
    CHECK_FALSE(e.error().message_zh.empty());
  }
}

TEST_CASE("A long measured curve keeps at most 2,000 points and its peak", "[snapshot]") {
  // A saw-tooth of 100,001 points whose one highest point (index 77,777) is 10 bytes above
  // the rest: the JSON keeps each bucket's lowest and highest, so it must survive.
  dlcost::MeasuredMemory m;
  for (int64_t i = 0; i <= 100000; ++i) m.points.push_back({i, i, (i % 7) * 100});
  m.points[77777].active_bytes = 610;
  m.peak = 77777;
  const nlohmann::json j = dlcost::measuredToJson(m);
  CHECK(j["points"].size() <= dlcost::kMaxMeasuredPoints);
  CHECK(j["points_total"] == 100001);
  const size_t at = j["peak"]["point"].get<size_t>();
  CHECK(j["points"][at]["event"] == 77777);
  CHECK(j["points"][at]["bytes"] == 610);
  CHECK(j["peak"]["bytes"] == 610);
}
