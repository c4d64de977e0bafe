#include "dlcost/report/share_link.hpp"

#include <array>

#include "dlcost/base/deflate.hpp"
#include "dlcost/base/error.hpp"
#include "dlcost/schema/config_json.hpp"

namespace dlcost {

namespace {

[[noreturn]] void bad(const std::string& why) {
  throw InputError(ErrorCode::kValue, "", "share link: " + why);
}

}  // namespace

uint32_t crc32(const std::string& data) {
  static const std::array<uint32_t, 256> kTable = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (char ch : data) c = kTable[(c ^ static_cast<uint8_t>(ch)) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string encodeShareLink(const nlohmann::json& state) {
  if (!state.is_object()) {
    throw InputError(ErrorCode::kType, "", "share link: the state must be a JSON object");
  }
  const std::string text = state.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::vector<uint8_t> bytes = deflateRaw(text);
  const uint32_t crc = crc32(text);
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(crc >> (8 * i)));
  return std::string("#") + kShareLinkTag + base64UrlEncode(bytes);
}

nlohmann::json decodeShareLink(const std::string& fragment) {
  std::string f = fragment;
  if (!f.empty() && f[0] == '#') f.erase(0, 1);
  if (f.empty()) bad("the link has no fragment after '#'");
  if (f.size() > kMaxShareLinkChars) bad("the fragment is longer than any dlcost link");
  const std::string tag = kShareLinkTag;
  if (f.compare(0, tag.size(), tag) != 0) {
    // "d<version>." with another version: a link format this build does not know yet.
    const size_t dot = f.find('.');
    if (f[0] == 'd' && dot != std::string::npos && dot > 1 && dot <= 10 &&
        f.find_first_not_of("0123456789", 1) == dot) {
      bad("this link comes from a newer version of dlcost (#" + f.substr(0, dot + 1) +
          "); this page reads #" + tag + " links");
    }
    bad("this is not a dlcost link (it should start with #" + tag + ")");
  }
  const std::string payload = f.substr(tag.size());
  if (payload.find_first_not_of(
          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") !=
      std::string::npos) {
    bad("the fragment has characters a dlcost link never contains");
  }
  const auto bytes = base64UrlDecode(payload);
  if (!bytes) bad("the link is truncated");
  if (bytes->size() < 5) bad("the link is truncated");
  const std::vector<uint8_t> body(bytes->begin(), bytes->end() - 4);
  const auto text = inflateRaw(body, kMaxShareLinkState);
  if (!text) bad("the link is truncated or damaged (its data does not decompress)");
  uint32_t crc = 0;
  for (int i = 0; i < 4; ++i)
    crc |= static_cast<uint32_t>((*bytes)[bytes->size() - 4 + i]) << (8 * i);
  if (crc32(*text) != crc) bad("the link is truncated or was altered (checksum mismatch)");
  nlohmann::json state;
  try {
    state = parseDocumentText(*text);
  } catch (const InputError&) {
    bad("the link's content is not valid JSON");
  }
  if (!state.is_object()) bad("the link's content is not a state object");
  return state;
}

bool shareLinkHasDocument(const nlohmann::json& state) {
  return state.is_object() && state.contains("doc") && state["doc"].is_object();
}

}  // namespace dlcost
