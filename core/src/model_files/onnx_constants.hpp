#pragma once
// Shape arithmetic of an ONNX graph evaluated at import: the small integer tensors torch.onnx
// computes sizes with (Shape -> Slice -> Concat -> Reshape, Unsqueeze, Gather, Where, ...),
// so that the Reshape, Expand and Resize nodes that read them see constants.

#include <optional>
#include <string>
#include <vector>

#include "dlcost/model_files/onnx.hpp"

namespace dlcost {

/// Thrown where a node of shape arithmetic is not evaluated: the reason.
struct ConstantNotFolded {
  std::string reason;
};

/// Whether foldConstant evaluates nodes of this op_type.
bool foldableOp(const std::string& op_type);

/// The output of `node` whose inputs are `inputs` (null for an omitted optional input), each
/// with its values (at most kOnnxMaxValues). Throws ConstantNotFolded.
OnnxTensor foldConstant(const OnnxNode& node, const std::vector<const OnnxTensor*>& inputs);

}  // namespace dlcost
