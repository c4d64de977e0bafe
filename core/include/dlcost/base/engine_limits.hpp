#pragma once
// Limits that keep every estimate fast and every number finite.

#include <cstdint>

namespace dlcost {

/// Layers after expanding repeats and blocks. 100,000 layers estimate in well under a
/// second natively; anything beyond is refused rather than left to hang the page.
constexpr int64_t kMaxLayers = 100000;
/// Nesting of blocks inside blocks.
constexpr int kMaxBlockDepth = 16;
/// A single dimension of a shape or a hyper-parameter (2^40).
constexpr int64_t kMaxDimension = int64_t{1} << 40;
/// Batch size (2^32).
constexpr int64_t kMaxBatch = int64_t{1} << 32;
/// Tokens of one sequence (2^30: far beyond any model's context).
constexpr int64_t kMaxSequence = int64_t{1} << 30;

}  // namespace dlcost
