#include "graph/activation_memory.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>

#include "dlcost/base/checked.hpp"

namespace dlcost {

namespace {

/// Sum of interval contributions over discrete time steps, then its maximum.
class Timeline {
 public:
  explicit Timeline(size_t steps) : delta_(steps + 1, 0) {}
  void add(size_t from, size_t to, int64_t bytes) {
    if (bytes == 0 || from > to) return;
    delta_[from] = checkedAdd(delta_[from], bytes);
    delta_[to + 1] = checkedSub(delta_[to + 1], bytes);
  }
  /// Live bytes at each step.
  std::vector<int64_t> series() const {
    std::vector<int64_t> out(delta_.size() - 1);
    int64_t live = 0;
    for (size_t t = 0; t < out.size(); ++t) out[t] = live = checkedAdd(live, delta_[t]);
    return out;
  }

 private:
  std::vector<int64_t> delta_;
};

/// The layers reading each tensor, in forward order (a layer reading a tensor twice appears
/// twice), all in one array: tensor t's readers are at[start[t]] to at[start[t + 1]].
class Readers {
 public:
  struct Range {
    const size_t* first;
    const size_t* last;
    const size_t* begin() const { return first; }
    const size_t* end() const { return last; }
    bool empty() const { return first == last; }
    size_t size() const { return static_cast<size_t>(last - first); }
    size_t back() const { return last[-1]; }
    size_t operator[](size_t k) const { return first[k]; }
  };
  Readers(const LayerGraph& graph, size_t tensors) : start_(tensors + 1, 0) {
    for (const Layer& layer : graph.layers)
      for (int in : layer.inputs) ++start_[static_cast<size_t>(in + 2)];  // counts at t + 1
    for (size_t t = 1; t <= tensors; ++t) start_[t] += start_[t - 1];
    at_ = std::vector<size_t>(start_.back());
    std::vector<size_t> next(start_.begin(), start_.end() - 1);
    for (size_t i = 0; i < graph.layers.size(); ++i)
      for (int in : graph.layers[i].inputs) at_[next[static_cast<size_t>(in + 1)]++] = i;
  }
  Range of(size_t t) const { return {at_.data() + start_[t], at_.data() + start_[t + 1]}; }

 private:
  std::vector<size_t> start_, at_;
};

/// Eager PyTorch keeps a module's input alive until the module returns: the caller's frame
/// still refers to it (nn.Sequential.forward's `input = module(input)` loop variable,
/// torchvision ResNet's `identity = x`, `x = self.layer1(x)` in the model's forward). A
/// layer's dotted name is its module path (the names of `named_modules()`, as the presets
/// write them), so each dotted prefix is a module spanning its first to its last layer;
/// every tensor read inside it but made before it lives at least to the module's last step.
void holdModuleInputs(const LayerGraph& graph, const std::vector<size_t>& storage,
                      std::vector<size_t>& last_use) {
  struct Span {
    size_t first, last;
  };
  // Keyed by views of the layers' names, which outlive this function.
  std::map<std::string_view, Span> modules;
  // Layer i's modules, outermost first: spans[begin[i]] to spans[begin[i + 1]].
  const size_t n = graph.layers.size();
  std::vector<Span*> spans;
  spans.reserve(4 * n);  // a preset's layer is in up to four modules
  std::vector<size_t> begin(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view name = graph.layers[i].name;
    begin[i] = spans.size();
    // Neighbouring layers mostly share their modules: where the previous layer's name starts
    // with the same path up to a dot, its module at that depth is this one's (no lookup).
    size_t shared = 0;
    if (i > 0) {
      const std::string_view prev = graph.layers[i - 1].name;
      const size_t most = std::min(prev.size(), name.size());
      while (shared < most && prev[shared] == name[shared]) ++shared;
    }
    size_t depth = 0;
    for (size_t dot = 0; dot < name.size(); ++dot) {
      if (name[dot] != '.') continue;
      Span* span = dot < shared ? spans[begin[i - 1] + depth]
                                : &modules.emplace(name.substr(0, dot), Span{i, i}).first->second;
      span->last = i;
      spans.push_back(span);
      ++depth;
    }
  }
  begin[n] = spans.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = begin[i]; j < begin[i + 1]; ++j) {
      const Span& m = *spans[j];
      for (int in : graph.layers[i].inputs) {
        const size_t t = static_cast<size_t>(in + 1);
        if (t <= m.first) last_use[storage[t]] = std::max(last_use[storage[t]], m.last + 1);
      }
    }
  }
}

