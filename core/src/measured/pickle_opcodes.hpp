#pragma once
// The pickle opcodes by byte (Python's Lib/pickletools.py), for the reader and its messages.

#include <cstdint>

namespace dlcost {

namespace pickle_op {
constexpr uint8_t kMark = '(', kStop = '.', kNone = 'N', kBinInt = 'J', kBinInt1 = 'K',
                  kBinInt2 = 'M', kBinFloat = 'G', kBinUnicode = 'X', kBinBytes = 'B',
                  kShortBinBytes = 'C', kEmptyDict = '}', kEmptyList = ']', kEmptyTuple = ')',
                  kAppend = 'a', kAppends = 'e', kSetItem = 's', kSetItems = 'u', kTuple = 't',
                  kBinPut = 'q', kLongBinPut = 'r', kBinGet = 'h', kLongBinGet = 'j', kProto = 0x80,
                  kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87, kNewTrue = 0x88, kNewFalse = 0x89,
                  kLong1 = 0x8a, kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d, kBinBytes8 = 0x8e,
                  kMemoize = 0x94, kFrame = 0x95;
}  // namespace pickle_op

/// Python's name of an opcode ("GLOBAL", "SETITEMS"), or nullptr for a byte that is none.
const char* pickleOpcodeName(uint8_t op);

}  // namespace dlcost
