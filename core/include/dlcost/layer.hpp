#pragma once
// The layer kinds of schema version 1 and their hyper-parameters, as plain values.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace dlcost {

/// A height/width pair (kernel, stride, padding, dilation).
struct Pair2 {
  int64_t h = 1;
  int64_t w = 1;
};

/// 2-D convolution (PyTorch nn.Conv2d). Depthwise is groups == in_channels.
struct Conv2d {
  int64_t out_channels = 0;
  Pair2 kernel;
  Pair2 stride{1, 1};
  Pair2 padding{0, 0};
  bool padding_same = false;  ///< PyTorch padding="same" (stride 1 only)
  Pair2 dilation{1, 1};
  int64_t groups = 1;
  bool bias = true;
  int64_t in_channels = 0;  ///< 0: taken from the input shape; else must match it
};

/// Fully connected layer over the last dimension (nn.Linear).
struct Linear {
  int64_t out_features = 0;
  bool bias = true;
  int64_t in_features = 0;  ///< 0: taken from the input shape; else must match it
};

enum class PoolKind { kMax, kAvg };

/// nn.MaxPool2d / nn.AvgPool2d.
struct Pool2d {
  PoolKind kind = PoolKind::kMax;
  Pair2 kernel;
  Pair2 stride;  ///< defaults to the kernel
  Pair2 padding{0, 0};
  Pair2 dilation{1, 1};  ///< max pooling only
  bool ceil_mode = false;
};

/// nn.AdaptiveAvgPool2d / nn.AdaptiveMaxPool2d; global pooling is output 1x1.
struct AdaptivePool2d {
  PoolKind kind = PoolKind::kAvg;
  Pair2 output{1, 1};
};

/// nn.BatchNorm2d: per-channel weight and bias (parameters), running mean and variance plus
/// a num_batches_tracked counter (buffers: memory, not parameters).
struct BatchNorm2d {
  bool affine = true;
  bool track_running_stats = true;
};

/// nn.LayerNorm over the last `normalized_dims` dimensions.
struct LayerNorm {
  int64_t normalized_dims = 1;
  bool elementwise_affine = true;
  bool bias = true;
};

enum class ActivationKind {
  kRelu,
  kRelu6,
  kGelu,
  kSilu,
  kSigmoid,
  kTanh,
  kHardswish,
  kHardsigmoid
};

/// Element-wise activation; `inplace` overwrites its input (saves one tensor).
struct Activation {
  ActivationKind kind = ActivationKind::kRelu;
  bool inplace = false;
};

/// nn.Dropout (training keeps a 1-byte mask per element; inference is the identity).
struct Dropout {
  double p = 0.5;
  bool inplace = false;
};

/// torch.flatten over sample dimensions [start_dim, end_dim] (negative counts from the end).
struct Flatten {
  int64_t start_dim = 0;
  int64_t end_dim = -1;
};

/// Element-wise sum of two or more inputs (residual connections), broadcasting.
struct Add {
  /// Writes the sum into the first input (PyTorch's `out += identity`), allocating nothing;
  /// the first input must then already have the result's shape.
  bool inplace = false;
};
/// Element-wise product of two or more inputs (squeeze-excite scaling), broadcasting.
struct Multiply {};
/// Concatenation along `axis` of the sample shape (0 = channels of [C, H, W]).
struct Concat {
  int64_t axis = 0;
};

/// nn.Embedding: the input holds token ids; the output appends `embedding_dim`.
struct Embedding {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
};

/// Softmax along `dim` of the sample shape.
struct Softmax {
  int64_t dim = -1;
};

using LayerSpec =
    std::variant<Conv2d, Linear, Pool2d, AdaptivePool2d, BatchNorm2d, LayerNorm, Activation,
                 Dropout, Flatten, Add, Multiply, Concat, Embedding, Softmax>;

/// Index of the model input in Layer::inputs.
constexpr int kModelInput = -1;

/// One layer of an expanded model: repeats and blocks are already unrolled.
struct Layer {
  std::string name;         ///< unique, e.g. "layer1.0.conv1"
  std::string type;         ///< the schema's type name, e.g. "conv2d"
  std::string path;         ///< JSON pointer of the layer object in the input document
  std::vector<int> inputs;  ///< indices of earlier layers, or kModelInput
  LayerSpec spec;
  /// Fields whose value a block argument supplied, mapped to the argument's JSON pointer.
  std::map<std::string, std::string> field_paths;
};

/// JSON pointer of one field of a layer, following block arguments to where they were given.
std::string fieldPath(const Layer& layer, const std::string& field);

}  // namespace dlcost
