#include "dlcost/types/shape.hpp"

#include "dlcost/base/checked.hpp"

namespace dlcost {

RankOverflow::RankOverflow()
    : InputError(ErrorCode::kShape, "",
                 "a shape of more than " + std::to_string(kMaxRank) +
                     " dimensions per sample, which dlcost does not model") {}

void throwRankOverflow() {
  throw RankOverflow();
}

int64_t elementCount(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n = checkedMul(n, d);
  return n;
}

std::string shapeToString(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

}  // namespace dlcost
