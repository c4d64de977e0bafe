#pragma once
// The layer kinds of schema version 1 and their hyper-parameters, as plain values.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "dlcost/types/shape.hpp"

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

/// 2-D transposed convolution (nn.ConvTranspose2d): each input pixel scatters a kernel-sized
/// patch into the output, `stride` apart.
struct ConvTranspose2d {
  int64_t out_channels = 0;
  Pair2 kernel;
  Pair2 stride{1, 1};
  Pair2 padding{0, 0};
  Pair2 output_padding{0, 0};
  Pair2 dilation{1, 1};
  int64_t groups = 1;
  bool bias = true;
  int64_t in_channels = 0;  ///< 0: taken from the input shape; else must match it
};

enum class UpsampleMode { kNearest, kBilinear, kBicubic };

/// nn.Upsample / F.interpolate of H and W: to `size`, or by `scale` (output floor(in x scale)).
/// A scale below 1 shrinks (the same op).
struct Upsample {
  UpsampleMode mode = UpsampleMode::kNearest;
  Pair2 size{0, 0};  ///< {0, 0}: use the scale factors
  double scale_h = 0;
  double scale_w = 0;
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

/// nn.InstanceNorm2d (track_running_stats false, its default): each sample's channels
/// normalised over H and W; `affine` adds a weight and a bias per channel.
struct InstanceNorm2d {
  bool affine = false;
};

/// nn.GroupNorm: the C channels of a sample in `groups` groups, each normalised over its
/// channels and positions; `affine` adds a weight and a bias per channel.
struct GroupNorm {
  int64_t groups = 1;
  bool affine = true;
};

/// nn.PixelShuffle (`factor` r: [C r^2, H, W] -> [C, H r, W r]) or, `unshuffle`,
/// nn.PixelUnshuffle ([C, H, W] -> [C r^2, H / r, W / r]): the same values in a new order.
struct PixelShuffle {
  int64_t factor = 2;
  bool unshuffle = false;
};

enum class PadMode { kConstant, kReflect, kReplicate };

/// F.pad of H and W (nn.ZeroPad2d, nn.ConstantPad2d, nn.ReflectionPad2d, nn.ReplicationPad2d),
/// in PyTorch's order: left, right, top, bottom.
struct Pad2d {
  PadMode mode = PadMode::kConstant;
  int64_t left = 0, right = 0, top = 0, bottom = 0;
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
  kHardsigmoid,
  kLeakyRelu
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

/// A tensor that is not an activation, as an operand of add, multiply or concat: learned
/// (an nn.Parameter: a position embedding, a class token, a layer scale; its values count as
/// parameters) or fixed (a constant or buffer; no parameters). Its shape is per sample
/// (broadcast over the batch); empty `shape` with `present` is a scalar.
struct TensorOperand {
  bool present = false;
  bool learned = false;
  Shape shape;
};

/// Element-wise sum of two or more inputs (residual connections), broadcasting; or of one
/// input and a tensor operand.
struct Add {
  /// Writes the sum into the first input (PyTorch's `out += identity`), allocating nothing;
  /// the first input must then already have the result's shape.
  bool inplace = false;
  TensorOperand operand;
};
/// Element-wise product of two or more inputs (squeeze-excite scaling), broadcasting; or of
/// one input and a tensor operand (a division by a constant is a product by its inverse).
struct Multiply {
  TensorOperand operand;
};
/// Concatenation along `axis` of the sample shape (0 = channels of [C, H, W]); a tensor
/// operand (a class token) comes first.
struct Concat {
  int64_t axis = 0;
  TensorOperand operand;
};

/// Tensor.permute of the sample dimensions (the batch stays first): a view.
struct Permute {
  std::vector<int64_t> dims;
};

/// Tensor.reshape of the sample dimensions (one may be -1): a view where the input's
/// memory allows it, else a copy (PyTorch's rule, aten's computeStride).
struct Reshape {
  Shape shape;
};

/// torch.matmul of two computed tensors (attention's Q Kt and P V), batched over the
/// leading dimensions, which broadcast.
struct MatMul {};

/// Tensor.select(dim, index) of the sample dimensions (x[:, 0]): a view without `dim`.
struct Select {
  int64_t dim = 0;
  int64_t index = 0;
};

/// Tensor.narrow(dim, start, length) of a sample dimension (x[:, a:b]; the pieces of
/// torch.chunk and torch.split): a view of `length` entries from `start`.
struct Narrow {
  int64_t dim = 0;
  int64_t start = 0;
  int64_t length = 1;
};

/// torch.mean over sample dimensions `dims` (x.mean([2, 3]) is dims {1, 2}), which stay as
/// size 1 when `keepdim`. No parameters; backward keeps only sizes.
struct Mean {
  std::vector<int64_t> dims;
  bool keepdim = false;
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

using LayerSpec = std::variant<Conv2d, Linear, Pool2d, AdaptivePool2d, BatchNorm2d, LayerNorm,
                               Activation, Dropout, Flatten, Add, Multiply, Concat, Embedding,
                               Softmax, ConvTranspose2d, Upsample, Permute, Reshape, MatMul, Select,
                               InstanceNorm2d, PixelShuffle, Pad2d, GroupNorm, Narrow, Mean>;

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
