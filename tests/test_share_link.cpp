// Share links: the DEFLATE codec, base64url, and the versioned fragment format.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "dlcost/api.hpp"
#include "dlcost/base/deflate.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/report/share_link.hpp"

using nlohmann::json;

namespace {

std::string readFixture(const std::string& relative) {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/../../" + relative, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

json zlibStreams() {
  std::ifstream in(std::string(DLCOST_FIXTURES) + "/zlib_deflate_raw.json");
  return json::parse(in);
}

std::string randomText(std::mt19937& rng, size_t size) {
  // Skewed alphabet so that LZ77 finds repeats, plus every byte value now and then.
  static const std::string kCommon = "{\"type\":\"conv2d\",\"kernel\":3,[]} 0123456789";
  std::string s;
  for (size_t i = 0; i < size; ++i) {
    s.push_back(rng() % 8 ? kCommon[rng() % kCommon.size()] : static_cast<char>(rng() % 256));
  }
  return s;
}

}  // namespace

TEST_CASE("inflate reads zlib's raw DEFLATE streams of every block type", "[link][deflate]") {
  // Streams written by zlib (RFC 1951 reference implementation), which is what the browser's
  // CompressionStream("deflate-raw") produces; see tests/fixtures/zlib_deflate_raw.json.
  const json streams = zlibStreams();
  const std::string plain = readFixture(streams["plain_file"].get<std::string>());
  REQUIRE(!plain.empty());
  const auto kind = GENERATE(as<std::string>{}, "dynamic_level9", "stored_level0", "fixed_huffman");
  CAPTURE(kind);
  const auto bytes = dlcost::base64UrlDecode(streams[kind].get<std::string>());
  REQUIRE(bytes);
  const auto text = dlcost::inflateRaw(*bytes, 1 << 20);
  REQUIRE(text);
  CHECK(*text == plain);
}

TEST_CASE("deflate then inflate returns the input exactly", "[link][deflate]") {
  std::mt19937 rng(20261202);
  const size_t size = GENERATE(0, 1, 2, 3, 257, 4096, 70000);
  CAPTURE(size);
  const std::string s = randomText(rng, size);
  const auto back = dlcost::inflateRaw(dlcost::deflateRaw(s), s.size() + 1);
  REQUIRE(back);
  CHECK(*back == s);
}

TEST_CASE("inflate refuses streams that are truncated or expand past the limit",
          "[link][deflate]") {
  const std::string s(100000, 'a');  // compresses to a few hundred bytes
  const auto packed = dlcost::deflateRaw(s);
  CHECK_FALSE(dlcost::inflateRaw(packed, s.size() - 1));  // a decompression bomb is cut off
  const std::vector<uint8_t> cut(packed.begin(), packed.begin() + packed.size() / 2);
  CHECK_FALSE(dlcost::inflateRaw(cut, s.size()));
  CHECK_FALSE(dlcost::inflateRaw({0xFF, 0xFF}, 10));  // block type 3 is reserved
}

TEST_CASE("base64url round-trips every length and rejects foreign characters", "[link][base64]") {
  std::vector<uint8_t> data;
  for (int n = 0; n < 40; ++n) {
    CAPTURE(n);
    const std::string text = dlcost::base64UrlEncode(data);
    CHECK(text.find_first_of("+/=") == std::string::npos);
    const auto back = dlcost::base64UrlDecode(text);
    REQUIRE(back);
    CHECK(*back == data);
    data.push_back(static_cast<uint8_t>(n * 37 + 11));
  }
  CHECK_FALSE(dlcost::base64UrlDecode("ab+c"));
  CHECK_FALSE(dlcost::base64UrlDecode("abcde"));  // 5 characters cannot encode whole bytes
}

TEST_CASE("crc32 matches the standard check value", "[link]") {
  // The CRC-32/ISO-HDLC check value for "123456789" (the catalogue of parametrised CRC
  // algorithms, reveng.sourceforge.io: check=0xcbf43926).
  CHECK(dlcost::crc32("123456789") == 0xCBF43926u);
}

TEST_CASE("a share link round-trips any state object", "[link]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    json layers = json::array();
    const int n = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      layers.push_back({{"type", "linear"},
                        {"out_features", 1 + rng() % 5000},
                        {"name", "fc" + std::to_string(i)}});
    }
    const json state = {{"doc",
                         {{"model", {{"input", {1 + rng() % 1000}}, {"layers", layers}}},
                          {"workload", {{"batch", 1 + rng() % 512}}}}},
                        {"ui", {{"lang", rng() % 2 ? "en" : "zh"}}}};
    const std::string link = dlcost::encodeShareLink(state);
    CAPTURE(link);
    CHECK(link.rfind("#d1.", 0) == 0);
    CHECK(dlcost::decodeShareLink(link) == state);
    CHECK(dlcost::decodeShareLink(link.substr(1)) == state);  // '#' is optional
  }
}

