"""The measuring harness the validate scripts share: live-tensor tracking under a dispatch
mode, one training step's and one forward's peaks, optimizers, and the engine's terms and
error figures. validate_torch.py (CNN presets), validate_llama.py (a Llama block stack) and
validate_lora.py (LoRA on it) import it; none of them imports another's internals.

Follows PyTorch 1.13.1 (Debian's python3-torch), which every figure here was measured with.
"""
import weakref

import torch
import torch.nn as nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


def storage_of(t):
    """(identity, bytes) of the memory block under a tensor, the same for all its views."""
    s = t.storage()._storage  # the UntypedStorage of 1.13's TypedStorage
    return s._cdata, s.nbytes()


def dense(t):
    """Whether t's elements fill a block of memory without gaps or overlaps in some order of
    its dimensions (c10's is_non_overlapping_and_dense: a transposed matrix is, a slice of a
    concatenation is not)."""
    dims = sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz != 1)
    expected = 1
    for st, sz in dims:
        if st != expected:
            return False
        expected *= sz
    return True


class LiveTensors(TorchDispatchMode):
    """Counts the bytes of live tensor storages and their peak.

    `peak` is PyTorch 1.13's own. `peak_2x` is the same walk with PyTorch 2.x's gradient
    accumulation during backward: where two gradients of one tensor meet, 1.13's InputBuffer
    always adds out of place (torch/csrc/autograd/input_buffer.cpp of v1.13, `accumulate`:
    `buffer[pos] = old_var + var`), so the old sum, the new part and the new sum are alive
    together; 2.x adds into the old sum when the buffer holds its last reference
    (input_buffer.cpp, `accumulate`: `buffer[pos] = old_var.add_(var)` under
    `can_accumulate_inplace(old_var)`: dense, use count 1, storage use count 1). At such an
    add (aten.add.Tensor during backward, two operands of the output's shape, the first
    dense and filling its storage) peak_2x does not count the new sum, which 2.x writes into
    the old one; after it the old sum dies, and both walks agree again.
    """

    def __init__(self):
        super().__init__()
        self.storages = {}  # storage identity -> [bytes, live tensor objects]
        self.tracked = {}   # id(tensor object) -> its finalizer
        self.live = 0
        self.peak = 0
        self.peak_2x = 0
        self.in_backward = False
        self.linear_biases = set()  # id() of every nn.Linear bias of the measured model

    def track(self, t):
        self._track(t)
        self._at_peak(0)

    def _track(self, t):
        if not isinstance(t, torch.Tensor) or t.device.type != "cpu":
            return
        f = self.tracked.get(id(t))
        if f is not None and f.alive:
            return
        key, nbytes = storage_of(t)
        entry = self.storages.get(key)
        if entry is None:
            self.storages[key] = [nbytes, 1]
            self.live += nbytes
        else:
            entry[1] += 1
        self.tracked[id(t)] = weakref.finalize(t, self._release, id(t), key)

    def _at_peak(self, accumulated_2x, in_place=0):
        self.peak = max(self.peak, self.live - in_place)
        self.peak_2x = max(self.peak_2x, self.live - accumulated_2x - in_place)

    def _release(self, oid, key):
        self.tracked.pop(oid, None)
        entry = self.storages[key]
        entry[1] -= 1
        if entry[1] == 0:
            del self.storages[key]
            self.live -= entry[0]

    def reset_peak(self):
        self.peak = self.peak_2x = self.live

    def _accumulated_in_place_by_2x(self, func, args, kwargs, out):
        """Bytes of `out` if it is an InputBuffer sum that 2.x writes into its first operand."""
        if not (self.in_backward and func is torch.ops.aten.add.Tensor and not kwargs
                and len(args) == 2 and isinstance(out, torch.Tensor)):
            return 0
        old, new = args
        if not (isinstance(old, torch.Tensor) and isinstance(new, torch.Tensor)
                and old.shape == new.shape == out.shape and old.dtype == out.dtype
                and dense(old)):
            return 0
        # 2.x also asks that the buffer hold the last reference to old and its storage, which
        # Python cannot see; old filling its whole storage rules out what backward hands on
        # as views of a larger gradient (a concatenation's slices).
        if storage_of(old)[1] != old.numel() * old.element_size():
            return 0
        return storage_of(out)[1]

    def _bias_added_in_place_by_eager(self, func, args, kwargs, out):
        """Bytes of `out` if it is an nn.Linear bias added out of place only because this mode
        is on. at::linear (aten/src/ATen/native/Linear.cpp of v1.13) runs an input of more
        than two dimensions (three when not contiguous) as matmul, then adds the bias with
        `output.add_(bias)`, in place; but under a dispatch mode isTensorSubclassLike(bias) is
        true and it takes `output = at::add(output, bias)` ("for composite compliance"), so the
        product and the sum are alive together for a moment plain eager never has. The walk
        counts the sum as written into the product, as eager does."""
        if not (func is torch.ops.aten.add.Tensor and not kwargs and len(args) == 2
                and isinstance(out, torch.Tensor)):
            return 0
        product, bias = args
        if id(bias) not in self.linear_biases or not isinstance(product, torch.Tensor):
            return 0
        if product.dim() <= 2 or product.shape != out.shape or product.dtype != out.dtype:
            return 0
        return storage_of(out)[1]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            self._track(t)
        self._at_peak(self._accumulated_in_place_by_2x(func, args, kwargs, out),
                      self._bias_added_in_place_by_eager(func, args, kwargs, out))
        return out


