// The layer-graph model's "layers" expanded into one flat list of layers: "blocks" templates
// with "$parameter"s, "repeat", nested blocks and name scopes (docs/model-schema.md). Every
// error names the JSON pointer of the field as the user wrote it (or of the argument a
// parameter came from).
#include "graph/block_expander.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "dlcost/base/engine_limits.hpp"
#include "dlcost/base/error.hpp"
#include "graph/layer_json.hpp"
#include "types/json_reader.hpp"

namespace dlcost {

using nlohmann::json;

namespace {

/// A value given to a block parameter, and where it was written.
struct Arg {
  json value;
  std::string path;
};
using Args = std::map<std::string, Arg>;

struct BlockTemplate {
  const json* params = nullptr;  // object of parameter -> default (null: required)
  std::string params_path;
  const json* layers = nullptr;
  std::string layers_path;
};

struct Scope {
  std::map<std::string, int> names;  // local name -> layer index (or kModelInput)
  std::string prefix;                // prepended to local names
  const Scope* parent = nullptr;
};

bool isParameterRef(const json& v) {
  return v.is_string() && v.get_ref<const std::string&>().size() > 1 &&
         v.get_ref<const std::string&>()[0] == '$';
}

void collectNames(const json& v, std::set<std::string>& out, int depth = 0) {
  if (depth > 64) return;
  if (v.is_object()) {
    auto it = v.find("name");
    if (it != v.end() && it->is_string()) out.insert(it->get<std::string>());
    for (const auto& child : v) collectNames(child, out, depth + 1);
  } else if (v.is_array()) {
    for (const auto& child : v) collectNames(child, out, depth + 1);
  }
}

class Expander {
 public:
  Expander(LayerGraph& graph, const json& model, const std::string& path)
      : graph_(graph), path_(path) {
    collectNames(model, all_names_);
  }

  void readTemplates(const json& blocks, const std::string& path) {
    if (!blocks.is_object()) {
      throw InputError(
          ErrorCode::kType, path,
          std::string("must be an object of named blocks, not ") + jsonTypeName(blocks));
    }
    for (auto it = blocks.begin(); it != blocks.end(); ++it) {
      const std::string bpath = childPath(path, it.key());
      ObjectReader r(*it, bpath);
      r.rejectUnknown({"params", "layers", "comment"});
      BlockTemplate t;
      t.layers = &r.require("layers");
      t.layers_path = childPath(bpath, "layers");
      if (const json* p = r.find("params")) {
        if (!p->is_object()) {
          throw InputError(
              ErrorCode::kType, childPath(bpath, "params"),
              std::string("must be an object of parameter defaults, not ") + jsonTypeName(*p));
        }
        t.params = p;
        t.params_path = childPath(bpath, "params");
      }
      templates_[it.key()] = t;
    }
  }

  /// Expands `list` into the graph; returns the index of the last layer it added.
  int expandList(const json& list, const std::string& path, Scope& scope, int current,
                 const Args* args, int depth) {
    if (!list.is_array()) {
      throw InputError(ErrorCode::kType, path,
                       std::string("must be an array of layers, not ") + jsonTypeName(list));
    }
    if (list.empty()) throw InputError(ErrorCode::kValue, path, "must hold at least one layer");
    for (size_t idx = 0; idx < list.size(); ++idx) {
      const std::string ipath = childPath(path, idx);
      const json& raw = list[idx];
      if (!raw.is_object()) {
        throw InputError(ErrorCode::kType, ipath,
                         std::string("a layer must be an object, not ") + jsonTypeName(raw));
      }
      FieldOrigins origins;
      const json item = substitute(raw, ipath, args, origins);
      if (item.contains("type")) {
        current = addLayer(item, ipath, origins, scope, current, idx);
      } else if (item.contains("layers") || item.contains("block")) {
        current = addGroup(item, ipath, origins, scope, current, args, depth, idx);
      } else {
        throw InputError(
            ErrorCode::kMissingField, childPath(ipath, "type"),
            "required field 'type' is missing (or give 'layers' or 'block' for a group)");
      }
    }
    return current;
  }