TEST_CASE("golden links from version 1 keep opening with the same numbers", "[link][golden]") {
  // Made with `dlcost link` of this version; later versions must still read them.
  struct Golden {
    const char* link;
    json doc;
  };
  const std::vector<Golden> goldens = {
      {"#d1.q1ZKyU9WsqpWys1PSc0BMQqKUotTS5SslBJzUivygKxaHaXy_"
       "KLsnPzEFJB8UmJJcoaSlZmJjlJKSWVBKlBlbmZFaoqSjlJ-"
       "QUlmbmZVahFILD83Na-kNFepFqi_NBOkMycxLx0oU5UBVFqal1lSDOSkpCZn5ibmAFUBALI7UMU",
       {{"model", {{"preset", "alexnet"}}},
        {"workload", {{"batch", 64}, {"dtype", "mixed"}, {"optimizer", "momentum"}}}}},
  };
  for (const Golden& g : goldens) {
    const json state = dlcost::decodeShareLink(g.link);
    CHECK(state["doc"] == g.doc);
    CHECK(state["ui"] == json({{"units", "decimal"}, {"lang", "zh"}}));
    CHECK(dlcost::estimateDocument(state["doc"]) == dlcost::estimateDocument(g.doc));
  }
}

TEST_CASE("tampered, truncated and foreign fragments give a clear error", "[link][errors]") {
  const std::string good = dlcost::encodeShareLink({{"doc", {{"model", {{"preset", "alexnet"}}}}}});
  struct Case {
    std::string fragment;
    std::string reason;
  };
  std::string flipped = good;
  flipped[flipped.size() - 3] = flipped[flipped.size() - 3] == 'A' ? 'B' : 'A';
  const std::vector<Case> cases = {
      {"", "no fragment"},
      {"#", "no fragment"},
      {"#section-2", "not a dlcost link"},
      {"#d2.AAAA", "newer version of dlcost (#d2.)"},
      {"#dx.AAAA", "not a dlcost link"},
      {"#d1.***", "characters"},
      {"#d1.AA", "truncated"},
      {good.substr(0, good.size() / 2), "truncated"},
      {flipped, "altered"},
      {"#d1." + std::string(dlcost::kMaxShareLinkChars, 'A'), "longer"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.fragment.substr(0, 60));
    try {
      dlcost::decodeShareLink(c.fragment);
      FAIL("decoded a bad fragment");
    } catch (const dlcost::InputError& e) {
      CHECK_THAT(e.error().message, Catch::Matchers::Contains(c.reason));
    }
  }
}

TEST_CASE("the text entry points the page uses wrap the same codec and never throw",
          "[link][api]") {
  const json state = {{"doc", {{"model", {{"preset", "resnet50"}}}, {"workload", {{"batch", 64}}}}},
                      {"ui", {{"units", "decimal"}, {"lang", "zh"}}}};
  const json encoded = json::parse(dlcost::shareLinkEncodeText(state.dump()));
  CHECK(encoded.at("fragment") == dlcost::encodeShareLink(state));
  const json decoded = json::parse(dlcost::shareLinkDecodeText(encoded.at("fragment")));
  CHECK(decoded.at("state") == state);
  CHECK(decoded.at("has_document") == true);
  // A state without a model document (or with one that is not an object) opens nothing.
  for (const json& other : {json{{"ui", {{"units", "binary"}}}}, json{{"doc", json::array()}}}) {
    const json read = json::parse(dlcost::shareLinkDecodeText(dlcost::encodeShareLink(other)));
    CHECK(read.at("has_document") == false);
  }

  const auto [text, code] = GENERATE(table<std::string, std::string>({
      {"[1, 2]", "type"},       // a state must be an object
      {"{\"doc\": ", "parse"},  // not JSON at all
  }));
  CAPTURE(text);
  CHECK(json::parse(dlcost::shareLinkEncodeText(text)).at("error").at("code") == code);
}

TEST_CASE("the decode entry point reports a broken fragment as an error object", "[link][api]") {
  const std::string good = dlcost::encodeShareLink({{"doc", {{"model", {{"preset", "alexnet"}}}}}});
  const std::string bad = GENERATE_COPY(good.substr(0, good.size() - 6), std::string("#x1.abc"),
                                        std::string("#"), std::string("#d1.@@"));
  CAPTURE(bad);
  const json out = json::parse(dlcost::shareLinkDecodeText(bad));
  CHECK(out.at("error").at("code") == "value");
  CHECK(out.at("error").at("message").get<std::string>().rfind("share link: ", 0) == 0);
}
