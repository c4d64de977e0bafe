// The GPU table against its datasheets, and the conventions every row must follow.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "dlcost/gpu/gpu_compute.hpp"
#include "dlcost/gpu/gpu_json.hpp"
#include "dlcost/gpu/gpu_table.hpp"
#include "dlcost/types/gpu.hpp"

using Catch::Matchers::WithinRel;
using dlcost::findGpu;
using dlcost::Gpu;
using dlcost::gpuPresets;

namespace {

constexpr double kT = 1e12;
constexpr double kG = 1e9;
constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;
/// Datasheets print three or four significant digits.
constexpr double kDatasheetRounding = 0.005;

/// A datasheet's figures in the datasheet's own form: sparse where it prints sparse figures,
/// per board where it describes a board, FP16-accumulate where NVIDIA headlines that.
struct Sheet {
  const char* id;
  double memory_gib;     ///< marketed "GB" per board
  int64_t smi_mib;       ///< nvidia-smi's total (observed), per device
  double bandwidth_gbs;  ///< per board
  double fp32_tflops;    ///< per board
  double fp16_tflops;    ///< as printed
  double tf32_tflops;    ///< as printed
  double fp8_tflops;     ///< as printed
  int tdp_w;
  int devices = 1;                ///< devices per board
  double printed_over_dense = 1;  ///< 2 where the sheet prints sparse (or FP16-accumulate) rates
};

}  // namespace

TEST_CASE("the table holds at least 30 GPUs with unique ids and the ones users ask for",
          "[gpu][presets]") {
  CHECK(gpuPresets().size() >= 30);
  std::set<std::string> ids;
  for (const Gpu& g : gpuPresets()) {
    CAPTURE(g.id);
    CHECK(ids.insert(g.id).second);
    CHECK_FALSE(g.source.empty());
  }
  for (const char* id :
       {"tesla-k80", "gtx-1080-ti", "titan-x-pascal", "titan-xp", "titan-v", "v100-sxm2-16gb",
        "v100-sxm2-32gb", "t4", "p100-pcie-16gb", "rtx-2080-ti", "rtx-3060-12gb", "rtx-3080",
        "rtx-3090", "rtx-4060-ti-16gb", "rtx-4070", "rtx-4080", "rtx-4090", "rtx-5080", "rtx-5090",
        "a10", "a40", "a100-sxm4-40gb", "a100-sxm4-80gb", "l4", "l40s", "h100-sxm", "h100-pcie",
        "h200", "b200", "mi250x", "mi300x", "rtx-6000-ada", "rtx-a6000",
        // issue #32's list of GPUs users run
        "rtx-3070", "rtx-3080-ti", "rtx-4070-ti", "rtx-5000-ada", "a100-pcie-80gb", "gb200",
        "rtx-pro-6000-blackwell", "apple-m1-8gb", "apple-m1-max-24c-32gb", "apple-m2-8gb",
        "apple-m2-16gb", "apple-m4-max-32c-36gb", "rtx-4000-ada", "h100-nvl", "apple-m2-pro-32gb",
        "apple-m2-max-96gb"}) {
    CAPTURE(id);
    CHECK(findGpu(id) != nullptr);
  }
  CHECK(findGpu("H100-SXM") == findGpu("h100-sxm"));
  CHECK(findGpu("h100") == nullptr);
}

