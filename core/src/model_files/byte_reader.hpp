#pragma once
// Little-endian reads from a file's first bytes. Reading past them throws HeaderIncomplete
// when the file goes on (the front end reads more and starts again) and an InputError when
// the file itself ends there.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "dlcost/base/error.hpp"
#include "dlcost/model_files/model_file.hpp"

namespace dlcost {

class ByteReader {
 public:
  /// `file_size` is the whole file's size, or -1 when unknown (the prefix is then taken to
  /// be the whole file).
  ByteReader(const uint8_t* data, size_t size, int64_t file_size)
      : data_(data),
        size_(size),
        file_size_(std::max<int64_t>(file_size, static_cast<int64_t>(size))) {}

  size_t offset() const { return offset_; }

  /// Makes sure `n` more bytes are there; `what` names the field for the error.
  void need(uint64_t n, const std::string& path, const char* what) {
    if (n <= size_ - offset_) return;
    const uint64_t end = n > static_cast<uint64_t>(kMaxModelHeaderBytes) ? UINT64_MAX : offset_ + n;
    if (end > static_cast<uint64_t>(kMaxModelHeaderBytes)) {
      throw InputError(ErrorCode::kTooLarge, path,
                       std::string(what) + " would end past byte " +
                           std::to_string(kMaxModelHeaderBytes) +
                           ": dlcost reads headers of at most 128 MiB");
    }
    if (static_cast<int64_t>(end) > file_size_) {
      throw InputError(ErrorCode::kValue, path,
                       std::string("the file ends at byte ") + std::to_string(file_size_) +
                           " inside " + what + " (which needs bytes up to " + std::to_string(end) +
                           "): truncated or not this format");
    }
    // The file goes on: ask for at least twice the prefix so that a long header takes a few
    // rounds, not thousands.
    const int64_t wanted =
        std::max<int64_t>(static_cast<int64_t>(end), 2 * static_cast<int64_t>(size_));
    throw HeaderIncomplete(std::min({wanted, file_size_, kMaxModelHeaderBytes}));
  }

  template <typename T>
  T read(const std::string& path, const char* what) {
    need(sizeof(T), path, what);
    T v = 0;
    // Little-endian on every platform dlcost builds for (x86-64, arm64, wasm32).
    std::memcpy(&v, data_ + offset_, sizeof(T));
    offset_ += sizeof(T);
    return v;
  }

  std::string bytes(uint64_t n, const std::string& path, const char* what) {
    need(n, path, what);
    std::string s(reinterpret_cast<const char*>(data_ + offset_), n);
    offset_ += n;
    return s;
  }

  void skip(uint64_t n, const std::string& path, const char* what) {
    need(n, path, what);
    offset_ += n;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  int64_t file_size_;
  size_t offset_ = 0;
};

}  // namespace dlcost
