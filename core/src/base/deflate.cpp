#include "dlcost/base/deflate.hpp"

#include <array>

namespace dlcost {

namespace {

// RFC 1951 section 3.2.5: base values and extra bits of length and distance codes.
constexpr std::array<uint16_t, 29> kLengthBase = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                  15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                  67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                  2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<uint16_t, 30> kDistBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<uint8_t, 30> kDistExtra = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                                4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                                9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
constexpr int kMaxBits = 15;

// ---- decoding ------------------------------------------------------------------------------

class BitReader {
 public:
  explicit BitReader(const std::vector<uint8_t>& data) : data_(data) {}
  /// Next `n` bits, least significant first; -1 past the end.
  int bits(int n) {
    int v = 0;
    for (int i = 0; i < n; ++i) {
      if (pos_ >= data_.size() * 8) return -1;
      v |= ((data_[pos_ / 8] >> (pos_ % 8)) & 1) << i;
      ++pos_;
    }
    return v;
  }
  void alignToByte() { pos_ = (pos_ + 7) / 8 * 8; }
  size_t bytePos() const { return pos_ / 8; }
  void skipBytes(size_t n) { pos_ += n * 8; }
  const std::vector<uint8_t>& data() const { return data_; }

 private:
  const std::vector<uint8_t>& data_;
  size_t pos_ = 0;
};

/// A canonical Huffman code as counts per length and symbols in code order (as in zlib's
/// puff.c), decoded one bit at a time: links are small, clarity wins.
struct Huffman {
  std::array<uint16_t, kMaxBits + 1> count{};
  std::vector<uint16_t> symbol;

  /// False for an over-subscribed code (an incomplete one is allowed, as zlib allows).
  bool build(const uint16_t* lengths, size_t n) {
    count.fill(0);
    for (size_t i = 0; i < n; ++i) ++count[lengths[i]];
    int left = 1;
    for (int len = 1; len <= kMaxBits; ++len) {
      left = left * 2 - count[len];
      if (left < 0) return false;
    }
    std::array<uint16_t, kMaxBits + 2> offs{};
    for (int len = 1; len <= kMaxBits; ++len) offs[len + 1] = offs[len] + count[len];
    symbol.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      if (lengths[i]) symbol[offs[lengths[i]]++] = static_cast<uint16_t>(i);
    }
    return true;
  }

  /// The next symbol, or -1 for a code that is not in the table or the end of input.
  int decode(BitReader& in) const {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= kMaxBits; ++len) {
      const int bit = in.bits(1);
      if (bit < 0) return -1;
      code |= bit;
      const int n = count[len];
      if (code - n < first) return symbol[index + (code - first)];
      index += n;
      first = (first + n) << 1;
      code <<= 1;
    }
    return -1;
  }
};

bool inflateBlock(BitReader& in, const Huffman& lit, const Huffman& dist, std::string& out,
                  size_t max_output) {
  for (;;) {
    const int sym = lit.decode(in);
    if (sym < 0) return false;
    if (sym < 256) {
      if (out.size() >= max_output) return false;
      out.push_back(static_cast<char>(sym));
      continue;
    }
    if (sym == 256) return true;
    const int li = sym - 257;
    if (li >= 29) return false;
    const int extra = in.bits(kLengthExtra[li]);
    if (extra < 0) return false;
    const size_t length = kLengthBase[li] + extra;
    const int di = dist.decode(in);
    if (di < 0 || di >= 30) return false;
    const int dextra = in.bits(kDistExtra[di]);
    if (dextra < 0) return false;
    const size_t distance = kDistBase[di] + dextra;
    if (distance > out.size() || out.size() + length > max_output) return false;
    for (size_t i = 0; i < length; ++i) out.push_back(out[out.size() - distance]);
  }
}

void fixedCodes(Huffman& lit, Huffman& dist) {
  std::array<uint16_t, 288> l{};
  for (int i = 0; i < 144; ++i) l[i] = 8;
  for (int i = 144; i < 256; ++i) l[i] = 9;
  for (int i = 256; i < 280; ++i) l[i] = 7;
  for (int i = 280; i < 288; ++i) l[i] = 8;
  lit.build(l.data(), l.size());
  std::array<uint16_t, 30> d{};
  d.fill(5);
  dist.build(d.data(), d.size());
}

bool dynamicCodes(BitReader& in, Huffman& lit, Huffman& dist) {
  const int hlit = in.bits(5), hdist = in.bits(5), hclen = in.bits(4);
  if (hlit < 0 || hdist < 0 || hclen < 0) return false;
  const int nlit = hlit + 257, ndist = hdist + 1, ncode = hclen + 4;
  if (nlit > 286 || ndist > 30) return false;
  static constexpr std::array<uint8_t, 19> kOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
  std::array<uint16_t, 19> code_lengths{};
  for (int i = 0; i < ncode; ++i) {
    const int v = in.bits(3);
    if (v < 0) return false;
    code_lengths[kOrder[i]] = static_cast<uint16_t>(v);
  }
  Huffman lencode;
  if (!lencode.build(code_lengths.data(), code_lengths.size())) return false;
  std::array<uint16_t, 286 + 30> lengths{};
  int index = 0;
  while (index < nlit + ndist) {
    const int sym = lencode.decode(in);
    if (sym < 0) return false;
    if (sym < 16) {
      lengths[index++] = static_cast<uint16_t>(sym);
      continue;
    }
    uint16_t value = 0;
    int repeat = 0;
    if (sym == 16) {
      if (index == 0) return false;
      value = lengths[index - 1];
      repeat = in.bits(2);
      if (repeat < 0) return false;
      repeat += 3;
    } else if (sym == 17) {
      repeat = in.bits(3);
      if (repeat < 0) return false;
      repeat += 3;
    } else {
      repeat = in.bits(7);
      if (repeat < 0) return false;
      repeat += 11;
    }
    if (index + repeat > nlit + ndist) return false;
    while (repeat--) lengths[index++] = value;
  }
  if (lengths[256] == 0) return false;  // no end-of-block code
  return lit.build(lengths.data(), nlit) && dist.build(lengths.data() + nlit, ndist);
}