TEST_CASE("preset figures equal their datasheets after the documented conversions",
          "[gpu][presets]") {
  const Sheet s = GENERATE(
      // NVIDIA H100 datasheet, SXM column, printed with sparsity: FP16 1979, TF32 989,
      // FP8 3958; FP32 67; 80 GB HBM3 at 3.35 TB/s; 700 W. nvidia-smi: 81559 MiB.
      Sheet{"h100-sxm", 80, 81559, 3350, 67, 1979, 989, 3958, 700, 1, 2},
      // Same datasheet, PCIe column: FP16 1513*, TF32 756*, FP8 3026*, FP32 51, 2.0 TB/s, 350 W.
      Sheet{"h100-pcie", 80, 81559, 2000, 51, 1513, 756, 3026, 350, 1, 2},
      // NVIDIA A100 datasheet (80GB SXM): FP32 19.5, TF32 156, FP16 312 dense; 2039 GB/s; 400 W.
      Sheet{"a100-sxm4-80gb", 80, 81920, 2039, 19.5, 312, 156, 0, 400},
      // Same, 40GB SXM: 1555 GB/s. nvidia-smi: 40960 MiB.
      Sheet{"a100-sxm4-40gb", 40, 40960, 1555, 19.5, 312, 156, 0, 400},
      // Same datasheet, 80GB PCIe column: the SXM rates, 1935 GB/s, 300 W.
      Sheet{"a100-pcie-80gb", 80, 81920, 1935, 19.5, 312, 156, 0, 300},
      // GA102 whitepaper Appendix A, RTX 3070: FP16 tensor 81.3 with FP16 accumulate (40.6
      // with FP32), TF32 40.6 sparse; FP32 20.3; 8 GB at 448 GB/s; 220 W.
      Sheet{"rtx-3070", 8, 8192, 448, 20.3, 81.3, 40.6, 0, 220, 1, 2},
      // NVIDIA RTX 5000 Ada datasheet: FP32 65.3, 1044.4 tensor TFLOPS (FP8, sparse), 32 GB at
      // 576 GB/s, 250 W; FP16 and TF32 are the FP8 figure's half and quarter (per-SM rates).
      Sheet{"rtx-5000-ada", 32, 0, 576, 65.3, 522.2, 261.1, 1044.4, 250, 1, 2},
      // NVIDIA RTX 4000 Ada Generation datasheet: FP32 26.7, 327.6 tensor TFLOPS (FP8, sparse),
      // 20 GB GDDR6 at 360 GB/s, 130 W; FP16 and TF32 the FP8 figure's half and quarter.
      Sheet{"rtx-4000-ada", 20, 0, 360, 26.7, 163.8, 81.9, 327.6, 130, 1, 2},
      // NVIDIA H100 datasheet, H100 NVL column (sparse): FP16 1671, TF32 835, FP8 3341; FP32 60;
      // 94 GB HBM3 at 3.9 TB/s; 350-400 W. nvidia-smi: 95830 MiB ("NVIDIA H100 NVL", 400 W).
      Sheet{"h100-nvl", 94, 95830, 3900, 60, 1671, 835, 3341, 400, 1, 2},
      // GB200 NVL72 datasheet, per superchip of two GPUs (sparse): FP16 10 PF, TF32 5 PF, FP8
      // 20 PF; FP32 180 TF; 372 GB at 16 TB/s. Per GPU: half (the row is one GPU).
      Sheet{"gb200", 186, 0, 8000, 90, 5000, 2500, 10000, 1200, 1, 2},
      // RTX PRO 6000 Blackwell datasheet: FP32 125, 4000 AI TOPS (FP4 sparse = FP8 dense x 4),
      // 96 GB GDDR7 at 1792 GB/s, 600 W.
      Sheet{"rtx-pro-6000-blackwell", 96, 0, 1792, 125, 1007.6, 503.8, 2015.2, 600, 1, 2},
      // NVIDIA V100 datasheet (SXM2): FP32 15.7, tensor 125, 900 GB/s, 300 W.
      Sheet{"v100-sxm2-16gb", 16, 16160, 900, 15.7, 125, 0, 0, 300},
      // NVIDIA T4 datasheet: FP32 8.1, mixed FP16/FP32 65, 320 GB/s, 70 W; 15360 MiB (ECC on).
      Sheet{"t4", 16, 15360, 320, 8.1, 65, 0, 0, 70},
      // NVIDIA L4 datasheet (sparse): FP16 242, TF32 120, FP8 485; FP32 30.3; 300 GB/s; 72 W.
      Sheet{"l4", 24, 23034, 300, 30.3, 242, 120, 485, 72, 1, 2},
      // NVIDIA L40S datasheet, dense column: FP16 362.05, TF32 183, FP8 733 (its sparse column,
      // 733 / 366 / 1466, is not exactly twice); FP32 91.6; 864 GB/s; 350 W.
      Sheet{"l40s", 48, 46068, 864, 91.6, 362.05, 183, 733, 350},
      // Ada whitepaper v2.01, RTX 4090: FP16 tensor 330.3 with FP16 accumulate (half with FP32
      // accumulate), TF32 165.2 sparse; FP32 82.6; 1008 GB/s; 450 W.
      Sheet{"rtx-4090", 24, 24564, 1008, 82.6, 330.3, 165.2, 660.6, 450, 1, 2},
      // GA102 whitepaper, RTX 3090: FP16 tensor 142 with FP16 accumulate, TF32 71 sparse;
      // FP32 35.6; 936 GB/s; 350 W.
      Sheet{"rtx-3090", 24, 24576, 936, 35.6, 142, 71, 0, 350, 1, 2},
      // HGX B200 datasheet per GPU (sparse): FP16 4.5 PF, TF32 2.2 PF, FP8 9 PF; FP32 75;
      // 180 GB at 7.7 TB/s; 1000 W.
      Sheet{"b200", 180, 183359, 7700, 75, 4500, 2200, 9000, 1000, 1, 2},
      // Tesla K80 datasheet (board of two GPUs): 24 GB, 480 GB/s, 8.73 TFLOPS FP32 boost, 300 W.
      Sheet{"tesla-k80", 24, 11441, 480, 8.73, 0, 0, 0, 300, 2},
      // MI250X datasheet (module of two GCDs): 128 GB, 3.2 TB/s, FP32 matrix 95.7,
      // FP16 383 dense, 560 W.
      Sheet{"mi250x", 128, 0, 3200, 95.7, 383, 0, 0, 560, 2},
      // MI300X datasheet: 192 GB HBM3, 5.3 TB/s, FP32 163.4, FP16 1307.4, TF32 653.7,
      // FP8 2614.9 (dense), 750 W.
      Sheet{"mi300x", 192, 0, 5300, 163.4, 1307.4, 653.7, 2614.9, 750});
  CAPTURE(s.id);
  const Gpu* g = findGpu(s.id);
  REQUIRE(g);
  const double per_device = 1.0 / s.devices;
  CHECK(g->memory_bytes == static_cast<int64_t>(s.memory_gib * per_device) * kGiB);
  CHECK(g->smi_total_mib == s.smi_mib);
  CHECK_THAT(g->bandwidth_bytes_per_s,
             WithinRel(s.bandwidth_gbs * kG * per_device, kDatasheetRounding));
  CHECK_THAT(g->fp32_flops, WithinRel(s.fp32_tflops * kT * per_device, kDatasheetRounding));
  CHECK_THAT(g->fp16_flops,
             WithinRel(s.fp16_tflops * kT * per_device / s.printed_over_dense, kDatasheetRounding));
  CHECK_THAT(g->tf32_flops,
             WithinRel(s.tf32_tflops * kT * per_device / s.printed_over_dense, kDatasheetRounding));
  CHECK_THAT(g->fp8_flops,
             WithinRel(s.fp8_tflops * kT * per_device / s.printed_over_dense, kDatasheetRounding));
  CHECK(g->tdp_watts == s.tdp_w);
  CHECK(g->devices_per_board == s.devices);
}

