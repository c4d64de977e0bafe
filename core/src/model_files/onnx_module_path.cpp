// Module paths from torch.onnx node names (onnx_module_path.hpp).
#include "model_files/onnx_module_path.hpp"

#include <vector>

namespace dlcost {

std::string torchModulePath(const std::string& node_name) {
  std::string plain = node_name;
  while (!plain.empty() && plain[0] == '/') plain.erase(0, 1);
  if (node_name.empty() || node_name[0] != '/') return plain;
  std::vector<std::string> parts;
  size_t from = 1;
  while (from <= node_name.size()) {
    size_t slash = node_name.find('/', from);
    if (slash == std::string::npos) slash = node_name.size();
    parts.push_back(node_name.substr(from, slash - from));
    if (parts.back().empty()) return plain;
    from = slash + 1;
  }
  std::string path = parts[0];
  for (size_t k = 1; k < parts.size(); ++k) {
    const std::string& parent = parts[k - 1];
    std::string part = parts[k];
    if (part.size() > parent.size() + 1 && part.compare(0, parent.size(), parent) == 0 &&
        part[parent.size()] == '.') {
      part.erase(0, parent.size() + 1);  // nn.Sequential's child "mlp.0" under "mlp"
    }
    path += "." + part;
  }
  return path;
}

}  // namespace dlcost
