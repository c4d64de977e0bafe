// The built-in GPU table. Every row cites the datasheet or whitepaper its figures come from;
// conventions (dense rates, FP32 accumulate, per device) are those of dlcost/gpu.hpp.
// Sparse datasheet figures (marked "with sparsity") are halved; GeForce 16-bit/FP8 rates with
// FP16 accumulate are halved to the FP32-accumulate rate PyTorch uses (GPU-NOTES.md).

#include <algorithm>
#include <cctype>

#include "dlcost/gpu.hpp"

namespace dlcost {

namespace {

constexpr double kT = 1e12;   // TFLOP/s
constexpr double kGBs = 1e9;  // GB/s (decimal)
constexpr int64_t kGiB = int64_t{1} << 30;

std::vector<Gpu> buildTable() {
  std::vector<Gpu> t;
  // Columns: id, name, vendor, architecture, year, memory bytes, smi MiB, bandwidth, FP32,
  // TF32, FP16, BF16, FP8, INT8, TDP W, price USD, devices/board, notes, source.

  // Datasheet: 24 GB GDDR5, 480 GB/s, 8.73 TFLOPS FP32 with GPU Boost, 300 W per board of two
  // GK210 GPUs; halved per GPU. nvidia-smi shows 11441 MiB per GPU (ECC on).
  t.push_back({"tesla-k80", "NVIDIA Tesla K80 (one GK210 of two)", "NVIDIA", "Kepler", 2014,
               12 * kGiB, 11441, 240 * kGBs, 4.365 * kT, 0, 0, 0, 0, 0, 300, 5000, 2,
               "two GPUs per board: memory, bandwidth and FLOP/s are per GPU, power and price "
               "per board; no tensor cores, no fast FP16",
               "NVIDIA Tesla K80 datasheet (2014)"});
  // Datasheet (PCIe): 9.3 TFLOPS FP32, 18.7 TFLOPS FP16, 16 GB CoWoS HBM2 at 732 GB/s, 250 W.
  t.push_back({"p100-pcie-16gb", "NVIDIA Tesla P100 PCIe 16GB", "NVIDIA", "Pascal", 2016, 16 * kGiB,
               16280, 732 * kGBs, 9.3 * kT, 0, 0, 0, 0, 0, 250, 0, 1,
               "no tensor cores; the datasheet's 18.7 TFLOPS FP16 is packed FP16 with FP16 "
               "accumulation, while PyTorch's FP32-accumulate GEMMs run at the FP32 rate",
               "NVIDIA Tesla P100 PCIe datasheet (2016)"});
  // 3584 CUDA cores at 1531 MHz boost = 10.97 TFLOPS, 12 GB GDDR5X at 480 GB/s, 250 W, $1200.
  t.push_back({"titan-x-pascal", "NVIDIA TITAN X (Pascal)", "NVIDIA", "Pascal", 2016, 12 * kGiB,
               12196, 480 * kGBs, 10.97 * kT, 0, 0, 0, 0, 0, 250, 1200, 1,
               "GP102: FP16 arithmetic at 1/64 rate, so 16-bit training runs at the FP32 rate",
               "NVIDIA TITAN X (Pascal) specifications; TechPowerUp GPU database"});
  // 3584 cores at 1582 MHz = 11.34 TFLOPS, 11 GB GDDR5X at 484 GB/s, 250 W, $699.
  t.push_back({"gtx-1080-ti", "NVIDIA GeForce GTX 1080 Ti", "NVIDIA", "Pascal", 2017, 11 * kGiB,
               11264, 484 * kGBs, 11.34 * kT, 0, 0, 0, 0, 0, 250, 699, 1,
               "GP102: FP16 arithmetic at 1/64 rate, so 16-bit training runs at the FP32 rate",
               "NVIDIA GeForce GTX 1080 Ti specifications; TechPowerUp GPU database"});
  // 3840 cores at 1582 MHz = 12.15 TFLOPS, 12 GB GDDR5X at 547.7 GB/s, 250 W, $1200.
  t.push_back({"titan-xp", "NVIDIA TITAN Xp", "NVIDIA", "Pascal", 2017, 12 * kGiB, 12196,
               547.7 * kGBs, 12.15 * kT, 0, 0, 0, 0, 0, 250, 1200, 1,
               "GP102: FP16 arithmetic at 1/64 rate, so 16-bit training runs at the FP32 rate",
               "NVIDIA TITAN Xp specifications; TechPowerUp GPU database"});
  // Datasheet (SXM2): 15.7 TFLOPS FP32, 125 TFLOPS tensor, 16/32 GB HBM2 at 900 GB/s, 300 W.
  t.push_back({"v100-sxm2-16gb", "NVIDIA Tesla V100 SXM2 16GB", "NVIDIA", "Volta", 2017, 16 * kGiB,
               16160, 900 * kGBs, 15.7 * kT, 0, 125 * kT, 0, 0, 0, 300, 0, 1,
               "first tensor cores (FP16 only, FP32 accumulate at full rate); no BF16/TF32/INT8 "
               "tensor math",
               "NVIDIA Tesla V100 GPU datasheet (SXM2 column)"});
  // 110 TFLOPS deep learning (tensor), 14.9 TFLOPS FP32, 12 GB HBM2 at 652.8 GB/s, 250 W, $2999.
  t.push_back(
      {"titan-v", "NVIDIA TITAN V", "NVIDIA", "Volta", 2017, 12 * kGiB, 12066, 652.8 * kGBs,
       14.9 * kT, 0, 110 * kT, 0, 0, 0, 250, 2999, 1,
       "GV100 tensor cores: FP32 accumulate at full rate",
       "NVIDIA TITAN V specifications (110 TFLOPS deep learning); TechPowerUp GPU database"});
  t.push_back({"v100-sxm2-32gb", "NVIDIA Tesla V100 SXM2 32GB", "NVIDIA", "Volta", 2018, 32 * kGiB,
               32768, 900 * kGBs, 15.7 * kT, 0, 125 * kT, 0, 0, 0, 300, 0, 1,
               "as the 16 GB model with twice the HBM2",
               "NVIDIA Tesla V100 GPU datasheet (SXM2 column)"});
  // Datasheet: 8.1 TFLOPS FP32, 65 TFLOPS mixed FP16/FP32, 130 TOPS INT8, 16 GB GDDR6 at
  // 320 GB/s, 70 W. nvidia-smi shows 15360 MiB: ECC (on by default) takes 1/16 of GDDR6.
  t.push_back({"t4", "NVIDIA T4", "NVIDIA", "Turing", 2018, 16 * kGiB, 15360, 320 * kGBs, 8.1 * kT,
               0, 65 * kT, 0, 0, 130 * kT, 70, 0, 1,
               "ECC on GDDR6 (default) leaves 15/16 of the 16 GiB; datacenter Turing runs FP32 "
               "accumulate at full rate",
               "NVIDIA T4 Tensor Core GPU datasheet"});
  // Turing whitepaper, reference RTX 2080 Ti (1545 MHz): 13.4 TFLOPS FP32, 107.6 FP16-acc /
  // 53.8 FP32-acc tensor TFLOPS, 215.2 INT8 TOPS, 11 GB GDDR6 at 616 GB/s, 250 W; $999.
  t.push_back({"rtx-2080-ti", "NVIDIA GeForce RTX 2080 Ti", "NVIDIA", "Turing", 2018, 11 * kGiB,
               11264, 616 * kGBs, 13.4 * kT, 0, 53.8 * kT, 0, 0, 215.2 * kT, 250, 999, 1,
               "reference clocks (Founders Edition: 1635 MHz, 260 W, $1199); GeForce: FP32 "
               "accumulate at half the headline FP16 tensor rate",
               "NVIDIA Turing GPU Architecture whitepaper, Appendix A (RTX 2080 Ti reference)"});
  // Datasheet: 19.5 FP32, 156 TF32, 312 BF16/FP16, 624 INT8 (dense), 1555 GB/s, 400 W.
  t.push_back({"a100-sxm4-40gb", "NVIDIA A100 SXM4 40GB", "NVIDIA", "Ampere", 2020, 40 * kGiB,
               40960, 1555 * kGBs, 19.5 * kT, 156 * kT, 312 * kT, 312 * kT, 0, 624 * kT, 400, 0, 1,
               "", "NVIDIA A100 Tensor Core GPU datasheet (SXM 40GB column)"});
  // GA102 whitepaper Appendix A, RTX 3080: 29.8 FP32, 59.5 FP16/BF16 tensor with FP32
  // accumulate (119 with FP16 accumulate), 29.8 TF32, 238 INT8; 10 GB GDDR6X 760 GB/s, 320 W.
  t.push_back({"rtx-3080", "NVIDIA GeForce RTX 3080 (10 GB)", "NVIDIA", "Ampere", 2020, 10 * kGiB,
               10240, 760 * kGBs, 29.8 * kT, 29.8 * kT, 59.5 * kT, 59.5 * kT, 0, 238 * kT, 320, 699,
               1, "GeForce: FP32 accumulate at half the headline FP16 tensor rate",
               "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A"});
  // GA102 whitepaper Appendix A, RTX 3090: 35.6 FP32, 71 FP16/BF16 (FP32 acc), 35.6 TF32,
  // 284 INT8; 24 GB GDDR6X at 936 GB/s, 350 W, $1499.
  t.push_back({"rtx-3090", "NVIDIA GeForce RTX 3090", "NVIDIA", "Ampere", 2020, 24 * kGiB, 24576,
               936 * kGBs, 35.6 * kT, 35.6 * kT, 71 * kT, 71 * kT, 0, 284 * kT, 350, 1499, 1,
               "GeForce: FP32 accumulate at half the headline FP16 tensor rate",
               "NVIDIA Ampere GA102 GPU Architecture whitepaper, Appendix A"});
  // Datasheet: 37.4 FP32, 74.8 TF32, 149.7 BF16/FP16, 299.3 INT8 (sparse figures halved),
  // 48 GB GDDR6 at 696 GB/s, 300 W; nvidia-smi 46068 MiB with ECC on (default).
  t.push_back({"a40", "NVIDIA A40", "NVIDIA", "Ampere", 2020, 48 * kGiB, 46068, 696 * kGBs,
               37.4 * kT, 74.8 * kT, 149.7 * kT, 149.7 * kT, 0, 299.3 * kT, 300, 0, 1,
               "ECC on GDDR6 (default) leaves 15/16 of the 48 GiB", "NVIDIA A40 datasheet"});
  // Datasheet: 38.7 FP32, 309.7 tensor TFLOPS with sparsity (154.8 dense), 48 GB GDDR6 at
  // 768 GB/s, 300 W, $4649. nvidia-smi 49140 MiB with ECC off (its default).
  t.push_back({"rtx-a6000", "NVIDIA RTX A6000", "NVIDIA", "Ampere", 2020, 48 * kGiB, 49140,
               768 * kGBs, 38.7 * kT, 77.4 * kT, 154.8 * kT, 154.8 * kT, 0, 309.7 * kT, 300, 4649,
               1, "ECC off by default; with ECC on nvidia-smi shows 46068 MiB",
               "NVIDIA RTX A6000 datasheet"});
  t.push_back({"a100-sxm4-80gb", "NVIDIA A100 SXM4 80GB", "NVIDIA", "Ampere", 2020, 80 * kGiB,
               81920, 2039 * kGBs, 19.5 * kT, 156 * kT, 312 * kT, 312 * kT, 0, 624 * kT, 400, 0, 1,
               "", "NVIDIA A100 Tensor Core GPU datasheet (SXM 80GB column)"});
  // GA106: 28 SMs (112 tensor cores) at 1777 MHz boost, 12 GB GDDR6 at 360 GB/s, 170 W, $329.
  // Not in the GA102 whitepaper's table: rates scaled from its per-SM figures (RTX 3090:
  // 71 TFLOPS / (82 SMs x 1.695 GHz)).
  t.push_back({"rtx-3060-12gb", "NVIDIA GeForce RTX 3060 12GB", "NVIDIA", "Ampere", 2021, 12 * kGiB,
               12288, 360 * kGBs, 12.74 * kT, 12.7 * kT, 25.4 * kT, 25.4 * kT, 0, 101.7 * kT, 170,
               329, 1,
               "tensor rates derived from the SM count and boost clock with GA10x per-SM rates; "
               "GeForce: FP32 accumulate at half rate",
               "NVIDIA GeForce RTX 3060 specifications; GA102 whitepaper per-SM rates"});
  // Datasheet: 31.2 FP32, 62.5 TF32, 125 BF16/FP16, 250 INT8, 24 GB GDDR6 at 600 GB/s, 150 W.
  t.push_back({"a10", "NVIDIA A10", "NVIDIA", "Ampere", 2021, 24 * kGiB, 23028, 600 * kGBs,
               31.2 * kT, 62.5 * kT, 125 * kT, 125 * kT, 0, 250 * kT, 150, 0, 1,
               "ECC on GDDR6 (default) leaves 15/16 of the 24 GiB", "NVIDIA A10 datasheet"});
  // Datasheet: 47.9 TF FP32 vector, 95.7 TF FP32 matrix, 383 TF FP16/BF16, 383 TOPS INT8,
  // 128 GB HBM2e at 3.2 TB/s, 560 W for the module of two GCDs; halved per GCD.
  t.push_back({"mi250x", "AMD Instinct MI250X (one GCD of two)", "AMD", "CDNA 2", 2021, 64 * kGiB,
               0, 1600 * kGBs, 47.85 * kT, 0, 191.5 * kT, 191.5 * kT, 0, 191.5 * kT, 560, 0, 2,
               "two GCDs per module, each its own device: figures per GCD, power per module; "
               "FP32 is the FP32 matrix-core rate rocBLAS uses (vector FP32 is half)",
               "AMD Instinct MI250X accelerator datasheet"});
  // Datasheet (PCIe): 51 FP32, 756 TF32, 1513 BF16/FP16, 3026 FP8/INT8 with sparsity (halved),
  // 80 GB HBM2e at 2.0 TB/s, 300-350 W.
  t.push_back({"h100-pcie", "NVIDIA H100 PCIe 80GB", "NVIDIA", "Hopper", 2022, 80 * kGiB, 81559,
               2000 * kGBs, 51 * kT, 378 * kT, 756 * kT, 756 * kT, 1513 * kT, 1513 * kT, 350, 0, 1,
               "", "NVIDIA H100 Tensor Core GPU datasheet (PCIe column)"});
  // Hopper whitepaper / datasheet (SXM5): 66.9 FP32, 494.7 TF32, 989.4 BF16/FP16,
  // 1978.9 FP8/INT8 dense; 80 GB HBM3 at 3.35 TB/s, 700 W.
  t.push_back({"h100-sxm", "NVIDIA H100 SXM5 80GB", "NVIDIA", "Hopper", 2022, 80 * kGiB, 81559,
               3350 * kGBs, 66.9 * kT, 494.7 * kT, 989.4 * kT, 989.4 * kT, 1978.9 * kT, 1978.9 * kT,
               700, 0, 1, "",
               "NVIDIA H100 Tensor Core GPU datasheet (SXM column); NVIDIA H100 whitepaper"});
  // Ada whitepaper v2.01 appendix, RTX 4090: 82.6 FP32, 82.6 TF32, 165.2 FP16/BF16 with FP32
  // accumulate (330.3 with FP16 accumulate), 660.6 INT8, FP8 330.3 with FP32 accumulate;
  // 24 GB GDDR6X at 1008 GB/s, 450 W, $1599.
  t.push_back({"rtx-4090", "NVIDIA GeForce RTX 4090", "NVIDIA", "Ada Lovelace", 2022, 24 * kGiB,
               24564, 1008 * kGBs, 82.6 * kT, 82.6 * kT, 165.2 * kT, 165.2 * kT, 330.3 * kT,
               660.6 * kT, 450, 1599, 1,
               "GeForce: FP32 accumulate at half the headline 330 TFLOPS FP16 tensor rate",
               "NVIDIA Ada GPU Architecture whitepaper v2.01, Appendix A"});
  // Ada whitepaper appendix, RTX 4080: 48.7 FP32/TF32, 97.5 FP16/BF16 (FP32 acc), 389.9 INT8;
  // 16 GB GDDR6X at 716.8 GB/s, 320 W, $1199.
  t.push_back({"rtx-4080", "NVIDIA GeForce RTX 4080", "NVIDIA", "Ada Lovelace", 2022, 16 * kGiB,
               16376, 716.8 * kGBs, 48.7 * kT, 48.7 * kT, 97.5 * kT, 97.5 * kT, 194.9 * kT,
               389.9 * kT, 320, 1199, 1,
               "GeForce: FP32 accumulate at half the headline FP16 tensor rate",
               "NVIDIA Ada GPU Architecture whitepaper v2.01, Appendix A"});
  // Datasheet: 91.1 FP32, 1457 TFLOPS FP8 with sparsity (728.5 dense, 364.2 FP16/BF16,
  // 182.1 TF32), 48 GB GDDR6 at 960 GB/s, 300 W; $6799.
  t.push_back({"rtx-6000-ada", "NVIDIA RTX 6000 Ada Generation", "NVIDIA", "Ada Lovelace", 2022,
               48 * kGiB, 49140, 960 * kGBs, 91.1 * kT, 182.1 * kT, 364.2 * kT, 364.2 * kT,
               728.5 * kT, 728.5 * kT, 300, 6799, 1,
               "professional card: FP32 accumulate at full rate; ECC off by default",
               "NVIDIA RTX 6000 Ada Generation datasheet"});
  // Datasheet: 30.3 FP32, 120 TF32*, 242 FP16/BF16*, 485 FP8/INT8* (* with sparsity, halved),
  // 24 GB GDDR6 at 300 GB/s, 72 W.
  t.push_back({"l4", "NVIDIA L4", "NVIDIA", "Ada Lovelace", 2023, 24 * kGiB, 23034, 300 * kGBs,
               30.3 * kT, 60 * kT, 121 * kT, 121 * kT, 242.5 * kT, 242.5 * kT, 72, 0, 1,
               "ECC on GDDR6 (default) leaves 15/16 of the 24 GiB", "NVIDIA L4 datasheet"});
  // Datasheet, dense column: 91.6 FP32, 183 TF32, 362.05 FP16/BF16, 733 FP8/INT8 (its sparse
  // column, 366 / 733 / 1466, is not exactly twice the dense one); 48 GB GDDR6 at 864 GB/s, 350 W.
  t.push_back({"l40s", "NVIDIA L40S", "NVIDIA", "Ada Lovelace", 2023, 48 * kGiB, 46068, 864 * kGBs,
               91.6 * kT, 183 * kT, 362.05 * kT, 362.05 * kT, 733 * kT, 733 * kT, 350, 0, 1,
               "ECC on GDDR6 (default) leaves 15/16 of the 48 GiB", "NVIDIA L40S datasheet"});
  // AD104: 46 SMs (184 tensor cores) at 2475 MHz: 29.1 FP32; 116.6 FP16-acc dense tensor
  // TFLOPS, so 58.3 with FP32 accumulate; 12 GB GDDR6X at 504 GB/s, 200 W, $599.
  t.push_back({"rtx-4070", "NVIDIA GeForce RTX 4070", "NVIDIA", "Ada Lovelace", 2023, 12 * kGiB,
               12282, 504 * kGBs, 29.1 * kT, 29.1 * kT, 58.3 * kT, 58.3 * kT, 116.6 * kT,
               233.2 * kT, 200, 599, 1,
               "tensor rates derived from the SM count and boost clock with the Ada whitepaper's "
               "per-SM rates; GeForce: FP32 accumulate at half rate",
               "NVIDIA GeForce RTX 4070 specifications; Ada whitepaper v2.01 per-SM rates"});
  // AD106: 34 SMs (136 tensor cores) at 2535 MHz: 22.1 FP32; 88.3 FP16-acc dense tensor TFLOPS,
  // so 44.1 with FP32 accumulate; 16 GB GDDR6 at 288 GB/s, 165 W, $499.
  t.push_back({"rtx-4060-ti-16gb", "NVIDIA GeForce RTX 4060 Ti 16GB", "NVIDIA", "Ada Lovelace",
               2023, 16 * kGiB, 16380, 288 * kGBs, 22.1 * kT, 22.1 * kT, 44.1 * kT, 44.1 * kT,
               88.3 * kT, 176.6 * kT, 165, 499, 1,
               "tensor rates derived from the SM count and boost clock with the Ada whitepaper's "
               "per-SM rates; GeForce: FP32 accumulate at half rate",
               "NVIDIA GeForce RTX 4060 Ti specifications; Ada whitepaper v2.01 per-SM rates"});
  // Datasheet: 163.4 TF FP32 (vector and matrix), 653.7 TF32, 1307.4 FP16/BF16, 2614.9 FP8 and
  // INT8 dense (sparsity doubles them), 192 GB HBM3 at 5.3 TB/s, 750 W.
  t.push_back({"mi300x", "AMD Instinct MI300X", "AMD", "CDNA 3", 2023, 192 * kGiB, 0, 5300 * kGBs,
               163.4 * kT, 653.7 * kT, 1307.4 * kT, 1307.4 * kT, 2614.9 * kT, 2614.9 * kT, 750, 0,
               1,
               "some spec sites list the sparse 2614.9 TFLOPS as dense FP16, others the 330 "
               "TFLOPS vector rate; AMD's datasheet dense matrix rate is used",
               "AMD Instinct MI300X accelerator datasheet"});
  // Datasheet (SXM): 141 GB HBM3e at 4.8 TB/s, compute as H100 SXM, up to 700 W.
  t.push_back({"h200", "NVIDIA H200 SXM 141GB", "NVIDIA", "Hopper", 2024, 141 * kGiB, 143771,
               4800 * kGBs, 66.9 * kT, 494.7 * kT, 989.4 * kT, 989.4 * kT, 1978.9 * kT, 1978.9 * kT,
               700, 0, 1, "", "NVIDIA H200 Tensor Core GPU datasheet (SXM column)"});
  // HGX B200 datasheet, per GPU: 75 TF FP32, 2.2 PF TF32*, 4.5 PF FP16/BF16*, 9 PF FP8/INT8*
  // (* with sparsity, halved), 180 GB HBM3e at 7.7 TB/s, 1000 W.
  t.push_back({"b200", "NVIDIA B200 (HGX) 180GB", "NVIDIA", "Blackwell", 2024, 180 * kGiB, 183359,
               7700 * kGBs, 75 * kT, 1100 * kT, 2250 * kT, 2250 * kT, 4500 * kT, 4500 * kT, 1000, 0,
               1,
               "DGX B200 material quotes 8 TB/s and some sites 192 GB; the HGX B200 datasheet's "
               "180 GB and 7.7 TB/s are used",
               "NVIDIA HGX B200 datasheet (per-GPU specifications)"});
  // RTX Blackwell whitepaper appendix, RTX 5080: 56.3 FP32, 1801 AI TOPS (FP4, sparse) so
  // 450.2 FP8 and 225.1 FP16 dense with FP16 accumulate, half with FP32 accumulate;
  // 16 GB GDDR7 at 960 GB/s, 360 W, $999.
  t.push_back({"rtx-5080", "NVIDIA GeForce RTX 5080", "NVIDIA", "Blackwell", 2025, 16 * kGiB, 16303,
               960 * kGBs, 56.3 * kT, 56.3 * kT, 112.6 * kT, 112.6 * kT, 225.1 * kT, 450.2 * kT,
               360, 999, 1, "GeForce: FP32 accumulate at half the headline FP16 tensor rate",
               "NVIDIA RTX Blackwell GPU Architecture whitepaper, Appendix A"});
  // RTX Blackwell whitepaper appendix, RTX 5090: 104.8 FP32, 838 FP16 tensor TFLOPS with
  // sparsity (419 dense, 209.5 with FP32 accumulate), 3352 AI TOPS (FP4 sparse) so 838 INT8/FP8
  // dense; 32 GB GDDR7 at 1792 GB/s, 575 W, $1999.
  t.push_back({"rtx-5090", "NVIDIA GeForce RTX 5090", "NVIDIA", "Blackwell", 2025, 32 * kGiB, 32607,
               1792 * kGBs, 104.8 * kT, 104.8 * kT, 209.5 * kT, 209.5 * kT, 419 * kT, 838 * kT, 575,
               1999, 1, "GeForce: FP32 accumulate at half the headline FP16 tensor rate",
               "NVIDIA RTX Blackwell GPU Architecture whitepaper, Appendix A"});
  return t;
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
  for (MathFormat f : {MathFormat::kFp32, MathFormat::kTf32, MathFormat::kFp16, MathFormat::kBf16,
                       MathFormat::kFp8, MathFormat::kInt8}) {
    if (name == mathFormatName(f)) return f;
  }
  return std::nullopt;
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