TEST_CASE("every preset follows the hardware generations' format support", "[gpu][presets]") {
  // GPU-NOTES.md: no tensor cores before Volta, no BF16/TF32 before Ampere (CDNA 2 has BF16
  // but no TF32), FP8 only on Ada, Hopper, Blackwell and CDNA 3.
  for (const Gpu& g : gpuPresets()) {
    CAPTURE(g.id, g.architecture);
    const std::string a = g.architecture;
    const bool pre_volta = a == "Kepler" || a == "Pascal";
    const bool pre_ampere = pre_volta || a == "Volta" || a == "Turing";
    const bool has_fp8 = a == "Ada Lovelace" || a == "Hopper" || a == "Blackwell" || a == "CDNA 3";
    if (pre_volta) CHECK(g.fp16_flops == 0);
    if (pre_ampere) {
      CHECK(g.bf16_flops == 0);
      CHECK(g.tf32_flops == 0);
    }
    CHECK((g.fp8_flops > 0) == has_fp8);
    // Dense tensor math is never slower than plain FP32 where it exists.
    if (g.fp16_flops > 0) CHECK(g.fp16_flops >= g.fp32_flops);
    CHECK(g.bandwidth_bytes_per_s > 0);
    // Only a unified-memory part may leave its power unstated (0) or its compute unpublished.
    CHECK((g.tdp_watts > 0 || g.unified_memory));
    CHECK((dlcost::gpuComputePublished(g) || g.unified_memory));
    CHECK(g.release_year >= 2014);
    // nvidia-smi's total is at most the marketed GiB and loses at most ECC's 1/16 (K80's
    // GDDR5 with ECC shows 11441 of 12288 MiB).
    // Unified memory: smi_total_mib is the GPU's default share of the RAM (tested below).
    if (g.smi_total_mib > 0 && !g.unified_memory) {
      CHECK(g.smi_total_mib * kMiB <= g.memory_bytes);
      CHECK(g.smi_total_mib * kMiB >= g.memory_bytes * 92 / 100);
    }
    // CUDA's total excludes what the driver reserves, so it is at most nvidia-smi's.
    if (g.cuda_total_mib > 0) CHECK(g.cuda_total_mib <= g.smi_total_mib);
  }
}

