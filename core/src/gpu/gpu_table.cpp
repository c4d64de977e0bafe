// The built-in GPU table, read from core/hardware/gpus.json (embedded at build time). Every
// row cites the datasheet or whitepaper its figures come from and states them as the source
// does (`datasheet_figures`); the file's "conventions" say how rows derive from them (dense
// rates, FP32 accumulate, per device), as dlcost/gpu.hpp does.

#include <algorithm>
#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "base/embedded_data.hpp"
#include "dlcost/types/gpu.hpp"
#include "types/json_reader.hpp"

#include "dlcost/base/enum_names.hpp"
#include "dlcost/gpu/gpu_table.hpp"

namespace dlcost {

namespace {

constexpr double kTera = 1e12;         // the table's rates are in 10^12 operations/s
constexpr double kGiga = 1e9;          // its bandwidths in decimal GB/s
constexpr double kMaxTableRate = 1e6;  // 10^18 operations/s: no device is near it
constexpr int64_t kMaxTableGib = int64_t{1} << 20;

double teraRate(const ObjectReader& rates, const char* key) {
  return rates.optionalNumber(key, 0, 0, kMaxTableRate) * kTera;
}

Gpu readGpuRow(const nlohmann::json& row, const std::string& path) {
  ObjectReader r(row, path);
  r.rejectUnknown({"id",
                   "name",
                   "vendor",
                   "architecture",
                   "release_year",
                   "memory_gib",
                   "smi_total_mib",
                   "cuda_total_mib",
                   "bandwidth_gb_s",
                   "dense_tera_ops_per_s",
                   "tdp_watts",
                   "price_usd",
                   "devices_per_board",
                   "intra_node_link",
                   "inter_node_link",
                   "datasheet_figures",
                   "unified_memory",
                   "cpu",
                   "notes",
                   "source"});
  Gpu g;
  g.id = r.requiredString("id");
  g.name = r.requiredString("name");
  g.vendor = r.requiredString("vendor");
  g.architecture = r.requiredString("architecture");
  g.release_year = static_cast<int>(r.requiredInt("release_year", 1990, 3000));
  g.memory_bytes = r.requiredInt("memory_gib", 1, kMaxTableGib) * (int64_t{1} << 30);
  g.smi_total_mib = r.requiredInt("smi_total_mib", 0, kMaxTableGib << 10);
  g.cuda_total_mib = r.optionalInt("cuda_total_mib", 0, 0, g.smi_total_mib);
  g.bandwidth_bytes_per_s = r.optionalNumber("bandwidth_gb_s", 0, 0, kMaxTableRate) * kGiga;
  ObjectReader rates(r.require("dense_tera_ops_per_s"), r.pathOf("dense_tera_ops_per_s"));
  rates.rejectUnknown({"fp32", "tf32", "fp16", "bf16", "fp8", "int8"});
  g.fp32_flops = teraRate(rates, "fp32");
  g.tf32_flops = teraRate(rates, "tf32");
  g.fp16_flops = teraRate(rates, "fp16");
  g.bf16_flops = teraRate(rates, "bf16");
  g.fp8_flops = teraRate(rates, "fp8");
  g.int8_ops = teraRate(rates, "int8");
  // 0: the vendor states no chip power (Apple silicon rows).
  g.tdp_watts = static_cast<int>(r.requiredInt("tdp_watts", 0, 1 << 20));
  g.price_usd = static_cast<int>(r.requiredInt("price_usd", 0, 1 << 30));
  g.devices_per_board = static_cast<int>(r.requiredInt("devices_per_board", 1, 64));
  g.intra_node_link = r.optionalString("intra_node_link", "");
  g.inter_node_link = r.optionalString("inter_node_link", "");
  r.requiredString("datasheet_figures");
  if (r.has("unified_memory")) {
    // {"gpu_limit": "how the GPU's default share of the RAM is set, and how to raise it"}
    ObjectReader u(r.require("unified_memory"), r.pathOf("unified_memory"));
    u.rejectUnknown({"gpu_limit"});
    g.unified_memory = true;
    g.unified_memory_note = u.requiredString("gpu_limit");
  }
  if (r.has("cpu")) {
    // {"memory_channels": N, "memory_mt_s": MT/s}: the DDR channels bandwidth_gb_s comes from.
    ObjectReader c(r.require("cpu"), r.pathOf("cpu"));
    c.rejectUnknown({"memory_channels", "memory_mt_s"});
    g.cpu = true;
    g.memory_channels = static_cast<int>(c.requiredInt("memory_channels", 1, 64));
    g.memory_mt_s = static_cast<int>(c.requiredInt("memory_mt_s", 1, 100000));
  }
  g.notes = r.requiredString("notes");
  g.source = r.requiredString("source");
  // A unified-memory part whose vendor publishes no compute rate keeps fp32 at 0 (not
  // published): its compute-bound figures are unavailable (dlcost/gpu_compute.hpp).
  if (g.bandwidth_bytes_per_s <= 0 || (g.fp32_flops <= 0 && !g.unified_memory)) {
    throw InputError(ErrorCode::kValue, path, "a GPU row needs bandwidth and an FP32 rate");
  }
  return g;
}

/// Reads the embedded table; a malformed row is a build defect, which the GPU table tests
/// catch before release (they load the table and check every row).
std::vector<Gpu> buildTable() {
  const nlohmann::json doc = nlohmann::json::parse(kGpuTableJson);
  ObjectReader r(doc, "");
  r.rejectUnknown({"schema", "conventions", "gpus"});
  const nlohmann::json& rows = r.require("gpus");
  std::vector<Gpu> table;
  for (size_t i = 0; i < rows.size(); ++i) {
    table.push_back(readGpuRow(rows[i], r.pathOf("gpus", i)));
  }
  return table;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

const char* mathFormatName(MathFormat format) {
  switch (format) {
    case MathFormat::kFp32:
      return "fp32";
    case MathFormat::kTf32:
      return "tf32";
    case MathFormat::kFp16:
      return "fp16";
    case MathFormat::kBf16:
      return "bf16";
    case MathFormat::kFp8:
      return "fp8";
    case MathFormat::kInt8:
      return "int8";
  }
  return "fp32";
}

std::optional<MathFormat> parseMathFormat(const std::string& name) {
  return parseEnum(kMathFormats, mathFormatName, name);
}

const std::vector<Gpu>& gpuPresets() {
  static const std::vector<Gpu> kTable = buildTable();
  return kTable;
}

const Gpu* findGpu(const std::string& id) {
  const std::string key = lower(id);
  for (const Gpu& g : gpuPresets()) {
    if (g.id == key) return &g;
  }
  return nullptr;
}

int64_t gpuCapacityBytes(const Gpu& gpu) {
  return gpu.smi_total_mib > 0 ? gpu.smi_total_mib * (int64_t{1} << 20) : gpu.memory_bytes;
}

int64_t gpuCudaTotalBytes(const Gpu& gpu) {
  return gpu.cuda_total_mib > 0 ? gpu.cuda_total_mib * (int64_t{1} << 20) : gpuCapacityBytes(gpu);
}

double gpuPeak(const Gpu& gpu, MathFormat format) {
  switch (format) {
    case MathFormat::kFp32:
      return gpu.fp32_flops;
    case MathFormat::kTf32:
      return gpu.tf32_flops;
    case MathFormat::kFp16:
      return gpu.fp16_flops;
    case MathFormat::kBf16:
      return gpu.bf16_flops;
    case MathFormat::kFp8:
      return gpu.fp8_flops;
    case MathFormat::kInt8:
      return gpu.int8_ops;
  }
  return 0;
}

}  // namespace dlcost
