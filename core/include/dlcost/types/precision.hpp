#pragma once
// Number formats and what each training precision stores in which format.

#include <optional>
#include <string>

namespace dlcost {

/// A storage format for one value. Sizes are in bits so that 4-bit formats stay exact.
enum class DType { kFp32, kFp16, kBf16, kFp8, kInt8, kInt4, kInt64, kBool };
/// The formats a workload may store weights or the KV cache in (int64 and bool are for
/// inputs and masks only).
inline constexpr DType kStorageDTypes[] = {DType::kFp32, DType::kFp16, DType::kBf16,
                                           DType::kFp8,  DType::kInt8, DType::kInt4};

/// Every dtype, in declaration order (parseDType's names).
inline constexpr DType kDTypes[] = {DType::kFp32, DType::kFp16, DType::kBf16,  DType::kFp8,
                                    DType::kInt8, DType::kInt4, DType::kInt64, DType::kBool};
int dtypeBits(DType dtype);
const char* dtypeName(DType dtype);
std::optional<DType> parseDType(const std::string& name);

/// The precision a workload runs in, as users name it.
/// - fp32, fp16, bf16: everything (weights, gradients, optimizer states, activations) in
///   that format; pure 16-bit training keeps optimizer states like the weights (PyTorch's
///   `zeros_like(param)`).
/// - mixed: Apex O2 / Megatron: 16-bit weights, gradients and activations with fp32 master
///   weights and fp32 optimizer states (Micikevicius et al. 2018; the ZeRO paper's
///   2 + 2 + 12 = 16 bytes per parameter with Adam).
/// - autocast_fp16, autocast_bf16: torch.autocast (graph/autocast_policy.hpp): fp32 weights,
///   gradients and optimizer states; autocast's op lists decide which ops run in 16 bits, and
///   each weight such an op reads is cast once and that 16-bit copy kept for backward (and,
///   at inference, in autocast's cast cache). fp16 adds GradScaler's state.
enum class Precision { kFp32, kFp16, kBf16, kMixed, kAutocastFp16, kAutocastBf16 };
inline constexpr Precision kPrecisions[] = {Precision::kFp32,         Precision::kFp16,
                                            Precision::kBf16,         Precision::kMixed,
                                            Precision::kAutocastFp16, Precision::kAutocastBf16};

const char* precisionName(Precision precision);
std::optional<Precision> parsePrecision(const std::string& name);

/// Formats a precision uses for each kind of tensor.
struct PrecisionLayout {
  DType weights;
  DType gradients;
  DType activations;
  DType optimizer_states;
  bool master_weights;  ///< an extra fp32 copy of the weights (mixed precision)
  /// torch.autocast: `activations` is the format of the ops on autocast's lower-precision
  /// list; others run in fp32 or in their inputs' format (graph/autocast_policy.hpp).
  bool autocast = false;
};

PrecisionLayout layoutOf(Precision precision);

}  // namespace dlcost
