#include "dlcost/measured/pickle.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "dlcost/base/error.hpp"
#include "measured/pickle_opcodes.hpp"

namespace dlcost {

namespace {

/// Stack pushes and container items a pickle may make: a value reached again through the memo
/// (a repeated dict key) costs a push but no new value, so this is a separate, larger budget.
constexpr size_t kMaxPickleReferences = size_t{1} << 26;

const std::vector<uint32_t> kNoItems;

std::string hexByte(uint8_t b) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

/// "opcode 0x63 (GLOBAL)" for the messages.
std::string opcodeWords(uint8_t op) {
  const char* name = pickleOpcodeName(op);
  return "opcode " + hexByte(op) + (name ? std::string(" (") + name + ")" : " (not an opcode)");
}

}  // namespace

const char* pickleKindName(PickleKind kind) {
  switch (kind) {
    case PickleKind::kNone:
      return "None";
    case PickleKind::kBool:
      return "bool";
    case PickleKind::kInt:
      return "int";
    case PickleKind::kFloat:
      return "float";
    case PickleKind::kString:
      return "str";
    case PickleKind::kBytes:
      return "bytes";
    case PickleKind::kList:
      return "list";
    case PickleKind::kTuple:
      return "tuple";
    case PickleKind::kDict:
      return "dict";
  }
  return "?";
}

const std::string* PickleDocument::text(uint32_t id) const {
  const PickleValue& v = values_[id];
  if (v.kind != PickleKind::kString && v.kind != PickleKind::kBytes) return nullptr;
  return &strings_[v.index];
}

const std::vector<uint32_t>& PickleDocument::items(uint32_t id) const {
  const PickleValue& v = values_[id];
  if (v.kind != PickleKind::kList && v.kind != PickleKind::kTuple && v.kind != PickleKind::kDict)
    return kNoItems;
  return containers_[v.index];
}

std::optional<uint32_t> PickleDocument::get(uint32_t dict, const std::string& key) const {
  if (values_[dict].kind != PickleKind::kDict) return std::nullopt;
  const std::vector<uint32_t>& kv = containers_[values_[dict].index];
  for (size_t i = 0; i + 1 < kv.size(); i += 2) {
    const std::string* k = text(kv[i]);
    if (k && values_[kv[i]].kind == PickleKind::kString && *k == key) return kv[i + 1];
  }
  return std::nullopt;
}

/// Runs the pickle machine over the bytes: a stack of value ids, a stack of marks and a memo.
class PickleBuilder {
 public:
  PickleBuilder(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  PickleDocument run();

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(
        ErrorCode::kParse, "",
        "pickle byte " + std::to_string(op_at_) + ", " + opcodeWords(op_) + ": " + why);
  }
  void need(uint64_t n);
  uint64_t readLE(int bytes);
  uint32_t newValue(PickleValue v);
  uint32_t newText(PickleKind kind, uint64_t length);
  uint32_t newContainer(PickleKind kind, std::vector<uint32_t> items);
  void push(uint32_t id);
  uint32_t pop();
  size_t popMark();
  void addItems(size_t from, PickleKind target);
  void buildTuple(size_t count);
  bool step();
  bool stepScalar();
  bool stepContainer();
  bool stepMemo();

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t op_at_ = 0;
  uint8_t op_ = 0;
  size_t references_ = 0;
  PickleDocument doc_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, uint32_t> memo_;
};

void PickleBuilder::need(uint64_t n) {
  if (n > size_ - pos_) {
    fail("the file ends at byte " + std::to_string(size_) + " but this needs " + std::to_string(n) +
         " more bytes from byte " + std::to_string(pos_) + ": truncated or not a pickle");
  }
}

uint64_t PickleBuilder::readLE(int bytes) {
  need(static_cast<uint64_t>(bytes));
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | data_[pos_ + static_cast<size_t>(i)];
  pos_ += static_cast<size_t>(bytes);
  return v;
}

uint32_t PickleBuilder::newValue(PickleValue v) {
  if (doc_.values_.size() >= kMaxPickleValues) {
    throw InputError(ErrorCode::kTooLarge, "",
                     "pickle byte " + std::to_string(op_at_) + ": more than " +
                         std::to_string(kMaxPickleValues) + " values; dlcost reads no more");
  }
  doc_.values_.push_back(v);
  return static_cast<uint32_t>(doc_.values_.size() - 1);
}

uint32_t PickleBuilder::newText(PickleKind kind, uint64_t length) {
  need(length);  // checked against the bytes left before anything is allocated
  PickleValue v;
  v.kind = kind;
  v.index = static_cast<uint32_t>(doc_.strings_.size());
  doc_.strings_.emplace_back(reinterpret_cast<const char*>(data_ + pos_), length);
  pos_ += length;
  return newValue(v);
}

uint32_t PickleBuilder::newContainer(PickleKind kind, std::vector<uint32_t> items) {
  PickleValue v;
  v.kind = kind;
  v.index = static_cast<uint32_t>(doc_.containers_.size());
  for (uint32_t id : items)
    v.depth = std::max(v.depth, static_cast<uint8_t>(doc_.values_[id].depth + 1));
  if (v.depth > kMaxPickleDepth)
    fail("containers nest deeper than " + std::to_string(kMaxPickleDepth));
  doc_.containers_.push_back(std::move(items));
  return newValue(v);
}

void PickleBuilder::push(uint32_t id) {
  if (++references_ > kMaxPickleReferences) {
    throw InputError(ErrorCode::kTooLarge, "",
                     "pickle byte " + std::to_string(op_at_) + ": more than " +
                         std::to_string(kMaxPickleReferences) +
                         " values pushed; dlcost reads no more");
  }
  stack_.push_back(id);
}

uint32_t PickleBuilder::pop() {
  const size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor) fail("the stack is empty (above the last MARK)");
  const uint32_t id = stack_.back();
  stack_.pop_back();
  return id;
}

