#pragma once
// A count that a whole step can make larger than 64 bits: the MACs and FLOPs of a step at a
// global batch. A 405B model trained on 2,048 sequences of 8,192 tokens does 1.4e19 backward
// MACs (4.0e19 FLOPs in all), past int64's 9.2e18, and a real run must not be refused as too
// large. Per-layer and per-sequence counts stay int64 (each fits); step totals are 128-bit
// integers, exact and checked (they overflow at 1.7e38, which no input reaches within the
// schema's ranges), written in JSON as exact integers.

#include <cstdint>
#include <string>
#include <type_traits>

#include "dlcost/base/checked.hpp"

namespace dlcost {

class WideCount {
 public:
  __extension__ typedef __int128 Int128;

  constexpr WideCount() = default;
  /// Widening from any integer of 64 bits or fewer is exact, so it is implicit.
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                             sizeof(T) <= sizeof(int64_t),
                                         int> = 0>
  constexpr WideCount(T value) : v_(value) {}  // NOLINT(google-explicit-constructor)

  /// The count as a double (rounded to the nearest double past 2^53).
  constexpr double toDouble() const { return static_cast<double>(v_); }
  explicit constexpr operator double() const { return toDouble(); }
  constexpr bool fitsInt64() const { return v_ >= INT64_MIN && v_ <= INT64_MAX; }
  /// The count as int64; throws ArithmeticOverflow where it does not fit.
  int64_t toInt64() const {
    if (!fitsInt64()) throw ArithmeticOverflow();
    return static_cast<int64_t>(v_);
  }
  /// Exact decimal digits, "-" first when negative.
  std::string toString() const;

  friend WideCount operator+(WideCount a, WideCount b) {
    WideCount r;
    if (__builtin_add_overflow(a.v_, b.v_, &r.v_)) throw ArithmeticOverflow();
    return r;
  }
  friend WideCount operator-(WideCount a, WideCount b) {
    WideCount r;
    if (__builtin_sub_overflow(a.v_, b.v_, &r.v_)) throw ArithmeticOverflow();
    return r;
  }
  friend WideCount operator*(WideCount a, WideCount b) {
    WideCount r;
    if (__builtin_mul_overflow(a.v_, b.v_, &r.v_)) throw ArithmeticOverflow();
    return r;
  }
  /// Integer division and remainder by a positive divisor.
  friend WideCount operator/(WideCount a, int64_t b) { return fromRaw(a.v_ / b); }
  friend int64_t operator%(WideCount a, int64_t b) { return static_cast<int64_t>(a.v_ % b); }
  WideCount& operator+=(WideCount b) { return *this = *this + b; }

  friend constexpr bool operator==(WideCount a, WideCount b) { return a.v_ == b.v_; }
  friend constexpr bool operator!=(WideCount a, WideCount b) { return a.v_ != b.v_; }
  friend constexpr bool operator<(WideCount a, WideCount b) { return a.v_ < b.v_; }
  friend constexpr bool operator>(WideCount a, WideCount b) { return a.v_ > b.v_; }
  friend constexpr bool operator<=(WideCount a, WideCount b) { return a.v_ <= b.v_; }
  friend constexpr bool operator>=(WideCount a, WideCount b) { return a.v_ >= b.v_; }

 private:
  static constexpr WideCount fromRaw(Int128 v) {
    WideCount r;
    r.v_ = v;
    return r;
  }
  Int128 v_ = 0;
};

}  // namespace dlcost
