// Names of the serving enums, as the workload JSON, the CLI and the page spell them.
#include "dlcost/types/serving_settings.hpp"

#include "dlcost/base/enum_names.hpp"

namespace dlcost {

const char* engineName(Engine e) {
  switch (e) {
    case Engine::kNone:
      return "none";
    case Engine::kHf:
      return "hf";
    case Engine::kVllm:
      return "vllm";
    case Engine::kSglang:
      return "sglang";
    case Engine::kLlamaCpp:
      return "llamacpp";
    case Engine::kTrtllm:
      return "trtllm";
  }
  return "none";
}
std::optional<Engine> parseEngine(const std::string& name) {
  return parseEnum(kEngines, engineName, name);
}

const char* quantFormatName(QuantFormat q) {
  switch (q) {
    case QuantFormat::kNone:
      return "none";
    case QuantFormat::kGguf:
      return "gguf";
    case QuantFormat::kGptq:
      return "gptq";
    case QuantFormat::kAwq:
      return "awq";
    case QuantFormat::kBnbNf4:
      return "bnb-nf4";
    case QuantFormat::kBnbFp4:
      return "bnb-fp4";
    case QuantFormat::kFp8Tensor:
      return "fp8-tensor";
    case QuantFormat::kFp8Channel:
      return "fp8-channel";
    case QuantFormat::kFp8Block:
      return "fp8-block";
    case QuantFormat::kMxfp4:
      return "mxfp4";
    case QuantFormat::kNvfp4:
      return "nvfp4";
  }
  return "none";
}
std::optional<QuantFormat> parseQuantFormat(const std::string& name) {
  return parseEnum(kQuantFormats, quantFormatName, name);
}

const char* ggufFileTypeName(GgufFileType t) {
  switch (t) {
    case GgufFileType::kF16:
      return "F16";
    case GgufFileType::kBf16:
      return "BF16";
    case GgufFileType::kQ8_0:
      return "Q8_0";
    case GgufFileType::kQ6_K:
      return "Q6_K";
    case GgufFileType::kQ5_K_M:
      return "Q5_K_M";
    case GgufFileType::kQ4_K_M:
      return "Q4_K_M";
    case GgufFileType::kQ4_K_S:
      return "Q4_K_S";
    case GgufFileType::kQ4_0:
      return "Q4_0";
    case GgufFileType::kMxfp4Moe:
      return "MXFP4_MOE";
  }
  return "F16";
}
std::optional<GgufFileType> parseGgufFileType(const std::string& name) {
  return parseEnum(kGgufFileTypes, ggufFileTypeName, name);
}

const char* cacheTypeName(CacheType c) {
  switch (c) {
    case CacheType::kF16:
      return "f16";
    case CacheType::kQ8_0:
      return "q8_0";
    case CacheType::kQ4_0:
      return "q4_0";
  }
  return "f16";
}
std::optional<CacheType> parseCacheType(const std::string& name) {
  return parseEnum(kCacheTypes, cacheTypeName, name);
}

const char* vllmVersionName(VllmVersion v) {
  switch (v) {
    case VllmVersion::kV0_19:
      return "0.19";
    case VllmVersion::kV0_11:
      return "0.11";
    case VllmVersion::kV0:
      return "v0";
  }
  return "0.19";
}
std::optional<VllmVersion> parseVllmVersion(const std::string& name) {
  return parseEnum(kVllmVersions, vllmVersionName, name);
}

const char* trtllmVersionName(TrtllmVersion v) {
  switch (v) {
    case TrtllmVersion::kV1:
      return "1.0";
    case TrtllmVersion::kV0_6:
      return "0.6";
  }
  return "1.0";
}
std::optional<TrtllmVersion> parseTrtllmVersion(const std::string& name) {
  return parseEnum(kTrtllmVersions, trtllmVersionName, name);
}

}  // namespace dlcost
