#pragma once
// Shapes of one sample (the batch dimension is never part of a Shape).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <string>

#include "dlcost/base/error.hpp"

namespace dlcost {

/// The most dimensions of one sample: the schema's limit on the model input, a reshape's
/// target and an operand, and what analyzeLayer lets a layer's output have.
constexpr size_t kMaxRank = 8;

/// Thrown where a shape would grow past Shape::kCapacity; analyzeLayer turns it into an error
/// about the layer, other callers pass it on as it is (an InputError about shapes).
class RankOverflow : public InputError {
 public:
  RankOverflow();
};

/// Throws RankOverflow (out of line, so that the inline growth stays small).
[[noreturn]] void throwRankOverflow();

/// Dimensions of one sample, outermost first: [C, H, W] for images, [tokens] for token ids,
/// [tokens, features] for sequences of vectors. Held inline, without allocating (an
/// estimate makes and copies several per layer), and used as a sequence of int64_t.
class Shape {
 public:
  /// kMaxRank dimensions, the batch dimension that strides and whole-batch shapes put
  /// first, and the one a layer may add (embedding) before analyzeLayer refuses the output.
  static constexpr size_t kCapacity = kMaxRank + 2;
  using value_type = int64_t;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : Shape(dims.begin(), dims.end()) {}
  /// `rank` dimensions of `value`.
  Shape(size_t rank, int64_t value) {
    for (size_t k = 0; k < rank; ++k) push_back(value);
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  Shape(It first, It last) {
    for (; first != last; ++first) push_back(*first);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* begin() { return dims_; }
  int64_t* end() { return dims_ + size_; }
  const int64_t* begin() const { return dims_; }
  const int64_t* end() const { return dims_ + size_; }
  int64_t& operator[](size_t k) { return dims_[k]; }
  int64_t operator[](size_t k) const { return dims_[k]; }
  int64_t& back() { return dims_[size_ - 1]; }
  int64_t back() const { return dims_[size_ - 1]; }

  void clear() { size_ = 0; }
  /// Throws RankOverflow past kCapacity.
  void push_back(int64_t d) {
    if (size_ == kCapacity) throwRankOverflow();
    dims_[size_++] = d;
  }
  /// Appends [first, last) at the end (the only insertion the engine makes).
  void append(const int64_t* first, const int64_t* last) {
    for (; first != last; ++first) push_back(*first);
  }

  friend bool operator==(const Shape& a, const Shape& b) {
    if (a.size_ != b.size_) return false;
    for (size_t k = 0; k < a.size_; ++k)
      if (a.dims_[k] != b.dims_[k]) return false;
    return true;
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  int64_t dims_[kCapacity] = {};
  size_t size_ = 0;
};

/// Product of the dimensions (1 for a scalar); throws ArithmeticOverflow past 2^63.
int64_t elementCount(const Shape& shape);

/// "[3, 224, 224]"
std::string shapeToString(const Shape& shape);

}  // namespace dlcost