// simulateActivations runs in stages, each a function below: where each tensor lives and
// when it is last read (tensorLives), then the inference timeline (simulateInference) or the
// training one: what backward keeps (keepSaved), and the gradients' buffers (addGradients).
// Tensor 0 is the model input, tensor i + 1 layer i's output; step i + 1 makes layer i's
// output, and training appends the backward steps, layer n-1 first.

/// The step at which backward runs layer `layer` of `n`.
size_t backwardStep(size_t n, size_t layer) {
  return n + 1 + (n - 1 - layer);
}

size_t tensorOf(int input) {
  return static_cast<size_t>(input + 1);
}

/// Each tensor's memory and how long it is read.
struct TensorLives {
  std::vector<size_t> storage;   ///< the tensor whose memory each one lives in
  std::vector<int64_t> bytes;    ///< per sample, of each tensor with its own memory
  std::vector<size_t> last_use;  ///< per storage: the last step that reads it
};

/// Memory each tensor lives in (its own, or its input's for in-place ops and views) and the
/// last step that reads it.
TensorLives tensorLives(const LayerGraph& graph, const std::vector<LayerAnalysis>& layers,
                        const std::vector<int64_t>& elements, const Readers& readers, size_t steps,
                        const std::vector<int64_t>& value_bytes) {
  const size_t n = graph.layers.size();
  const size_t tensors = n + 1;
  TensorLives lives;
  std::vector<size_t>& storage = lives.storage;
  storage.assign(tensors, 0);
  lives.bytes.assign(tensors, 0);
  lives.bytes[0] = checkedMul(elements[0], value_bytes[0]);
  for (size_t i = 0; i < n; ++i) {
    const size_t t = i + 1;
    if (layers[i].aliases_input) {
      storage[t] = storage[tensorOf(graph.layers[i].inputs[0])];
    } else {
      storage[t] = t;
      lives.bytes[t] = checkedMul(elements[t], value_bytes[t]);
    }
  }
  std::vector<size_t>& last_use = lives.last_use;
  last_use.assign(tensors, 0);
  for (size_t t = 0; t < tensors; ++t) {
    for (size_t i : readers.of(t)) last_use[storage[t]] = std::max(last_use[storage[t]], i + 1);
  }
  // Outputs (the last layer, and any tensor no layer reads, such as an auxiliary head) are
  // kept to the end of the forward pass, where the loss reads them.
  for (size_t t = 1; t < tensors; ++t) {
    if (t == n || readers.of(t).empty()) last_use[storage[t]] = n;
  }
  // The caller holds the model input for the whole step (`out = model(x)`; the training
  // loop's batch), and every module's input until the module returns.
  last_use[storage[0]] = steps - 1;
  holdModuleInputs(graph, storage, last_use);
  return lives;
}

/// Inference: each tensor lives from its step to its last read; nothing is kept.
ActivationMemory simulateInference(const std::vector<LayerAnalysis>& layers,
                                   const TensorLives& lives, Timeline& timeline) {
  const size_t n = lives.storage.size() - 1;  // layers
  ActivationMemory out;
  out.row_bytes_per_sample.assign(n + 1, 0);
  for (size_t s = 0; s <= n; ++s) {
    if (lives.storage[s] != s) continue;
    const size_t created = s;  // tensor index == its creation step
    timeline.add(created, std::max(lives.last_use[s], created), lives.bytes[s]);
    out.row_bytes_per_sample[s] = lives.bytes[s];
  }
  for (size_t i = 0; i < n; ++i) timeline.add(i + 1, i + 1, layers[i].scratch_bytes_per_sample);
  out.live_per_sample = timeline.series();
  out.kept_per_sample = *std::max_element(out.live_per_sample.begin(), out.live_per_sample.end());
  return out;
}

/// A tensor needs a gradient if it depends on a trainable parameter (the model input never
/// does). A layer whose output needs none records no backward node and saves nothing
/// (autograd builds a node only where an input requires grad: a padding or pooling of the
/// model input keeps nothing, a convolution of it keeps it for its weight's gradient).
std::vector<char> tensorsNeedingGrad(const LayerGraph& graph,
                                     const std::vector<LayerAnalysis>& layers) {
  const size_t n = graph.layers.size();
  std::vector<char> needs_grad(n + 1, false);  // bools, one byte each (read per input)
  for (size_t i = 0; i < n; ++i) {
    bool any = layers[i].params > 0;
    for (int in : graph.layers[i].inputs) any = any || needs_grad[tensorOf(in)];
    needs_grad[i + 1] = any;
  }
  return needs_grad;
}

