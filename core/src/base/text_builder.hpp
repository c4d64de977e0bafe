#pragma once
// A string built with <<, as std::ostringstream builds it (integers in decimal, a double as
// the stream's default "%g"), without <sstream>: the stream's locale machinery is about 100 KB
// of the WebAssembly module (docs/benchmarks.md, "Two modules"), for a few command lines.

#include <cstdio>
#include <string>
#include <type_traits>

namespace dlcost {

class TextBuilder {
 public:
  TextBuilder& operator<<(const std::string& s) {
    text_ += s;
    return *this;
  }
  TextBuilder& operator<<(const char* s) {
    text_ += s;
    return *this;
  }
  TextBuilder& operator<<(char c) {
    text_ += c;
    return *this;
  }
  template <typename T,
            typename = std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, char>>>
  TextBuilder& operator<<(T v) {
    if constexpr (std::is_floating_point_v<T>) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
      text_ += buf;
    } else {
      text_ += std::to_string(v);
    }
    return *this;
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace dlcost
