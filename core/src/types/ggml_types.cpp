// The ggml type table. Enum values: ggml/include/ggml.h `enum ggml_type`; block sizes and
// bytes per block: the block structs of ggml/src/ggml-common.h and their static_asserts
// (ggml-org/llama.cpp, commit 01243c587feceaa5d6a6c2305535ef2f549c48b8). QK_K = 256;
// ggml_half is 2 bytes.
#include "dlcost/types/ggml_types.hpp"

#include <iterator>

#include "dlcost/base/checked.hpp"

namespace dlcost {

namespace {

constexpr int64_t kQK = 256;  // QK_K, the super-block of the K-quants and IQ types

// {id, name, values per block, bytes per block}; each bytes figure is its struct's
// static_assert in ggml-common.h, written the same way.
constexpr GgmlType kTypes[] = {
    {0, "F32", 1, 4},
    {1, "F16", 1, 2},
    {2, "Q4_0", 32, 2 + 32 / 2},                         // block_q4_0: d, qs[QK4_0/2]
    {3, "Q4_1", 32, 2 * 2 + 32 / 2},                     // block_q4_1: d, m, qs
    {6, "Q5_0", 32, 2 + 4 + 32 / 2},                     // block_q5_0: d, qh[4], qs
    {7, "Q5_1", 32, 2 * 2 + 4 + 32 / 2},                 // block_q5_1: d, m, qh[4], qs
    {8, "Q8_0", 32, 2 + 32},                             // block_q8_0: d, qs[QK8_0]
    {9, "Q8_1", 32, 2 * 2 + 32},                         // block_q8_1: d, s, qs[QK8_1]
    {10, "Q2_K", kQK, 2 * 2 + kQK / 16 + kQK / 4},       // block_q2_K: scales, qs, d, dmin
    {11, "Q3_K", kQK, 2 + kQK / 4 + kQK / 8 + 12},       // block_q3_K: hmask, qs, scales[12], d
    {12, "Q4_K", kQK, 2 * 2 + 12 + kQK / 2},             // block_q4_K: d, dmin, scales[12], qs
    {13, "Q5_K", kQK, 2 * 2 + 12 + kQK / 2 + kQK / 8},   // block_q5_K: + qh[QK_K/8]
    {14, "Q6_K", kQK, 2 + kQK / 16 + 3 * kQK / 4},       // block_q6_K: ql, qh, scales, d
    {15, "Q8_K", kQK, 4 + kQK + kQK / 16 * 2},           // block_q8_K: float d, qs, bsums
    {16, "IQ2_XXS", kQK, 2 + kQK / 8 * 2},               // block_iq2_xxs: d, uint16 qs
    {17, "IQ2_XS", kQK, 2 + kQK / 8 * 2 + kQK / 32},     // block_iq2_xs: + scales
    {18, "IQ3_XXS", kQK, 2 + 3 * (kQK / 8)},             // block_iq3_xxs
    {19, "IQ1_S", kQK, 2 + kQK / 8 + kQK / 16},          // block_iq1_s: d, qs, uint16 qh
    {20, "IQ4_NL", 32, 2 + 32 / 2},                      // block_iq4_nl: d, qs[QK4_NL/2]
    {21, "IQ3_S", kQK, 2 + 13 * (kQK / 32) + kQK / 64},  // block_iq3_s
    {22, "IQ2_S", kQK, 2 + kQK / 4 + kQK / 16},          // block_iq2_s: d, qs, qh, scales
    {23, "IQ4_XS", kQK, 2 + 2 + kQK / 64 + kQK / 2},     // block_iq4_xs
    {24, "I8", 1, 1},
    {25, "I16", 1, 2},
    {26, "I32", 1, 4},
    {27, "I64", 1, 8},
    {28, "F64", 1, 8},
    {29, "IQ1_M", kQK, kQK / 8 + kQK / 16 + kQK / 32},  // block_iq1_m: no fp16 scale
    {30, "BF16", 1, 2},
    {34, "TQ1_0", kQK, 2 + kQK / 64 + (kQK - 4 * kQK / 64) / 5},  // block_tq1_0
    {35, "TQ2_0", kQK, 2 + kQK / 4},                              // block_tq2_0
    {39, "MXFP4", 32, 1 + 32 / 2},                                // block_mxfp4: E8M0 e, qs
    {40, "NVFP4", 64, 64 / 16 + 64 / 2},                          // block_nvfp4: d[4], qs
    {41, "Q1_0", 128, 2 + 128 / 8},                               // block_q1_0
    {42, "Q2_0", 64, 2 + 64 / 4},                                 // block_q2_0
};

}  // namespace

const GgmlType* ggmlType(uint32_t id) {
  for (const GgmlType& t : kTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

int64_t ggmlBytes(const GgmlType& type, int64_t values) {
  return checkedMul(values / type.block_size, type.type_size);
}

}  // namespace dlcost