size_t PickleBuilder::popMark() {
  if (marks_.empty()) fail("no MARK before it");
  const size_t at = marks_.back();
  marks_.pop_back();
  return at;
}

/// APPEND(S) / SETITEM(S): the stack's values from `from` go into the container below them.
void PickleBuilder::addItems(size_t from, PickleKind target) {
  const size_t floor = marks_.empty() ? 0 : marks_.back();
  if (from > stack_.size() || from == 0 || from - 1 < floor) fail("no container below the items");
  const PickleValue& c = doc_.values_[stack_[from - 1]];
  if (c.kind != target) {
    fail(std::string("the target is a ") + pickleKindName(c.kind) + ", not a " +
         pickleKindName(target));
  }
  if (target == PickleKind::kDict && (stack_.size() - from) % 2 != 0) fail("a key without a value");
  const uint32_t container = stack_[from - 1];
  std::vector<uint32_t>& items = doc_.containers_[c.index];
  uint8_t depth = c.depth;
  for (size_t i = from; i < stack_.size(); ++i) {
    depth = std::max(depth, static_cast<uint8_t>(doc_.values_[stack_[i]].depth + 1));
    if (depth > kMaxPickleDepth)
      fail("containers nest deeper than " + std::to_string(kMaxPickleDepth));
    items.push_back(stack_[i]);
  }
  doc_.values_[container].depth = depth;
  stack_.resize(from);
}

void PickleBuilder::buildTuple(size_t count) {
  const size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() - floor < count)
    fail("the stack holds fewer than " + std::to_string(count) + " values");
  std::vector<uint32_t> items(stack_.end() - static_cast<std::ptrdiff_t>(count), stack_.end());
  stack_.resize(stack_.size() - count);
  push(newContainer(PickleKind::kTuple, std::move(items)));
}

/// None, bools, numbers, strings and bytes; false when `op_` is none of them.
bool PickleBuilder::stepScalar() {
  namespace op = pickle_op;
  PickleValue v;
  switch (op_) {
    case op::kNone:
      push(0);
      return true;  // the document's shared None, False and True
    case op::kNewFalse:
      push(1);
      return true;
    case op::kNewTrue:
      push(2);
      return true;
    case op::kBinInt1:
      v.integer = static_cast<int64_t>(readLE(1));
      break;
    case op::kBinInt2:
      v.integer = static_cast<int64_t>(readLE(2));
      break;
    case op::kBinInt:
      v.integer = static_cast<int32_t>(static_cast<uint32_t>(readLE(4)));
      break;
    case op::kLong1: {
      const uint64_t n = readLE(1);
      if (n > 8) fail("an int of " + std::to_string(n) + " bytes: wider than 64 bits");
      const uint64_t raw = n == 0 ? 0 : readLE(static_cast<int>(n));
      // Two's complement in n bytes, sign-extended to 64 bits.
      const bool negative = n > 0 && n < 8 && (raw >> (8 * n - 1)) & 1;
      v.integer = static_cast<int64_t>(negative ? raw | (~uint64_t{0} << (8 * n)) : raw);
      break;
    }
    case op::kBinFloat: {
      need(8);
      uint64_t bits = 0;  // big-endian, unlike every other field
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | data_[pos_++];
      std::memcpy(&v.real, &bits, 8);
      v.kind = PickleKind::kFloat;
      push(newValue(v));
      return true;
    }
    case op::kShortBinUnicode:
      push(newText(PickleKind::kString, readLE(1)));
      return true;
    case op::kBinUnicode:
      push(newText(PickleKind::kString, readLE(4)));
      return true;
    case op::kBinUnicode8:
      push(newText(PickleKind::kString, readLE(8)));
      return true;
    case op::kShortBinBytes:
      push(newText(PickleKind::kBytes, readLE(1)));
      return true;
    case op::kBinBytes:
      push(newText(PickleKind::kBytes, readLE(4)));
      return true;
    case op::kBinBytes8:
      push(newText(PickleKind::kBytes, readLE(8)));
      return true;
    default:
      return false;
  }
  v.kind = PickleKind::kInt;
  push(newValue(v));
  return true;
}