/// Training's forward: what each layer saves for backward, kept until the backward step of
/// the earliest layer that saved it; the rest lives to its last read. Returns the bytes
/// kept per sample, and fills `out`'s rows and per-batch bytes.
int64_t keepSaved(const LayerGraph& graph, const std::vector<LayerAnalysis>& layers,
                  const TensorLives& lives, const std::vector<char>& needs_grad, Timeline& timeline,
                  Timeline& saved, ActivationMemory& out) {
  const size_t n = graph.layers.size();
  const std::vector<size_t>& storage = lives.storage;
  constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<size_t> first_saver(n + 1, kNone);
  auto markSaved = [&](size_t s, size_t layer) {
    first_saver[s] = first_saver[s] == kNone ? layer : std::min(first_saver[s], layer);
  };
  int64_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    const SavedForBackward& sv = layers[i].saved;
    if (!needs_grad[i + 1]) {
      // What it would keep only for backward (max pooling's indices, a dropout mask) it
      // still computes, and frees when it returns, as at inference.
      timeline.add(i + 1, i + 1, sv.extra_bytes_per_sample);
      continue;
    }
    for (size_t k = 0; k < graph.layers[i].inputs.size(); ++k) {
      if (sv.inputs[k]) markSaved(storage[tensorOf(graph.layers[i].inputs[k])], i);
    }
    if (sv.output) markSaved(storage[i + 1], i);
    if (sv.extra_bytes_per_sample) {
      timeline.add(i + 1, backwardStep(n, i), sv.extra_bytes_per_sample);
      saved.add(i + 1, backwardStep(n, i), sv.extra_bytes_per_sample);
      kept = checkedAdd(kept, sv.extra_bytes_per_sample);
      out.row_bytes_per_sample[i + 1] =
          checkedAdd(out.row_bytes_per_sample[i + 1], sv.extra_bytes_per_sample);
    }
    out.fixed_bytes = checkedAdd(out.fixed_bytes, sv.extra_fixed_bytes);
  }
  for (size_t s = 0; s <= n; ++s) {
    if (storage[s] != s) continue;
    if (first_saver[s] != kNone) {
      timeline.add(s, backwardStep(n, first_saver[s]), lives.bytes[s]);
      saved.add(s, backwardStep(n, first_saver[s]), lives.bytes[s]);
      kept = checkedAdd(kept, lives.bytes[s]);
      out.row_bytes_per_sample[s] = checkedAdd(out.row_bytes_per_sample[s], lives.bytes[s]);
    } else {
      timeline.add(s, std::max(lives.last_use[s], s), lives.bytes[s]);
    }
  }
  return kept;
}

// Gradients: for the tensors that need one. Backward visits a tensor's readers in reverse order;
// the first to run (its last reader; the loss, for an output) creates the gradient buffer, which
// is freed after the backward of the tensor's producer. Where that reader passes its output
// gradient through (add of equal shapes, concat, flatten), the buffer is that gradient's memory,
// kept alive until its last user is done. Every other reader's contribution is computed
// into a temporary tensor that lives during its backward step and is then accumulated in
// place, as PyTorch 2.x's InputBuffer does when it holds the sum's last reference
// (torch/csrc/autograd/input_buffer.cpp, accumulate: `buffer[pos] = old_var.add_(var)` under
// can_accumulate_inplace; 1.13 summed out of place, docs/accuracy.md); pass-through readers
// add without a temporary.

/// Whether layer `reader` hands `t` its output gradient without new memory: it reads t in
/// exactly one input slot, and that slot passes the gradient through.
bool passesThrough(const LayerGraph& graph, const std::vector<LayerAnalysis>& layers, size_t reader,
                   size_t t) {
  const std::vector<int>& ins = graph.layers[reader].inputs;
  int slots = 0;
  bool passes = false;
  for (size_t k = 0; k < ins.size(); ++k) {
    if (tensorOf(ins[k]) != t) continue;
    ++slots;
    passes = layers[reader].passes_gradient[k];
  }
  return slots == 1 && passes;
}