 private:
  /// Replaces "$param" values (top-level fields and their array elements) by the block's
  /// arguments, recording where each substituted value was written.
  json substitute(const json& raw, const std::string& path, const Args* args,
                  FieldOrigins& origins) const {
    json out = raw;
    auto lookup = [&](const json& ref, const std::string& where) -> const Arg& {
      const std::string name = ref.get<std::string>().substr(1);
      if (!args) {
        throw InputError(ErrorCode::kValue, where,
                         "'" + ref.get<std::string>() +
                             "' names a block parameter, but this layer is not inside a block");
      }
      auto it = args->find(name);
      if (it == args->end()) {
        throw InputError(ErrorCode::kValue, where, "unknown block parameter '" + name + "'");
      }
      return it->second;
    };
    for (auto it = out.begin(); it != out.end(); ++it) {
      const std::string fpath = childPath(path, it.key());
      if (it.key() == "args") continue;  // substituted when the nested group reads them
      if (isParameterRef(*it)) {
        const Arg& a = lookup(*it, fpath);
        *it = a.value;
        origins[it.key()] = a.path;
      } else if (it->is_array()) {
        for (size_t i = 0; i < it->size(); ++i) {
          if (!isParameterRef((*it)[i])) continue;
          const Arg& a = lookup((*it)[i], childPath(fpath, i));
          (*it)[i] = a.value;
          origins[elementOriginKey(it.key(), i)] = a.path;
        }
      }
    }
    return out;
  }

  int resolve(const std::string& name, const Scope& scope, const std::string& path) const {
    for (const Scope* s = &scope; s; s = s->parent) {
      auto it = s->names.find(name);
      if (it != s->names.end()) return it->second;
    }
    auto it = global_.find(name);
    if (it != global_.end()) return it->second;
    if (all_names_.count(name)) {
      throw InputError(ErrorCode::kGraph, path,
                       "refers to '" + name +
                           "', which is not defined before this layer: a layer "
                           "can only read earlier layers (or 'input'), so cycles are not allowed");
    }
    throw InputError(ErrorCode::kGraph, path, "unknown layer '" + name + "'");
  }

  std::vector<int> readInputs(const ObjectReader& r, const Scope& scope) const {
    const json& v = r.require("inputs");
    const std::string path = r.pathOf("inputs");
    std::vector<int> out;
    if (v.is_string()) {
      out.push_back(resolve(v.get<std::string>(), scope, path));
      return out;
    }
    if (!v.is_array() || v.empty()) {
      throw InputError(ErrorCode::kType, path,
                       "must be a layer name or a non-empty array of names");
    }
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        throw InputError(ErrorCode::kType, r.pathOf("inputs", i),
                         std::string("must be a layer name, not ") + jsonTypeName(v[i]));
      }
      out.push_back(resolve(v[i].get<std::string>(), scope, r.pathOf("inputs", i)));
    }
    return out;
  }

  void claimName(Scope& scope, const std::string& local, const std::string& full, int index,
                 const std::string& path) {
    if (local == "input") {
      throw InputError(ErrorCode::kValue, path,
                       "'input' is reserved for the model (or block) input");
    }
    if (scope.names.count(local) || global_.count(full)) {
      throw InputError(ErrorCode::kValue, path, "duplicate layer name '" + full + "'");
    }
    scope.names[local] = index;
    global_[full] = index;
  }

