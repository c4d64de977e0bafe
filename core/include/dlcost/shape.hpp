#pragma once
// Shapes of one sample (the batch dimension is never part of a Shape).

#include <cstdint>
#include <string>
#include <vector>

namespace dlcost {

/// Dimensions of one sample, outermost first: [C, H, W] for images, [tokens] for token ids,
/// [tokens, features] for sequences of vectors.
using Shape = std::vector<int64_t>;

/// Product of the dimensions (1 for a scalar); throws ArithmeticOverflow past 2^63.
int64_t elementCount(const Shape& shape);

/// "[3, 224, 224]"
std::string shapeToString(const Shape& shape);

}  // namespace dlcost
