#include "dlcost/types/workload.hpp"

#include "dlcost/base/enum_names.hpp"

namespace dlcost {

const char* modeName(Mode mode) {
  return mode == Mode::kTrain ? "train" : "infer";
}

std::optional<Mode> parseMode(const std::string& name) {
  if (name == "train") return Mode::kTrain;
  if (name == "infer" || name == "inference") return Mode::kInfer;
  return std::nullopt;
}

const char* optimizerName(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return "sgd";
    case Optimizer::kMomentum:
      return "momentum";
    case Optimizer::kAdam:
      return "adam";
    case Optimizer::kAdamW:
      return "adamw";
    case Optimizer::kRmsprop:
      return "rmsprop";
    case Optimizer::kAdagrad:
      return "adagrad";
    case Optimizer::kAdam8bit:
      return "adam8bit";
  }
  return "sgd";
}

std::optional<Optimizer> parseOptimizer(const std::string& name) {
  return parseEnum(kOptimizers, optimizerName, name);
}

int optimizerStateCount(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 0;
    case Optimizer::kMomentum:
      return 1;
    case Optimizer::kAdam:
      return 2;
    case Optimizer::kAdamW:
      return 2;
    case Optimizer::kRmsprop:
      return 1;
    case Optimizer::kAdagrad:
      return 1;
    case Optimizer::kAdam8bit:
      return 2;
  }
  return 0;
}

int optimizerStateBits(Optimizer optimizer) {
  return optimizer == Optimizer::kAdam8bit ? 8 : 0;
}

const char* zeroGradName(ZeroGrad zero_grad) {
  return zero_grad == ZeroGrad::kZero ? "zero" : "set_to_none";
}

std::optional<ZeroGrad> parseZeroGrad(const std::string& name) {
  return parseEnum(kZeroGrads, zeroGradName, name);
}

const char* optimizerImplName(OptimizerImpl impl) {
  switch (impl) {
    case OptimizerImpl::kForeach:
      return "foreach";
    case OptimizerImpl::kForLoop:
      return "for_loop";
    case OptimizerImpl::kFused:
      return "fused";
  }
  return "foreach";
}

std::optional<OptimizerImpl> parseOptimizerImpl(const std::string& name) {
  return parseEnum(kOptimizerImpls, optimizerImplName, name);
}

bool fusedAttention(const Workload& w) {
  switch (w.serving.engine) {
    case Engine::kVllm:
    case Engine::kSglang:
    case Engine::kTrtllm:
      return true;
    case Engine::kNone:
    case Engine::kHf:
    case Engine::kLlamaCpp:
      break;
  }
  return w.attention == AttentionImpl::kFlash;
}

const char* attentionName(AttentionImpl attention) {
  return attention == AttentionImpl::kEager ? "eager" : "flash";
}

std::optional<AttentionImpl> parseAttention(const std::string& name) {
  if (name == "eager") return AttentionImpl::kEager;
  if (name == "flash") return AttentionImpl::kFlash;
  return std::nullopt;
}

const char* recomputeName(Recompute recompute) {
  switch (recompute) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "none";
}

std::optional<Recompute> parseRecompute(const std::string& name) {
  return parseEnum(kRecomputes, recomputeName, name);
}

const char* finetuneName(Finetune finetune) {
  switch (finetune) {
    case Finetune::kNone:
      return "none";
    case Finetune::kFull:
      return "full";
    case Finetune::kLora:
      return "lora";
    case Finetune::kQlora:
      return "qlora";
  }
  return "none";
}

std::optional<Finetune> parseFinetune(const std::string& name) {
  return parseEnum(kFinetunes, finetuneName, name);
}

}  // namespace dlcost