/// Adds the gradients' buffers and temporaries (see above) to the training timeline.
void addGradients(const LayerGraph& graph, const std::vector<LayerAnalysis>& layers,
                  const std::vector<int64_t>& elements, const std::vector<int64_t>& value_bytes,
                  const Readers& readers, const std::vector<char>& needs_grad, Timeline& timeline) {
  const size_t n = graph.layers.size();
  const size_t tensors = n + 1;
  std::vector<size_t> grad_owner(tensors), grad_born(tensors, 0), grad_dies(tensors, 0);
  for (size_t t = n; t >= 1; --t) {  // outputs before inputs: owners are settled first
    grad_owner[t] = t;
    if (!needs_grad[t]) continue;
    const size_t dies = backwardStep(n, t - 1);
    // A gradient has its tensor's format (autocast: 16-bit ops' outputs get 16-bit ones).
    const int64_t size = checkedMul(elements[t], value_bytes[t]);
    if (readers.of(t).empty()) {
      grad_born[t] = backwardStep(n, n - 1);  // from the loss, at the first backward step
    } else {
      const size_t first = readers.of(t).back();
      if (passesThrough(graph, layers, first, t)) {
        grad_owner[t] = grad_owner[first + 1];
      } else {
        grad_born[t] = backwardStep(n, first);
      }
      for (size_t k = 0; k + 1 < readers.of(t).size(); ++k) {
        const size_t other = readers.of(t)[k];
        if (other != first && !passesThrough(graph, layers, other, t)) {
          timeline.add(backwardStep(n, other), backwardStep(n, other), size);
        }
      }
    }
    const size_t owner = grad_owner[t];
    grad_dies[owner] = std::max(grad_dies[owner], dies);
  }
  for (size_t t = 1; t < tensors; ++t) {
    if (!needs_grad[t] || grad_owner[t] != t) continue;
    timeline.add(grad_born[t], grad_dies[t], checkedMul(elements[t], value_bytes[t]));
  }
}

}  // namespace

ActivationMemory simulateActivations(const LayerGraph& graph,
                                     const std::vector<LayerAnalysis>& layers,
                                     const std::vector<int64_t>& elements, Mode mode,
                                     const std::vector<int64_t>& value_bytes) {
  const size_t n = graph.layers.size();
  const size_t tensors = n + 1;
  const bool training = mode == Mode::kTrain;
  const size_t steps = training ? 2 * n + 1 : n + 1;
  // Readers of each tensor, in forward order (a layer reading a tensor twice appears twice).
  const Readers readers(graph, tensors);
  const TensorLives lives = tensorLives(graph, layers, elements, readers, steps, value_bytes);
  Timeline timeline(steps);
  if (!training) return simulateInference(layers, lives, timeline);

  ActivationMemory out;
  out.row_bytes_per_sample.assign(tensors, 0);
  const std::vector<char> needs_grad = tensorsNeedingGrad(graph, layers);
  Timeline saved(steps);
  const int64_t kept = keepSaved(graph, layers, lives, needs_grad, timeline, saved, out);
  out.saved_per_sample = saved.series();
  addGradients(graph, layers, elements, value_bytes, readers, needs_grad, timeline);
  out.kept_per_sample = kept;
  out.live_per_sample = timeline.series();
  const int64_t peak = *std::max_element(out.live_per_sample.begin(), out.live_per_sample.end());
  out.backward_extra_per_sample = std::max<int64_t>(peak, 0) - kept;
  return out;
}

