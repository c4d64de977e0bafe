#include "dlcost/types/precision.hpp"

#include "dlcost/base/enum_names.hpp"

namespace dlcost {

int dtypeBits(DType dtype) {
  switch (dtype) {
    case DType::kFp32:
      return 32;
    case DType::kFp16:
      return 16;
    case DType::kBf16:
      return 16;
    case DType::kFp8:
      return 8;
    case DType::kInt8:
      return 8;
    case DType::kInt4:
      return 4;
    case DType::kInt64:
      return 64;
    case DType::kBool:
      return 8;  // torch.bool takes one byte
  }
  return 32;
}

const char* dtypeName(DType dtype) {
  switch (dtype) {
    case DType::kFp32:
      return "fp32";
    case DType::kFp16:
      return "fp16";
    case DType::kBf16:
      return "bf16";
    case DType::kFp8:
      return "fp8";
    case DType::kInt8:
      return "int8";
    case DType::kInt4:
      return "int4";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
  }
  return "fp32";
}

std::optional<DType> parseDType(const std::string& name) {
  return parseEnum(kDTypes, dtypeName, name);
}

const char* precisionName(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
    case Precision::kMixed:
      return "mixed";
    case Precision::kAutocastFp16:
      return "autocast_fp16";
    case Precision::kAutocastBf16:
      return "autocast_bf16";
  }
  return "fp32";
}

std::optional<Precision> parsePrecision(const std::string& name) {
  return parseEnum(kPrecisions, precisionName, name);
}

PrecisionLayout layoutOf(Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return {DType::kFp32, DType::kFp32, DType::kFp32, DType::kFp32, false};
    case Precision::kFp16:
      return {DType::kFp16, DType::kFp16, DType::kFp16, DType::kFp16, false};
    case Precision::kBf16:
      return {DType::kBf16, DType::kBf16, DType::kBf16, DType::kBf16, false};
    case Precision::kMixed:
      return {DType::kFp16, DType::kFp16, DType::kFp16, DType::kFp32, true};
    case Precision::kAutocastFp16:
      return {DType::kFp32, DType::kFp32, DType::kFp16, DType::kFp32, false, true};
    case Precision::kAutocastBf16:
      return {DType::kFp32, DType::kFp32, DType::kBf16, DType::kFp32, false, true};
  }
  return {DType::kFp32, DType::kFp32, DType::kFp32, DType::kFp32, false};
}

}  // namespace dlcost
