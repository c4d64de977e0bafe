#pragma once
// GPUs as the cost model sees them: memory, bandwidth and peak math rates of one device.
//
// Conventions (see /work/shared/GPU-NOTES.md and each preset's cited datasheet):
// - Figures describe ONE device as CUDA/ROCm sees it. Boards with two dies (Tesla K80,
//   Instinct MI250X) are listed per die; `devices_per_board` says how many a board holds, and
//   `tdp_watts` / `price_usd` stay per board (divide by devices_per_board per device).
// - Peak rates are dense (no 2:4 structured sparsity) in operations per second. 16-bit and
//   FP8 tensor rates are those with FP32 accumulation, which PyTorch matmuls use: on GeForce
//   Turing/Ampere/Ada/Blackwell that is half NVIDIA's headline FP16-accumulate figure.
// - 0 means the format has no fast hardware path (no tensor cores before Volta, no BF16/TF32
//   before Ampere, FP8 only on Ada/Hopper/Blackwell/CDNA3); the roofline then falls back to
//   the FP32 rate and says so.
// - Bandwidth and FLOP/s are decimal (1 TB/s = 10^12 B/s); memory is bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

/// The arithmetic a matmul runs in on the GPU.
enum class MathFormat { kFp32, kTf32, kFp16, kBf16, kFp8, kInt8 };
inline constexpr MathFormat kMathFormats[] = {MathFormat::kFp32, MathFormat::kTf32,
                                              MathFormat::kFp16, MathFormat::kBf16,
                                              MathFormat::kFp8,  MathFormat::kInt8};

const char* mathFormatName(MathFormat format);
std::optional<MathFormat> parseMathFormat(const std::string& name);

struct Gpu {
  std::string id;            ///< preset key, lower-case, e.g. "h100-sxm"
  std::string name;          ///< e.g. "NVIDIA H100 SXM5 80GB"
  std::string vendor;        ///< "NVIDIA", "AMD", "Apple", "Intel"
  std::string architecture;  ///< e.g. "Hopper"
  int release_year = 0;
  /// Marketed capacity per device in bytes, reading the marketed "GB" as GiB (2^30), which is
  /// what the vendors mean.
  int64_t memory_bytes = 0;
  /// Total memory as nvidia-smi (rocm-smi for AMD) reports it, in MiB; 0 = not known, then
  /// memory_bytes is used. With ECC on GDDR boards this already excludes the ECC share.
  int64_t smi_total_mib = 0;
  /// Total memory as CUDA reports it (cudaMemGetInfo, torch.cuda.mem_get_info, what vLLM and
  /// SGLang size their budgets from), in MiB; 0 = not published, then smi_total_mib is used.
  /// 0.3-0.5 GiB below nvidia-smi's total on 80 GB parts.
  int64_t cuda_total_mib = 0;
  double bandwidth_bytes_per_s = 0;  ///< peak DRAM bandwidth
  double fp32_flops = 0;             ///< non-tensor FP32 FMA rate (x2 per FMA)
  double tf32_flops = 0;             ///< dense TF32 tensor rate
  double fp16_flops = 0;             ///< dense FP16 tensor rate with FP32 accumulate
  double bf16_flops = 0;             ///< dense BF16 tensor rate with FP32 accumulate
  double fp8_flops = 0;              ///< dense FP8 tensor rate with FP32 accumulate
  double int8_ops = 0;               ///< dense INT8 tensor rate
  int tdp_watts = 0;                 ///< board power
  int price_usd = 0;                 ///< launch price of a board, 0 = not published
  int devices_per_board = 1;
  /// Memory shared with the CPU (Apple silicon, GB10): memory_bytes is the machine's RAM and
  /// smi_total_mib what the GPU may use of it by default (Metal's recommendedMaxWorkingSetSize).
  bool unified_memory = false;
  /// Unified memory: how the GPU's share is set and how to raise it (empty otherwise).
  std::string unified_memory_note;
  /// A CPU as the device (llama.cpp without a GPU): memory_bytes is a default system RAM size
  /// (the workload's system_ram_gib replaces it) and bandwidth_bytes_per_s that of its memory
  /// channels: memory_channels x memory_mt_s x 10^6 x 8 bytes.
  bool cpu = false;
  int memory_channels = 0;  ///< DDR channels per socket (CPU rows)
  int memory_mt_s = 0;      ///< their rated transfer rate in MT/s (CPU rows)
  /// The link between the GPUs of the usual 8-GPU server of this part (an interconnect id,
  /// dlcost/interconnect.hpp): NVLink through NVSwitch for SXM parts, else the board's PCIe
  /// generation; "" = none known (multi-die boards).
  std::string intra_node_link;
  /// The network of the GPU's DGX system, one adapter per GPU; "" = no such system.
  std::string inter_node_link;
  std::string notes;   ///< caveats: ECC on GDDR, which variant, sources that disagree
  std::string source;  ///< the datasheet or whitepaper the figures come from
};

/// Memory one device offers before any reserve: smi_total_mib x 2^20 when known, else
/// memory_bytes.
int64_t gpuCapacityBytes(const Gpu& gpu);

/// Memory CUDA reports as the device's total: cuda_total_mib x 2^20 when published, else
/// gpuCapacityBytes. What serving engines multiply by their memory share.
int64_t gpuCudaTotalBytes(const Gpu& gpu);

/// Dense peak rate for `format` in operations per second; 0 where the format has no fast path.
double gpuPeak(const Gpu& gpu, MathFormat format);

}  // namespace dlcost