/// Lists, tuples, dicts and marks; false when `op_` is none of them.
bool PickleBuilder::stepContainer() {
  namespace op = pickle_op;
  switch (op_) {
    case op::kEmptyDict:
      push(newContainer(PickleKind::kDict, {}));
      return true;
    case op::kEmptyList:
      push(newContainer(PickleKind::kList, {}));
      return true;
    case op::kEmptyTuple:
      push(newContainer(PickleKind::kTuple, {}));
      return true;
    case op::kMark:
      if (marks_.size() >= static_cast<size_t>(kMaxPickleDepth))
        fail("MARKs nest deeper than " + std::to_string(kMaxPickleDepth));
      marks_.push_back(stack_.size());
      return true;
    case op::kAppend:
      addItems(stack_.size() - 1, PickleKind::kList);
      return true;
    case op::kSetItem:
      addItems(stack_.size() - 2, PickleKind::kDict);
      return true;
    case op::kAppends:
      addItems(popMark(), PickleKind::kList);
      return true;
    case op::kSetItems:
      addItems(popMark(), PickleKind::kDict);
      return true;
    case op::kTuple1:
      buildTuple(1);
      return true;
    case op::kTuple2:
      buildTuple(2);
      return true;
    case op::kTuple3:
      buildTuple(3);
      return true;
    case op::kTuple: {
      const size_t at = popMark();
      buildTuple(stack_.size() - at);
      return true;
    }
    default:
      return false;
  }
}

/// The memo and the framing; false when `op_` is neither.
bool PickleBuilder::stepMemo() {
  namespace op = pickle_op;
  switch (op_) {
    case op::kMemoize:
    case op::kBinPut:
    case op::kLongBinPut: {
      const uint64_t key = op_ == op::kMemoize ? memo_.size() : readLE(op_ == op::kBinPut ? 1 : 4);
      if (stack_.empty()) fail("nothing on the stack to remember");
      memo_[key] = stack_.back();
      return true;
    }
    case op::kBinGet:
    case op::kLongBinGet: {
      const uint64_t key = readLE(op_ == op::kBinGet ? 1 : 4);
      const auto found = memo_.find(key);
      if (found == memo_.end()) fail("memo entry " + std::to_string(key) + " was never set");
      push(found->second);
      return true;
    }
    case op::kFrame: {
      // Frames only group opcodes for buffered reading: check the length, read on.
      const uint64_t length = readLE(8);
      if (length > size_ - pos_)
        fail("a frame of " + std::to_string(length) +
             " bytes runs past the end of the file: truncated");
      return true;
    }
    default:
      return false;
  }
}

/// One opcode; false at STOP.
bool PickleBuilder::step() {
  op_at_ = pos_;
  if (pos_ >= size_) {
    fail("the file ends at byte " + std::to_string(size_) + " before STOP: truncated");
  }
  op_ = data_[pos_++];
  if (op_ == pickle_op::kStop) return false;
  if (stepScalar() || stepContainer() || stepMemo()) return true;
  if (op_ == pickle_op::kProto) fail("a second PROTO");
  fail(
      "not read: a memory snapshot holds only dicts, lists, tuples, strings, bytes and numbers, "
      "and dlcost builds no Python objects");
}

PickleDocument PickleBuilder::run() {
  if (size_ > kMaxPickleBytes) {
    throw InputError(ErrorCode::kTooLarge, "",
                     "the pickle is " + std::to_string(size_) + " bytes; dlcost reads at most " +
                         std::to_string(kMaxPickleBytes >> 20) + " MiB");
  }
  op_ = size_ > 0 ? data_[0] : 0;
  if (size_ < 2 || data_[0] != pickle_op::kProto) {
    fail(
        "a PyTorch memory snapshot starts with PROTO (0x80) and a protocol of 2 to 5: "
        "not a pickle, or one of protocol 0 or 1");
  }
  const uint8_t protocol = data_[1];
  if (protocol < 2 || protocol > 5)
    fail("protocol " + std::to_string(protocol) + " (dlcost reads 2 to 5)");
  pos_ = 2;
  for (const PickleKind k : {PickleKind::kNone, PickleKind::kBool, PickleKind::kBool}) {
    PickleValue v;
    v.kind = k;
    v.integer = doc_.values_.size() == 2 ? 1 : 0;
    doc_.values_.push_back(v);
  }
  while (step()) {
  }
  if (stack_.empty() || !marks_.empty()) fail("STOP without exactly one finished value");
  doc_.root_ = stack_.back();
  return std::move(doc_);
}

PickleDocument readPickle(const uint8_t* data, size_t size) {
  PickleBuilder builder(data, size);
  return builder.run();
}

}  // namespace dlcost