TEST_CASE("GeForce 16-bit tensor rates are the FP32-accumulate half of the headline",
          "[gpu][presets]") {
  // Ada whitepaper v2.01: RTX 4090 FP16 tensor 330.3 TFLOPS with FP16 accumulate, 165.2 with
  // FP32 accumulate; the datacenter L40S on the same AD102 runs FP32 accumulate at full rate
  // (L40S datasheet: 362.05 TFLOPS FP16 dense).
  CHECK_THAT(findGpu("rtx-4090")->fp16_flops, WithinRel(165.2 * kT, kDatasheetRounding));
  CHECK_THAT(findGpu("l40s")->fp16_flops, WithinRel(362.05 * kT, kDatasheetRounding));
  // Turing whitepaper: RTX 2080 Ti 107.6 (FP16 acc) / 53.8 (FP32 acc) TFLOPS at reference clocks.
  CHECK_THAT(findGpu("rtx-2080-ti")->fp16_flops, WithinRel(107.6 / 2 * kT, kDatasheetRounding));
}

TEST_CASE("capacity is nvidia-smi's total where known, else the marketed size", "[gpu][presets]") {
  CHECK(dlcost::gpuCapacityBytes(*findGpu("h100-sxm")) == 81559 * kMiB);
  CHECK(dlcost::gpuCapacityBytes(*findGpu("mi300x")) == 192 * kGiB);
}

TEST_CASE("every preset reads back from its own JSON as a custom GPU", "[gpu][presets][json]") {
  // "Users can add a custom GPU in the same form": `dlcost gpus --json` rows are that form.
  for (const Gpu& g : gpuPresets()) {
    CAPTURE(g.id);
    const Gpu back = dlcost::parseGpu(dlcost::gpuToJson(g), "/workload/gpu");
    CHECK(back.id == g.id);
    CHECK(back.memory_bytes == g.memory_bytes);
    CHECK(back.smi_total_mib == g.smi_total_mib);
    CHECK(back.cuda_total_mib == g.cuda_total_mib);
    CHECK(back.bandwidth_bytes_per_s == g.bandwidth_bytes_per_s);
    CHECK(back.fp32_flops == g.fp32_flops);
    CHECK(back.tf32_flops == g.tf32_flops);
    CHECK(back.fp16_flops == g.fp16_flops);
    CHECK(back.bf16_flops == g.bf16_flops);
    CHECK(back.fp8_flops == g.fp8_flops);
    CHECK(back.int8_ops == g.int8_ops);
    CHECK(back.tdp_watts == g.tdp_watts);
    CHECK(back.price_usd == g.price_usd);
    CHECK(back.devices_per_board == g.devices_per_board);
    CHECK(back.source == g.source);
  }
}

TEST_CASE("Apple silicon's GPU gets macOS's default share of the unified memory",
          "[gpu][presets]") {
  // Metal's recommendedMaxWorkingSetSize: 2/3 of the RAM up to 36 GB, 3/4 above
  // (llama-cpp-python issue #687: 10922.67 MB on a 16 GB M1; GPUStack issue #1375: 75 %).
  CHECK(dlcost::gpuCapacityBytes(*findGpu("apple-m1-max-32gb")) == 32768 * 2 / 3 * kMiB);
  CHECK(dlcost::gpuCapacityBytes(*findGpu("apple-m2-ultra-192gb")) == 196608 * 3 / 4 * kMiB);
  CHECK(findGpu("apple-m2-ultra-192gb")->unified_memory);
  CHECK(findGpu("nvidia-gb10-128gb")->unified_memory);
  CHECK_FALSE(findGpu("h100-sxm")->unified_memory);
}