// ---- encoding ------------------------------------------------------------------------------

class BitWriter {
 public:
  void bits(uint32_t value, int n) {
    for (int i = 0; i < n; ++i) put((value >> i) & 1);
  }
  /// Huffman codes are sent most significant bit first.
  void code(uint32_t code, int n) {
    for (int i = n - 1; i >= 0; --i) put((code >> i) & 1);
  }
  std::vector<uint8_t> finish() {
    if (used_) out_.push_back(current_);
    return std::move(out_);
  }

 private:
  void put(uint32_t bit) {
    current_ |= static_cast<uint8_t>(bit << used_);
    if (++used_ == 8) {
      out_.push_back(current_);
      current_ = 0;
      used_ = 0;
    }
  }
  std::vector<uint8_t> out_;
  uint8_t current_ = 0;
  int used_ = 0;
};

void writeLiteral(BitWriter& w, int sym) {
  if (sym < 144) {
    w.code(0x30 + sym, 8);
  } else if (sym < 256) {
    w.code(0x190 + (sym - 144), 9);
  } else if (sym < 280) {
    w.code(sym - 256, 7);
  } else {
    w.code(0xC0 + (sym - 280), 8);
  }
}

void writeMatch(BitWriter& w, size_t length, size_t distance) {
  int li = 28;
  while (kLengthBase[li] > length) --li;
  writeLiteral(w, 257 + li);
  w.bits(static_cast<uint32_t>(length - kLengthBase[li]), kLengthExtra[li]);
  int di = 29;
  while (kDistBase[di] > distance) --di;
  w.code(static_cast<uint32_t>(di), 5);
  w.bits(static_cast<uint32_t>(distance - kDistBase[di]), kDistExtra[di]);
}

}  // namespace

std::optional<std::string> inflateRaw(const std::vector<uint8_t>& data, size_t max_output) {
  BitReader in(data);
  std::string out;
  for (;;) {
    const int last = in.bits(1);
    const int type = in.bits(2);
    if (last < 0 || type < 0) return std::nullopt;
    if (type == 0) {
      in.alignToByte();
      const size_t p = in.bytePos();
      if (p + 4 > data.size()) return std::nullopt;
      const size_t len = data[p] | (data[p + 1] << 8);
      const size_t nlen = data[p + 2] | (data[p + 3] << 8);
      if ((len ^ 0xFFFF) != nlen || p + 4 + len > data.size() || out.size() + len > max_output) {
        return std::nullopt;
      }
      out.append(reinterpret_cast<const char*>(data.data() + p + 4), len);
      in.skipBytes(4 + len);
    } else if (type == 1 || type == 2) {
      Huffman lit, dist;
      if (type == 1) {
        fixedCodes(lit, dist);
      } else if (!dynamicCodes(in, lit, dist)) {
        return std::nullopt;
      }
      if (!inflateBlock(in, lit, dist, out, max_output)) return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (last) return out;
  }
}

std::vector<uint8_t> deflateRaw(const std::string& data) {
  constexpr size_t kWindow = 32768, kMinMatch = 3, kMaxMatch = 258, kMaxChain = 64;
  constexpr size_t kHashSize = 1 << 15;
  BitWriter w;
  w.bits(1, 1);  // final block
  w.bits(1, 2);  // fixed Huffman codes
  std::vector<int64_t> head(kHashSize, -1), prev(data.size(), -1);
  auto hash = [&](size_t i) {
    return ((static_cast<uint8_t>(data[i]) << 10) ^ (static_cast<uint8_t>(data[i + 1]) << 5) ^
            static_cast<uint8_t>(data[i + 2])) &
           (kHashSize - 1);
  };
  auto insert = [&](size_t i) {
    if (i + kMinMatch > data.size()) return;
    const size_t h = hash(i);
    prev[i] = head[h];
    head[h] = static_cast<int64_t>(i);
  };
  size_t i = 0;
  while (i < data.size()) {
    size_t best_len = 0, best_dist = 0;
    if (i + kMinMatch <= data.size()) {
      int64_t cand = head[hash(i)];
      for (size_t chain = 0; cand >= 0 && chain < kMaxChain; ++chain) {
        const size_t c = static_cast<size_t>(cand);
        if (i - c > kWindow) break;
        size_t len = 0;
        while (len < kMaxMatch && i + len < data.size() && data[c + len] == data[i + len]) ++len;
        if (len > best_len) {
          best_len = len;
          best_dist = i - c;
        }
        cand = prev[c];
      }
    }
    if (best_len >= kMinMatch) {
      writeMatch(w, best_len, best_dist);
      for (size_t k = 0; k < best_len; ++k) insert(i + k);
      i += best_len;
    } else {
      writeLiteral(w, static_cast<uint8_t>(data[i]));
      insert(i);
      ++i;
    }
  }
  writeLiteral(w, 256);
  return w.finish();
}

std::string base64UrlEncode(const std::vector<uint8_t>& data) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < data.size(); i += 3) {
    const uint32_t v = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(v >> s) & 63]);
  }
  if (i + 1 == data.size()) {
    const uint32_t v = data[i] << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (i + 2 == data.size()) {
    const uint32_t v = (data[i] << 16) | (data[i + 1] << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

std::optional<std::vector<uint8_t>> base64UrlDecode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
  };
  if (text.size() % 4 == 1) return std::nullopt;
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const int v = value(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

}  // namespace dlcost