  int addLayer(const json& item, const std::string& path, const FieldOrigins& origins, Scope& scope,
               int current, size_t idx) {
    if (static_cast<int64_t>(graph_.layers.size()) >= kMaxLayers) {
      throw InputError(ErrorCode::kTooLarge, path,
                       "the model expands to more than " + std::to_string(kMaxLayers) + " layers");
    }
    ObjectReader r(item, path, &origins);
    const json& type = r.require("type");
    if (!type.is_string()) {
      throw InputError(ErrorCode::kType, r.pathOf("type"),
                       std::string("must be a layer type name, not ") + jsonTypeName(type));
    }
    const std::string local = r.optionalString("name", std::to_string(idx));
    Layer layer;
    layer.type = type.get<std::string>();
    layer.name = scope.prefix + local;
    layer.path = path;
    layer.field_paths = origins;
    layer.spec = parseLayerSpec(layer.type, r);
    if (r.has("inputs")) {
      layer.inputs = readInputs(r, scope);
    } else {
      layer.inputs = {current};
    }
    const int arity = inputArity(layer.spec);
    if (arity == 1 && layer.inputs.size() != 1) {
      throw InputError(
          ErrorCode::kValue, r.pathOf("inputs"),
          layer.type + " takes exactly one input, not " + std::to_string(layer.inputs.size()));
    }
    if (arity == 2 && layer.inputs.size() != 2) {
      throw InputError(
          ErrorCode::kValue, r.pathOf("inputs"),
          layer.type + " takes exactly two inputs, not " + std::to_string(layer.inputs.size()));
    }
    if (arity == 0 && layer.inputs.size() < 2) {
      throw InputError(ErrorCode::kValue, r.pathOf("inputs"),
                       layer.type + " needs two or more inputs: name them in 'inputs'");
    }
    const int index = static_cast<int>(graph_.layers.size());
    claimName(scope, local, layer.name, index, r.pathOf("name"));
    graph_.layers.push_back(std::move(layer));
    return index;
  }

  int addGroup(const json& item, const std::string& path, const FieldOrigins& origins, Scope& scope,
               int current, const Args* outer_args, int depth, size_t idx) {
    ObjectReader r(item, path, &origins);
    r.rejectUnknown(
        {"name", "repeat", "first_index", "layers", "block", "args", "inputs", "comment"});
    if (depth >= kMaxBlockDepth) {
      throw InputError(ErrorCode::kTooLarge, path,
                       "blocks nest deeper than " + std::to_string(kMaxBlockDepth) +
                           " levels (does a block use itself?)");
    }
    if (r.has("layers") == r.has("block")) {
      throw InputError(ErrorCode::kValue, path, "a group has either 'layers' or 'block', not both");
    }
    const int64_t repeat = r.optionalInt("repeat", 1, 1, kMaxLayers);
    // Copies are numbered from first_index (default 0), so that a stage whose first block
    // differs (a stride or a projection) can be written as that block, named "layer2.0",
    // and a repeat of the others from 1, giving torchvision's names layer2.1, layer2.2, ...
    const bool numbered = repeat > 1 || r.has("first_index");
    const int64_t first_index = r.optionalInt("first_index", 0, 0, kMaxLayers);
    const std::string local = r.optionalString("name", std::to_string(idx));
    int in = current;
    if (r.has("inputs")) {
      std::vector<int> ins = readInputs(r, scope);
      if (ins.size() != 1) {
        throw InputError(ErrorCode::kValue, r.pathOf("inputs"), "a group takes exactly one input");
      }
      in = ins[0];
    }

    const json* layers = nullptr;
    std::string layers_path;
    Args args;
    const Args* child_args = outer_args;
    if (r.has("block")) {
      const std::string name = r.requiredString("block");
      auto t = templates_.find(name);
      if (t == templates_.end()) {
        throw InputError(ErrorCode::kValue, r.pathOf("block"),
                         "unknown block '" + name + "' (define it under 'blocks')");
      }
      layers = t->second.layers;
      layers_path = t->second.layers_path;
      args = bindArgs(t->second, r, outer_args);
      child_args = &args;
    } else {
      if (r.has("args")) {
        throw InputError(ErrorCode::kUnknownField, r.pathOf("args"), "'args' goes with 'block'");
      }
      layers = &r.require("layers");
      layers_path = r.pathOf("layers");
    }

    for (int64_t k = 0; k < repeat; ++k) {
      Scope child;
      child.parent = &scope;
      child.prefix =
          scope.prefix + local + "." + (numbered ? std::to_string(first_index + k) + "." : "");
      child.names["input"] = in;
      in = expandList(*layers, layers_path, child, in, child_args, depth + 1);
    }
    if (local == "input" || scope.names.count(local)) {
      throw InputError(ErrorCode::kValue, r.pathOf("name"),
                       "duplicate layer name '" + scope.prefix + local + "'");
    }
    scope.names[local] = in;
    return in;
  }

