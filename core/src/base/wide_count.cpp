#include "dlcost/base/wide_count.hpp"

#include <algorithm>

namespace dlcost {

std::string WideCount::toString() const {
  // Digit by digit from the lowest; the magnitude as unsigned so that the lowest value works.
  __extension__ typedef unsigned __int128 Uint128;
  Uint128 m = v_ < 0 ? Uint128(0) - static_cast<Uint128>(v_) : static_cast<Uint128>(v_);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  } while (m != 0);
  if (v_ < 0) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace dlcost