TEST_CASE("Apple and Strix Halo rows carry their datasheet memory and bandwidth",
          "[gpu][presets]") {
  struct Row {
    const char* id;
    int64_t ram_gib;
    double bandwidth_gbs;
    int64_t gpu_share_mib;  ///< the OS's default GPU share
  };
  const Row row = GENERATE(
      // Apple newsroom, M3 family (2023-10-30): M3 Pro 150 GB/s, up to 36 GB; M3 Max 40-core
      // 400 GB/s, up to 128 GB. macOS's share: 2/3 of the RAM up to 36 GB, 3/4 above.
      Row{"apple-m3-pro-36gb", 36, 150, 36864 * 2 / 3},
      Row{"apple-m3-max-128gb", 128, 400, 131072 * 3 / 4},
      // Apple newsroom, M4 Pro and M4 Max (2024-10-30): 273 GB/s up to 64 GB; 546 GB/s up to
      // 128 GB.
      Row{"apple-m4-pro-64gb", 64, 273, 65536 * 3 / 4},
      Row{"apple-m4-max-128gb", 128, 546, 131072 * 3 / 4},
      // Apple Mac Studio (2025) specifications: M3 Ultra 819 GB/s, up to 512 GB.
      Row{"apple-m3-ultra-512gb", 512, 819, 524288 * 3 / 4},
      // Apple MacBook Pro (M4 Max, Nov 2024) specifications: the 32-core GPU part with 36 GB,
      // 410 GB/s.
      Row{"apple-m4-max-32c-36gb", 36, 410, 36864 * 2 / 3},
      // Apple newsroom: M1 (2020-11-10) LPDDR4X-4266 on 128 bits = 68.25 GB/s; M2 (2022-06-06)
      // 100 GB/s; M1 Max (2021-10-18) 400 GB/s for both GPU sizes.
      Row{"apple-m1-8gb", 8, 68.25, 8192 * 2 / 3}, Row{"apple-m2-8gb", 8, 100, 8192 * 2 / 3},
      Row{"apple-m2-16gb", 16, 100, 16384 * 2 / 3},
      // Apple newsroom, M2 Pro and M2 Max (2023-01-17): M2 Pro 200 GB/s, up to 32 GB; M2 Max
      // 400 GB/s, up to 96 GB.
      Row{"apple-m2-pro-32gb", 32, 200, 32768 * 2 / 3},
      Row{"apple-m2-max-96gb", 96, 400, 98304 * 3 / 4},
      Row{"apple-m1-max-24c-32gb", 32, 400, 32768 * 2 / 3},
      // AMD Ryzen AI Max+ 395: LPDDR5x-8000 on 256 bits = 256 GB/s, up to 128 GB; Linux
      // amdgpu's default GTT is half the RAM (kernel commit f7ba887f).
      Row{"amd-strix-halo-128gb", 128, 256, 131072 / 2});
  CAPTURE(row.id);
  const Gpu* g = findGpu(row.id);
  REQUIRE(g);
  CHECK(g->unified_memory);
  CHECK(g->memory_bytes == row.ram_gib * kGiB);
  CHECK(g->bandwidth_bytes_per_s == row.bandwidth_gbs * kG);
  CHECK(dlcost::gpuCapacityBytes(*g) == row.gpu_share_mib * kMiB);
}

