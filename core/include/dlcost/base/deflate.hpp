#pragma once
// Raw DEFLATE (RFC 1951), small and dependency-free, for share links: the engine compresses
// and decompresses them itself so that the CLI and the WebAssembly page agree byte for byte.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

/// Compresses with LZ77 (32 KiB window) and the fixed Huffman code: one final block.
std::vector<uint8_t> deflateRaw(const std::string& data);

/// Decompresses any valid raw DEFLATE stream (stored, fixed and dynamic blocks, as written
/// by zlib or the browser's CompressionStream("deflate-raw")). Returns nullopt for a
/// malformed or truncated stream, or one whose output would exceed `max_output` bytes.
std::optional<std::string> inflateRaw(const std::vector<uint8_t>& data, size_t max_output);

/// base64url without padding (RFC 4648 section 5).
std::string base64UrlEncode(const std::vector<uint8_t>& data);
/// nullopt for characters outside the base64url alphabet or an impossible length.
std::optional<std::vector<uint8_t>> base64UrlDecode(const std::string& text);

}  // namespace dlcost
