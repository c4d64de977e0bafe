#pragma once
// What a vision-language model's tower and projector cost per image: MACs, the bytes
// training keeps for backward, the working set of inference.

#include "dlcost/types/transformer.hpp"
#include "dlcost/types/workload.hpp"

namespace dlcost {

/// The tower's encoder layers as a Transformer (kind kEncoder, no vocabulary), so that the
/// layer formulas of the language model (attention widths, saved activations) serve both.
Transformer visionEncoder(const VisionTower& v);

/// The tower's parameters by part: embeddings (patch convolution, class token, positions,
/// pre-norm), one encoder layer, and the tail (post-norm, SigLIP's pooling head).
struct VisionParts {
  int64_t embeddings = 0;
  int64_t layer = 0;
  int64_t tail = 0;
};
VisionParts visionParamParts(const VisionTower& v);

/// One image through the tower and the projector, at the model's image size.
struct VisionCosts {
  int64_t passes = 0;      ///< tower passes per image
  int64_t tokens = 0;      ///< tokens of one pass (patches, class token)
  int64_t embed_macs = 0;  ///< patch convolution, per image
  int64_t layer_macs = 0;  ///< one encoder layer, per image (all passes)
  int64_t core_macs = 0;   ///< of the layers' MACs, attention QK^T and AV, per image
  int64_t head_macs = 0;   ///< SigLIP's attention-pooling head, per image
  int64_t projector_macs = 0;
  int64_t macs = 0;  ///< everything above, per image (forward)
  /// Training: bytes autograd keeps per image for the backward: the pixels the patch
  /// convolution reads, each layer's saved tensors (the language model's per-token rule,
  /// layerActivationBytesPerToken, over one pass's tokens), the norms' and the projector's
  /// inputs.
  int64_t saved_bytes = 0;
  int64_t layer_saved_bytes = 0;      ///< of saved_bytes, one layer's
  int64_t embed_saved_bytes = 0;      ///< of saved_bytes, the pixels and the pre-norm's input
  int64_t tail_saved_bytes = 0;       ///< of saved_bytes, the post-norm's input
  int64_t projector_saved_bytes = 0;  ///< of saved_bytes, the projector's inputs
  /// Inference: the working set of the widest layer over every pass of one image (the
  /// residual stream plus the larger of attention's and the MLP's tensors).
  int64_t peak_bytes = 0;
};

VisionCosts visionCosts(const VisionTower& v, const Workload& w);

}  // namespace dlcost
