#pragma once
// Share links: a whole calculator state in a URL fragment, so nothing reaches a server.
//
// Format, version 1: "#d1." + base64url(deflate_raw(json) + crc32(json) as 4 bytes,
// little-endian), where json is the minified state object. The CRC makes a truncated or
// edited link fail loudly instead of opening with silently different numbers. Later
// versions get a new tag ("d2."), and decodeLink keeps reading every earlier one.

#include <string>

#include <nlohmann/json.hpp>

namespace dlcost {

/// Tag of the links this version writes.
constexpr const char* kShareLinkTag = "d1.";
/// Longest fragment accepted (characters) and largest decompressed state (bytes).
constexpr size_t kMaxShareLinkChars = 200000;
constexpr size_t kMaxShareLinkState = 4 << 20;

/// The fragment, with its leading '#', for a state object such as
/// `{"doc": DOCUMENT, "ui": {"units": "binary", "lang": "zh"}}`. Throws InputError unless
/// `state` is an object.
std::string encodeShareLink(const nlohmann::json& state);

/// The state object a fragment carries (with or without the leading '#'). Throws InputError
/// with a message saying what is wrong for a foreign, truncated or tampered fragment. The
/// state is not validated beyond being a JSON object: estimating its document does that.
nlohmann::json decodeShareLink(const std::string& fragment);

/// CRC-32 (IEEE 802.3, as zlib computes it).
uint32_t crc32(const std::string& data);

/// Whether a decoded state carries a model document to open: a "doc" that is a JSON object.
bool shareLinkHasDocument(const nlohmann::json& state);

}  // namespace dlcost
