#pragma once
// A sentence in the two languages the page speaks. The CLI prints `en`; the page shows `zh`
// when it is in Chinese and one is written (labels, help, error messages, advice).

#include <string>

namespace dlcost {

/// Text in the two languages the page and `--explain` speak.
struct Text {
  std::string en;
  std::string zh;
};

/// `a` then `b`, in each language.
inline Text operator+(const Text& a, const Text& b) {
  return {a.en + b.en, a.zh + b.zh};
}

/// The same words in both languages (numbers, names, JSON).
inline Text same(const std::string& s) {
  return {s, s};
}

}  // namespace dlcost