  Args bindArgs(const BlockTemplate& t, const ObjectReader& r, const Args* outer) const {
    Args args;
    if (t.params) {
      for (auto it = t.params->begin(); it != t.params->end(); ++it) {
        if (!it->is_null()) args[it.key()] = Arg{*it, childPath(t.params_path, it.key())};
      }
    }
    if (const json* given = r.find("args")) {
      const std::string apath = r.pathOf("args");
      if (!given->is_object()) {
        throw InputError(
            ErrorCode::kType, apath,
            std::string("must be an object of block arguments, not ") + jsonTypeName(*given));
      }
      for (auto it = given->begin(); it != given->end(); ++it) {
        const std::string vpath = childPath(apath, it.key());
        if (!t.params || !t.params->contains(it.key())) {
          throw InputError(ErrorCode::kUnknownField, vpath,
                           "block has no parameter '" + it.key() + "'");
        }
        if (isParameterRef(*it)) {
          const std::string name = it->get<std::string>().substr(1);
          if (!outer || !outer->count(name)) {
            throw InputError(ErrorCode::kValue, vpath, "unknown block parameter '" + name + "'");
          }
          args[it.key()] = outer->at(name);
        } else {
          args[it.key()] = Arg{*it, vpath};
        }
      }
    }
    if (t.params) {
      for (auto it = t.params->begin(); it != t.params->end(); ++it) {
        if (!args.count(it.key())) {
          throw InputError(ErrorCode::kMissingField, childPath(r.pathOf("args"), it.key()),
                           "block parameter '" + it.key() + "' has no default and is not given");
        }
      }
    }
    return args;
  }

  LayerGraph& graph_;
  std::string path_;
  std::map<std::string, BlockTemplate> templates_;
  std::set<std::string> all_names_;
  std::map<std::string, int> global_;
};

Shape readShape(const json& v, const std::string& path) {
  if (!v.is_array() || v.empty() || v.size() > 8) {
    throw InputError(ErrorCode::kType, path,
                     "must be the shape of one sample: an array of 1 to 8 positive integers, e.g. "
                     "[3, 224, 224]");
  }
  Shape s;
  for (size_t i = 0; i < v.size(); ++i)
    s.push_back(readInt(v[i], childPath(path, i), 1, kMaxDimension));
  return s;
}

}  // namespace

LayerGraph expandLayerGraph(const json& m, const std::string& path) {
  ObjectReader r(m, path);
  LayerGraph graph;
  graph.input = readShape(r.require("input"), r.pathOf("input"));
  Expander expander(graph, m, path);
  if (const json* b = r.find("blocks")) expander.readTemplates(*b, r.pathOf("blocks"));
  Scope top;
  top.names["input"] = kModelInput;
  expander.expandList(r.require("layers"), r.pathOf("layers"), top, kModelInput, nullptr, 0);
  for (const Layer& l : graph.layers) {
    bool reads_input = false;
    for (int i : l.inputs) reads_input = reads_input || i == kModelInput;
    if (reads_input && std::holds_alternative<Embedding>(l.spec))
      graph.input_kind = InputKind::kTokenIds;
  }
  return graph;
}

}  // namespace dlcost
