#pragma once
// The module path a torch.onnx export writes into its node names, as the dotted layer name
// the engine reads module spans from (graph/activation_memory.cpp, holdModuleInputs: eager
// PyTorch keeps a module's input alive until the module returns).

#include <string>

namespace dlcost {

/// The dotted module path and op of a node that torch.onnx (1.13 and later) named after its
/// scope, "/Mixed_5b/branch1x1/conv/Conv" -> "Mixed_5b.branch1x1.conv.Conv"; a child of an
/// nn.Sequential, which the exporter spells with its parent's name ("/mlp/mlp.0/MatMul"), is
/// the child's own name ("mlp.0.MatMul"). The name without its leading '/' where it is not of
/// that form (no leading '/', an empty part), so that no other name gains modules.
std::string torchModulePath(const std::string& node_name);

}  // namespace dlcost
