#pragma once
// A reader of the Python pickle subset that a PyTorch CUDA memory snapshot uses
// (`torch.cuda.memory._dump_snapshot()`, protocols 2 to 5): None, bools, ints, floats, strings,
// bytes, lists, tuples and dicts. Anything that would build a Python object (GLOBAL, REDUCE,
// BUILD, ...) is refused, never executed: the bytes are data only. No I/O: the caller reads the
// file.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

/// Largest pickle read (bytes): a snapshot of a long run is tens of MiB.
constexpr size_t kMaxPickleBytes = size_t{256} << 20;
/// Most values one pickle may hold (each string, number and container counts once).
constexpr size_t kMaxPickleValues = size_t{1} << 24;
/// Deepest nesting of containers; a snapshot nests five deep (device_traces[0][i].frames[j]).
constexpr int kMaxPickleDepth = 64;

enum class PickleKind : uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,
  kBytes,
  kList,
  kTuple,
  kDict
};

/// "None", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict" (Python's names).
const char* pickleKindName(PickleKind kind);

/// One value. Its payload is `integer` (bool, int), `real` (float), or `index` into the
/// document's strings (str, bytes) or containers (list, tuple, dict).
struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  uint8_t depth = 1;  ///< containers nested in it, itself included (1 for a scalar)
  int64_t integer = 0;
  double real = 0;
  uint32_t index = 0;
};

/// Values by id. A container's items are ids; a dict's are key, value, key, value, ... in the
/// order the pickle set them. A value reached twice through the memo is one id.
class PickleDocument {
 public:
  uint32_t root() const { return root_; }
  const PickleValue& value(uint32_t id) const { return values_[id]; }
  size_t size() const { return values_.size(); }
  /// The text of a str or bytes value; nullptr for any other kind.
  const std::string* text(uint32_t id) const;
  /// The items of a list, tuple or dict (see above); empty for any other kind.
  const std::vector<uint32_t>& items(uint32_t id) const;
  /// A dict's value under the str key `key`; nullopt when absent or not a dict.
  std::optional<uint32_t> get(uint32_t dict, const std::string& key) const;

 private:
  friend class PickleBuilder;
  std::vector<PickleValue> values_;
  std::vector<std::string> strings_;
  std::vector<std::vector<uint32_t>> containers_;
  uint32_t root_ = 0;
};

/// Reads a whole pickle (first opcode PROTO 2..5, last STOP). Throws InputError (kParse) naming
/// the byte offset and the opcode for anything outside the subset above, a truncated file, or
/// a count that runs past the end; kTooLarge past the limits above. Never allocates more than
/// a small multiple of `size`.
PickleDocument readPickle(const uint8_t* data, size_t size);

}  // namespace dlcost