TEST_CASE("Apple M3/M4 have no published compute rate: Strix Halo's is derived from CUs x clock",
          "[gpu][presets]") {
  // Apple publishes no TFLOPS, ALU count or GPU clock for M2 Pro, M2 Max, M3 and M4: the rows
  // leave every rate at 0 rather than guess one.
  for (const char* id :
       {"apple-m3-pro-36gb", "apple-m3-max-128gb", "apple-m3-ultra-512gb", "apple-m4-pro-64gb",
        "apple-m4-max-128gb", "apple-m4-max-32c-36gb", "apple-m2-pro-32gb", "apple-m2-max-96gb"}) {
    CAPTURE(id);
    CHECK_FALSE(dlcost::gpuComputePublished(*findGpu(id)));
  }
  // AMD counts RDNA 3 at 256 FP32 and 512 FP16 FLOP per CU per clock (Radeon RX 7600: 32 CUs
  // at 2655 MHz, 21.75 TFLOPS FP32, 43.5 FP16); Radeon 8060S: 40 CUs at 2900 MHz.
  const Gpu& s = *findGpu("amd-strix-halo-128gb");
  CHECK_THAT(s.fp32_flops, WithinRel(40 * 256 * 2.9e9, 1e-9));
  CHECK_THAT(s.fp16_flops, WithinRel(40 * 512 * 2.9e9, 1e-9));
  CHECK_THAT(21.75 * kT, WithinRel(32 * 256 * 2.655e9, kDatasheetRounding));
  CHECK_THAT(43.5 * kT, WithinRel(32 * 512 * 2.655e9, kDatasheetRounding));
  CHECK(s.fp8_flops == 0);
}

TEST_CASE("rates derived from SM counts, clocks and GPU cores follow their sources",
          "[gpu][presets]") {
  // GA102 whitepaper per-SM rates, as its RTX 3090 column shows (82 SMs at 1695 MHz: 71 TFLOPS
  // FP16 with FP32 accumulate = 512 FLOP/clk/SM): RTX 3080 Ti, 80 SMs at 1665 MHz (NVIDIA's
  // specifications: 10240 CUDA cores, 34.1 TFLOPS FP32).
  CHECK_THAT(71 * kT, WithinRel(82 * 512 * 1.695e9, kDatasheetRounding));
  CHECK_THAT(findGpu("rtx-3080-ti")->fp16_flops, WithinRel(80 * 512 * 1.665e9, kDatasheetRounding));
  CHECK_THAT(findGpu("rtx-3080-ti")->fp32_flops,
             WithinRel(10240 * 2 * 1.665e9, kDatasheetRounding));
  // Ada whitepaper per-SM rates (RTX 4090: 128 SMs at 2520 MHz, 165.2 = 512 FLOP/clk/SM with FP32
  // accumulate): RTX 4070 Ti, 60 SMs (7680 cores) at 2610 MHz.
  CHECK_THAT(165.2 * kT, WithinRel(128 * 512 * 2.52e9, kDatasheetRounding));
  CHECK_THAT(findGpu("rtx-4070-ti")->fp16_flops, WithinRel(60 * 512 * 2.61e9, kDatasheetRounding));
  CHECK_THAT(findGpu("rtx-4070-ti")->fp8_flops, WithinRel(60 * 1024 * 2.61e9, kDatasheetRounding));
  // Apple states one FP32 rate per chip at its largest GPU; smaller GPUs of the same chip scale
  // per core (same clock): M1 8-core 2.6 TFLOPS, M1 Max 32-core 10.4, M2 10-core 3.6.
  CHECK_THAT(findGpu("apple-m1-8gb")->fp32_flops, WithinRel(2.6 * 7 / 8 * kT, kDatasheetRounding));
  CHECK_THAT(findGpu("apple-m1-max-24c-32gb")->fp32_flops,
             WithinRel(10.4 * 24 / 32 * kT, kDatasheetRounding));
  CHECK_THAT(findGpu("apple-m2-8gb")->fp32_flops, WithinRel(3.6 * 8 / 10 * kT, kDatasheetRounding));
  CHECK_THAT(findGpu("apple-m2-16gb")->fp32_flops, WithinRel(3.6 * kT, kDatasheetRounding));
}

TEST_CASE("a card's host link has the lanes its board wires", "[gpu][presets]") {
  // NVIDIA's RTX 4060 Ti specifications: "Bus Support: PCI Express 4.0 x8" (half an x16
  // slot's bandwidth: what llama.cpp's offload copies cross).
  CHECK(findGpu("rtx-4060-ti-16gb")->intra_node_link == "pcie4-x8");
  CHECK(findGpu("rtx-4090")->intra_node_link == "pcie4-x16");
}
