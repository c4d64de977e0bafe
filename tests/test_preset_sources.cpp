// Every preset's source line in Simplified Chinese ("source_zh" / "_source_zh" beside the
// English one in core/presets), as the engine's preset list gives it to the page.

#include <catch2/catch.hpp>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "dlcost/api.hpp"
#include "dlcost/schema/presets.hpp"

namespace {

/// Removes every span from `open` to the next `close`, both included (UTF-8 safe: the
/// markers are whole byte sequences).
std::string stripSpans(std::string text, const std::string& open, const std::string& close) {
  for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at)) {
    const size_t end = text.find(close, at + open.size());
    if (end == std::string::npos) break;
    text.replace(at, end + close.size() - at, " ");
  }
  return text;
}

/// True for a byte of a CJK Unified Ideograph (U+4E00..U+9FFF: lead bytes 0xE4..0xE9).
bool hasCjk(const std::string& text) {
  for (unsigned char c : text) {
    if (c >= 0xE4 && c <= 0xE9) return true;
  }
  return false;
}

/// The English prose words left in a Chinese source line. What may stay as it is is removed
/// first: titles ('…', "…", 《…》), URLs, and tokens that are code, paths, ids or names with a
/// dot, underscore, slash, colon, '=', '-', '&' or digit in them (torchvision.models.vgg11,
/// arXiv:1409.1556, batch_norm=True, gpt-oss-20b, 3x3). Of the plain words left, an
/// English function word, or any all-lowercase word other than a name written in lowercase
/// ("et al.", torchvision, transformers, dlcost), is English prose.
std::vector<std::string> englishProse(const std::string& line) {
  std::string text = stripSpans(line, "'", "'");
  text = stripSpans(text, "\"", "\"");
  text = stripSpans(text, "\xE3\x80\x8A", "\xE3\x80\x8B");  // 《 》
  static const std::set<std::string> kFunctionWords = {
      "from", "the",  "of",   "with",  "without", "and", "as",  "by",   "in",  "at",
      "is",   "not",  "a",    "an",    "to",      "for", "on",  "its",  "it",  "after",
      "only", "same", "that", "which", "table",   "no",  "was", "were", "are", "has"};
  static const std::set<std::string> kLowercaseNames = {"et", "al", "torchvision", "transformers",
                                                        "dlcost"};
  std::vector<std::string> prose;
  size_t i = 0;
  while (i < text.size()) {
    // A token: a run of printable ASCII other than spaces and the punctuation around words.
    auto inToken = [&](unsigned char c) {
      return c > 0x20 && c < 0x7F &&
             std::string(",;()[]").find(static_cast<char>(c)) == std::string::npos;
    };
    if (!inToken(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && inToken(static_cast<unsigned char>(text[end]))) ++end;
    const std::string token = text.substr(i, end - i);
    i = end;
    if (token.rfind("http://", 0) == 0 || token.rfind("https://", 0) == 0) continue;
    bool code = false, lowercase = true;
    std::string lower;
    for (unsigned char c : token) {
      if (!std::isalpha(c)) code = true;
      if (std::isupper(c)) lowercase = false;
      lower += static_cast<char>(std::tolower(c));
    }
    if (code) continue;
    if (kFunctionWords.count(lower) || (lowercase && !kLowercaseNames.count(lower))) {
      prose.push_back(token);
    }
  }
  return prose;
}

}  // namespace

TEST_CASE("the prose check finds English words and passes code, titles and names",
          "[presets][sources]") {
  CHECK(englishProse("torchvision.models.vgg11（配置 'A' with batch_norm=True），源自 "
                     "Simonyan & Zisserman 2014，《Very Deep Networks》（arXiv:1409.1556）") ==
        std::vector<std::string>{"with"});
  CHECK(englishProse("https://huggingface.co/x/y 的 config.json（Meta 2024，The Llama 3 Herd)") ==
        std::vector<std::string>{"The"});
  CHECK(englishProse("dlcost 计入 BertModel 编码器及其 pooler；Howard et al. 2017") ==
        std::vector<std::string>{"pooler"});
  CHECK(englishProse("https://huggingface.co/x/y 的 config.json（Meta 2024，《The Llama 3 Herd of "
                     "Models》）；已添加 _name_or_path")
            .empty());
}

TEST_CASE("every preset has a Chinese source line written in Chinese", "[presets][sources]") {
  const nlohmann::json list = dlcost::presetListJson();
  REQUIRE(list.size() == dlcost::presetList().size());
  for (const nlohmann::json& p : list) {
    CAPTURE(p["name"].get<std::string>());
    REQUIRE(p.contains("source_zh"));
    const std::string zh = p["source_zh"].get<std::string>();
    CAPTURE(zh);
    CHECK_FALSE(zh.empty());
    CHECK(hasCjk(zh));
    CHECK(englishProse(zh).empty());
    // The English line is kept beside it, not replaced.
    CHECK_FALSE(hasCjk(p["source"].get<std::string>()));
  }
}

TEST_CASE("a Chinese source line keeps the English line's URLs and arXiv ids",
          "[presets][sources]") {
  for (const dlcost::PresetInfo& p : dlcost::presetList()) {
    CAPTURE(p.name, p.source_zh);
    for (const char* marker : {"https://", "arXiv:"}) {
      for (size_t at = p.source.find(marker); at != std::string::npos;
           at = p.source.find(marker, at + 1)) {
        size_t end = at;
        while (end < p.source.size() &&
               std::string(" ,;()").find(p.source[end]) == std::string::npos)
          ++end;
        const std::string reference = p.source.substr(at, end - at);
        CAPTURE(reference);
        CHECK(p.source_zh.find(reference) != std::string::npos);
      }
    }
  }
}
