#pragma once
// 64-bit integer arithmetic that refuses to wrap: every count and byte total in a report
// goes through these, so an absurd input becomes an error instead of a wrong number.

#include <cstdint>
#include <stdexcept>

namespace dlcost {

/// Thrown by the checked operations; the caller that knows the JSON path turns it into an
/// InputError with ErrorCode::kTooLarge.
class ArithmeticOverflow : public std::overflow_error {
 public:
  ArithmeticOverflow() : std::overflow_error("64-bit overflow") {}
};

inline int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw ArithmeticOverflow();
  return r;
}

inline int64_t checkedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw ArithmeticOverflow();
  return r;
}

inline int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw ArithmeticOverflow();
  return r;
}

/// Short names for formulas that read like the papers they follow
/// (`add(mul(2, e, hidden), norm)`); a file opts in with `using namespace checked;`.
namespace checked {
inline int64_t mul(int64_t a, int64_t b) {
  return checkedMul(a, b);
}
inline int64_t mul(int64_t a, int64_t b, int64_t c) {
  return checkedMul(checkedMul(a, b), c);
}
inline int64_t add(int64_t a, int64_t b) {
  return checkedAdd(a, b);
}
inline int64_t add(int64_t a, int64_t b, int64_t c) {
  return checkedAdd(checkedAdd(a, b), c);
}
}  // namespace checked

/// a / b rounded up, for a >= 0 and b > 0 (blocks, groups and pages holding `a` items).
inline int64_t ceilDiv(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

/// Bytes needed for `count` values of `bits` bits each, rounded up to whole bytes.
inline int64_t bytesForBits(int64_t count, int64_t bits) {
  return checkedAdd(checkedMul(count, bits), 7) / 8;
}

}  // namespace dlcost