def track_state(mode, model, opt, *tensors):
    """Registers tensors that exist outside any op the mode saw (weights, inputs, states)."""
    mode.linear_biases = {id(m.bias) for m in model.modules()
                          if isinstance(m, nn.Linear) and m.bias is not None}
    for p in model.parameters():
        mode.track(p)
        if p.grad is not None:
            mode.track(p.grad)
    for b in model.buffers():
        mode.track(b)
    if opt is not None:
        for st in opt.state.values():
            for v in st.values():
                mode.track(v)
    for t in tensors:
        mode.track(t)


def loss_of(out, y):
    return nn.functional.cross_entropy(out, y)


def make_optimizer(name, params):
    if name == "sgd":
        return torch.optim.SGD(params, lr=0.01)
    if name == "momentum":
        return torch.optim.SGD(params, lr=0.01, momentum=0.9)
    if name == "adam":
        return torch.optim.Adam(params, lr=1e-3)
    raise ValueError(name)


def train_step(mode, model, opt, x, y, set_to_none, loss_fn, hold_output):
    """One step; returns the peaks of its two phases: zero_grad, forward, loss and backward;
    then the optimizer step; and the first phase's peak with 2.x's gradient accumulation
    (LiveTensors). With `hold_output` the loop keeps the model's output to the end
    (PyTorch's ImageNet example computes accuracy from it after the step); without, only the
    loss (Hugging Face's Trainer.compute_loss returns the loss alone)."""
    mode.reset_peak()
    opt.zero_grad(set_to_none=set_to_none)
    out = model(x)
    loss = loss_fn(out, y)
    if not hold_output:
        del out
    mode.in_backward = True
    loss.backward()
    mode.in_backward = False
    backward, backward_2x = mode.peak, mode.peak_2x
    mode.reset_peak()
    opt.step()
    return backward, mode.peak, backward_2x


def training_peaks(model, opt, x, y, loss_fn=None, hold_output=True):
    """[[backward phase, optimizer step phase, backward phase with 2.x's accumulation] of
    step 1, step 2 (set_to_none=True) and step 3 (gradients kept)]."""
    mode = LiveTensors()
    peaks = []
    with mode:
        track_state(mode, model, opt, x, y)
        for set_to_none in (True, True, False):
            peaks.append(list(train_step(mode, model, opt, x, y, set_to_none,
                                         loss_fn or loss_of, hold_output)))
    return peaks


def inference_peak(model, x):
    mode = LiveTensors()
    with mode:
        track_state(mode, model, None, x)
        mode.reset_peak()
        with torch.no_grad():
            out = model(x)
        del out
    return mode.peak


def term(memory, key):
    return next(t["bytes"] for t in memory["terms"] if t["key"] == key)


def err(est, meas):
    return (est - meas) / meas


def pct(e):
    return f"{100 * e:+.1f} %"


def mib(b):
    return f"{b / 2**20:,.1f}"


def step_peaks(phases):
    """(peak with 2.x's gradient accumulation, PyTorch 1.13's own peak, phase) of one measured
    step: [backward, optimizer step, backward with 2.x's accumulation] (measurements made
    before the third figure existed count 1.13's)."""
    backward, step = phases[0], phases[1]
    backward_2x = phases[2] if len(phases) > 2 else backward
    return (max(backward_2x, step), max(backward, step),
            "optimizer_step" if step > backward_2x else "backward")