std::vector<StepLive> peakCandidates(const ActivationMemory& act,
                                     const std::vector<int64_t>& layer_gradient_bytes,
                                     ZeroGrad zero_grad, bool first_step,
                                     const std::vector<int64_t>& layer_freed_bytes) {
  const size_t n = layer_gradient_bytes.size();
  const bool kept = zero_grad == ZeroGrad::kZero && !first_step;
  int64_t all = 0;
  for (int64_t g : layer_gradient_bytes) all = checkedAdd(all, g);
  // Gradients alive at each step. AccumulateGrad (torch/csrc/autograd/functions/
  // accumulate_grad.h, accumulateGrad) steals a new gradient as .grad when there is none;
  // otherwise it runs `variable_grad += new_grad`, the new one freed afterwards.
  // The steps latest first: the backward steps (step 2n - k at k), then the forward ones,
  // which all hold the same gradients, so that only the one with the most activations can
  // be on the front (the others are left out).
  const std::vector<int64_t>& live = act.live_per_sample;
  std::vector<StepLive> steps(n + 1);
  StepLive& forward = steps[n];
  forward.gradient_bytes = kept ? all : 0;
  forward.per_sample = live[0];
  for (size_t step = 1; step <= n; ++step) {
    if (live[step] > forward.per_sample) {
      forward.step = step;
      forward.per_sample = live[step];
    }
  }
  int64_t done = 0, freed = 0;
  for (size_t step = n + 1; step <= 2 * n; ++step) {
    const size_t i = 2 * n - step;
    const int64_t layer = layer_gradient_bytes[i];
    StepLive& s = steps[i];
    s.step = step;
    s.gradient_bytes = kept ? checkedAdd(all, layer) : (done = checkedAdd(done, layer));
    s.gradient_bytes = checkedSub(s.gradient_bytes, freed);
    s.per_sample = live[step];
    if (!layer_freed_bytes.empty()) freed = checkedAdd(freed, layer_freed_bytes[i]);
  }
  // Keep the Pareto front: a step another one matches or exceeds in both never peaks alone.
  // By gradients, most first: without kept gradients backward only adds them, so the steps
  // are in that order already; kept ones (each step's own transient on top) need a sort.
  const auto more_gradients = [](const StepLive& a, const StepLive& b) {
    return a.gradient_bytes > b.gradient_bytes;
  };
  if (!std::is_sorted(steps.begin(), steps.end(), more_gradients)) {
    std::sort(steps.begin(), steps.end(), more_gradients);
  }
  std::vector<StepLive> front;
  for (size_t k = 0; k < steps.size();) {
    // Of the steps with equal gradients, the one with the most activations.
    size_t most = k;
    for (++k; k < steps.size() && steps[k].gradient_bytes == steps[most].gradient_bytes; ++k) {
      if (steps[k].per_sample > steps[most].per_sample) most = k;
    }
    if (front.empty() || steps[most].per_sample > front.back().per_sample) {
      front.push_back(steps[most]);
    }
  }
  return front;
}

std::vector<TimelineEvent> timelineEvents(const LayerGraph& graph, const ActivationMemory& act,
                                          const std::vector<int64_t>& layer_gradient_bytes,
                                          ZeroGrad zero_grad, Mode mode,
                                          const std::vector<int64_t>& layer_freed_bytes) {
  const size_t n = graph.layers.size();
  const bool training = mode == Mode::kTrain;
  const bool kept = zero_grad == ZeroGrad::kZero;
  int64_t all = 0;
  for (int64_t g : layer_gradient_bytes) all = checkedAdd(all, g);
  std::vector<TimelineEvent> events;
  events.reserve(training ? 2 * n + 2 : n + 1);
  // The forward steps: no gradient exists yet under set_to_none, every one under zero.
  for (size_t step = 0; step <= n; ++step) {
    TimelineEvent& e = events.emplace_back();
    e.op = step == 0 ? "input" : graph.layers[step - 1].name;
    e.live_per_sample = act.live_per_sample[step];
    e.saved_per_sample = training ? act.saved_per_sample[step] : e.live_per_sample;
    e.gradient_delta = training && !kept ? -all : 0;
  }
  if (!training) return events;
  // The backward steps, as peakCandidates counts their gradients.
  int64_t done = 0, freed = 0;
  for (size_t step = n + 1; step <= 2 * n; ++step) {
    const size_t layer = 2 * n - step;
    const int64_t own = layer_gradient_bytes[layer];
    done = checkedAdd(done, own);
    TimelineEvent& e = events.emplace_back();
    e.op = graph.layers[layer].name;
    e.phase = TimelinePhase::kBackward;
    e.live_per_sample = act.live_per_sample[step];
    e.saved_per_sample = std::min(act.saved_per_sample[step], e.live_per_sample);
    e.gradient_delta = checkedSub(kept ? own : checkedSub(done, all), freed);
    if (!layer_freed_bytes.empty()) freed = checkedAdd(freed, layer_freed_bytes[layer]);
  }
  TimelineEvent& step = events.emplace_back();
  step.op = "optimizer";
  step.phase = TimelinePhase::kOptimizerStep;
  return events;
}

}  // namespace dlcost
