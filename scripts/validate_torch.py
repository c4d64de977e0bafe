"""Measures eager PyTorch's memory and compares it with dlcost's estimate.

Run through scripts/validate-torch (it picks Debian's /usr/bin/python3 and installs
python3-torch / python3-torchvision). For each CNN preset with a torchvision twin it builds the
twin with random weights on CPU in fp32 and measures

  saved      bytes autograd saves for backward during the model's forward
             (torch.autograd.graph.saved_tensors_hooks; storages counted once, parameters
             excluded) -- compared with the report's `activations` in training;
  step peaks the peak of live tensor bytes over a whole training step (zero_grad, forward,
             loss, backward, optimizer step): step 1 (no gradients or optimizer states yet),
             step 2 with zero_grad(set_to_none=True) (PyTorch 2.x's default) and step 3 with
             zero_grad(set_to_none=False) (gradients kept, 1.x's default) -- compared with the
             report's `total` in training;
  inference  the peak of live tensor bytes of one forward under torch.no_grad() in eval()
             -- compared with the report's `total` at inference.

Live tensor bytes are counted at the tensor level: a TorchDispatchMode sees every tensor an
ATen op returns, and a weakref finalizer on each tensor object tells when the last tensor of a
storage dies (PyTorch keeps a tensor's Python object alive as long as C++ holds the tensor).
Scratch memory that a kernel allocates and frees inside one op (oneDNN's convolution
workspace on CPU, which cuDNN's workspace is on GPU) is not a tensor and is not counted.
`--selftest` checks the method against a toy model whose figures are worked out by hand.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torchvision

import validate_vit
from validate_common import (dense, err, inference_peak, make_optimizer, mib, pct, step_peaks,
                             storage_of, term, training_peaks)

# Preset name -> torchvision constructor keyword arguments. The presets model no auxiliary
# heads, so GoogLeNet and Inception v3 are built without them.
TWINS = {
    "alexnet": {},
    "vgg11": {},
    "vgg11_bn": {},
    "vgg13": {},
    "vgg13_bn": {},
    "vgg16": {},
    "vgg16_bn": {},
    "vgg19": {},
    "vgg19_bn": {},
    "resnet18": {},
    "resnet34": {},
    "resnet50": {},
    "resnet101": {},
    "resnet152": {},
    "resnext50_32x4d": {},
    "wide_resnet50_2": {},
    "densenet121": {},
    "densenet169": {},
    "squeezenet1_0": {},
    "squeezenet1_1": {},
    "mobilenet_v2": {},
    "mobilenet_v3_large": {},
    "mobilenet_v3_small": {},
    "efficientnet_b0": {},
    "googlenet": {"aux_logits": False, "init_weights": False},
    "inception_v3": {"aux_logits": False, "init_weights": False},
}
# The default table: a spread of structures (plain, residual, bottleneck, grouped, dense,
# depthwise with in-place ReLU6 / Hardswish / SiLU, fire modules, inception).
DEFAULT_MODELS = [
    "alexnet", "vgg16", "resnet18", "resnet50", "resnext50_32x4d", "densenet121",
    "squeezenet1_0", "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small",
    "efficientnet_b0", "googlenet",
]
QUICK_MODELS = ["resnet18", "mobilenet_v2"]
QUICK_BATCH = 2
OPTIMIZERS = ["sgd", "momentum", "adam"]
# Bumped when the way of measuring changes, so that cached measurements are redone;
# SAVED_VERSION for the saved-bytes measure alone (one forward, cheap to redo).
METHOD_VERSION = 3
SAVED_VERSION = 2

# The targets of issue #12, as fractions of the measured figure.
TOL_SAVED = 0.01
TOL_TRAIN = 0.03
TOL_INFER = 0.05


def saved_bytes(model, x):
    """Bytes autograd saves during model(x), each storage once; parameters and buffers
    (batchnorm's running statistics, which native_batch_norm saves) are model state, not
    activations, and are left out."""
    params = {storage_of(p)[0] for p in list(model.parameters()) + list(model.buffers())}
    seen = {}

    def pack(t):
        key, nbytes = storage_of(t)
        if key not in params:
            seen[key] = nbytes
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    del out
    return sum(seen.values())


class CudaDropout(nn.Module):
    """nn.Dropout as it runs on CUDA: the fused native_dropout, which saves a bool mask.

    On CPU, F.dropout takes the unfused path (aten/src/ATen/native/Dropout.cpp,
    _dropout_impl: `input * noise` with an fp32 noise tensor, 4 bytes per element saved);
    the fused kernel is chosen only on CUDA/XPU. native_dropout also runs on CPU.
    """

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        return torch.native_dropout(x, self.p, True)[0]


def with_cuda_dropout(model):
    for name, child in model.named_children():
        if isinstance(child, nn.Dropout):
            setattr(model, name, CudaDropout(child.p))
        else:
            with_cuda_dropout(child)
    return model


class Autocast(nn.Module):
    """Runs the wrapped model's forward under torch.autocast, as a training loop does
    (`with torch.autocast(...): out = model(x)`); the loss is computed outside, on the
    16-bit logits. Leaving the context clears autocast's weight-cast cache; the casts a
    backward node saved stay alive until that node runs."""

    def __init__(self, model, device, dtype):
        super().__init__()
        self.model = model
        self.device = device
        self.dtype = dtype

    def forward(self, x):
        with torch.autocast(self.device, dtype=self.dtype):
            return self.model(x)


# --dtype -> how the twin runs: None (plain fp32) or (device, 16-bit dtype) under autocast.
# CPU autocast in 1.13 knows bf16 only; fp16 autocast runs on CUDA, which the live-tensor
# count (CPU tensors) does not follow.
AUTOCAST = {"fp32": None, "autocast_bf16": ("cpu", torch.bfloat16)}
PRECISION = "fp32"  # set once by main() from --dtype
PRECISION_TEXT = {"fp32": "fp32",
                  "autocast_bf16": "the forward under `torch.autocast('cpu', dtype=torch.bfloat16)` "
                  "(the loss outside it)"}


def build(model_fn):
    model = with_cuda_dropout(model_fn())
    ac = AUTOCAST[PRECISION]
    return model if ac is None else Autocast(model, *ac)


def measure(model_fn, shape, batch, optimizers):
    torch.manual_seed(0)
    model = build(model_fn)
    x = torch.randn(batch, *shape)
    y = torch.randint(0, 1000, (batch,))
    model.train()
    result = {"saved": saved_bytes(model, x), "saved_version": SAVED_VERSION}
    model.eval()
    result["infer"] = inference_peak(model, x)
    model.train()
    state = {k: v.clone() for k, v in model.state_dict().items()}
    for name in optimizers:
        model.load_state_dict(state)
        for p in model.parameters():
            p.grad = None
        opt = make_optimizer(name, model.parameters())
        result[name] = training_peaks(model, opt, x, y)
        del opt
    return result


# ---- the toy model whose figures are worked out by hand -------------------------------------

def selftest():
    """Linear(1000, 1000, bias=False) -> ReLU -> Linear(1000, 10, bias=False), batch 8, SGD."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1000, 1000, bias=False), nn.ReLU(),
                          nn.Linear(1000, 10, bias=False))
    b = 8
    x = torch.randn(b, 1000)
    y = torch.randint(0, 10, (b,))
    f = 4  # fp32
    w1, w2 = 1000 * 1000 * f, 1000 * 10 * f
    act = b * 1000 * f  # x, the hidden layer, the ReLU output: 32,000 bytes each
    logits = b * 10 * f
    checks = []
    # Saved: mm saves its input (x, then the ReLU output); ReLU saves its result (the same
    # storage as the second mm's input). Weights are parameters, excluded.
    checks.append(("saved", saved_bytes(model, x), 2 * act))
    # Inference: weights + x (held by the caller) + hidden + ReLU output, at the ReLU's return
    # (nn.Sequential still holds its input, the hidden layer).
    model.eval()
    checks.append(("inference", inference_peak(model, x), w1 + w2 + 3 * act))
    # Inference through Linear(1000, 1000) with a bias on a 4-D input: at::linear runs matmul,
    # then adds the bias in place (Linear.cpp of v1.13), so weight + bias + the input + one
    # output; the out-of-place sum that this walk's dispatch mode makes PyTorch take instead
    # is not counted (LiveTensors._bias_added_in_place_by_eager).
    lin = nn.Linear(1000, 1000).eval()
    checks.append(("inference, 4-D input through a bias", inference_peak(lin, torch.randn(2, 2, 2, 1000)),
                   w1 + 1000 * f + 2 * act))
    model.train()
    opt = make_optimizer("sgd", model.parameters())
    p1, p2, p3 = [max(phases) for phases in training_peaks(model, opt, x, y)]
    # Step 2 (gradients set to None): the peak is in the first mm's backward, which returns
    # grad W1 while alive are: weights, grad W2 (accumulated already), x (saved) and the
    # gradient of the hidden layer (its input), plus the int64 labels,
    # the logits (train_step's `out`) and the scalar loss; the log-softmax result that
    # cross_entropy saved was released by its backward.
    small = b * 8 + logits + f
    step2 = w1 + w2 + w2 + w1 + act + act + small
    checks.append(("train step 2 (set_to_none)", p2, step2))
    # Step 3 (gradients kept): the same, but grad W1 is first computed into a new tensor and
    # then added into the kept .grad, so both are alive at that moment.
    checks.append(("train step 3 (kept grads)", p3, step2 + w1))
    ok = True
    for name, got, want in checks:
        good = abs(got - want) <= 0.001 * want
        ok = ok and good
        print(f"selftest {name}: measured {got:,} B, by hand {want:,} B "
              f"({'ok' if good else 'MISMATCH'})")
    print(f"selftest train step 1: measured {p1:,} B")
    return ok


# ---- dlcost ---------------------------------------------------------------------------------

def estimate(dlcost, preset, batch, mode, optimizer="sgd", zero_grad="set_to_none"):
    """The report's memory object. Training runs the for-loop optimizers: what PyTorch 1.13
    (and 2.x) uses on CPU, where the harness measures."""
    source = ["--onnx", LOCAL[preset][2]()] if preset in LOCAL else ["--preset", preset]
    cmd = [dlcost, "estimate", *source, "--batch", str(batch), "--mode", mode,
           "--optimizer", optimizer, "--dtype", PRECISION, "--json"]
    if mode == "train":
        cmd += ["--zero-grad", zero_grad, "--optimizer-impl", "for_loop"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["memory"]


# Twins dlcost has no preset for, written here and handed to dlcost as an ONNX export:
# name -> (constructor, input shape per sample, the export's path). torchvision's vit_b_16
# has no preset either: its training-mode export (validate_vit.torchvision_onnx_path).
LOCAL = {"vit_s16": (validate_vit.VitS16, validate_vit.IMAGE, validate_vit.onnx_path),
         "vit_b_16": (torchvision.models.vit_b_16, validate_vit.IMAGE,
                      validate_vit.torchvision_onnx_path)}


def preset_input(dlcost, preset):
    if preset in LOCAL:
        return list(LOCAL[preset][1])
    out = subprocess.run([dlcost, "preset", preset], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["input"]


def compare(dlcost, preset, batch, meas, optimizers):
    """(estimate, measured) pairs: saved bytes, inference peak, and per optimizer the peaks
    of step 2 (set_to_none), step 3 (gradients kept) and step 1 with 2.x's gradient
    accumulation, the same against 1.13's own peaks (`raw`), and the phase that peaks."""
    rows = {"train": {}}
    rows["saved"] = (term(estimate(dlcost, preset, batch, "train"), "activations"),
                     meas["saved"])
    rows["infer"] = (estimate(dlcost, preset, batch, "infer")["total"], meas["infer"])
    for o in optimizers:
        if o not in meas:
            continue
        (m1, r1, _), (m2, r2, p2), (m3, r3, _) = [step_peaks(p) for p in meas[o]]
        none = estimate(dlcost, preset, batch, "train", o, "set_to_none")
        kept = estimate(dlcost, preset, batch, "train", o, "zero")
        rows["train"][o] = {
            "step2": (none["total"], m2),
            "step3": (kept["total"], m3),
            "step1": (none["first_step_total"], m1),
            "raw": {"step2": (none["total"], r2), "step3": (kept["total"], r3),
                    "step1": (none["first_step_total"], r1)},
            "phase": (none["peak_phase"], p2),
        }
    return rows


# ---- the report -----------------------------------------------------------------------------

def debian_version(package):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "(version unknown)"


def write_markdown(path, results, optimizers, elapsed, llama_lines=(), missing=(),
                   lora_lines=()):
    today = datetime.date.today().isoformat()
    lines = []
    add = lines.append
    add("# Accuracy against eager PyTorch")
    add("")
    add("Generated by `scripts/validate-torch` (do not edit by hand; the text around the tables "
        "lives in `scripts/validate_torch.py`).")
    add("")
    add(f"- PyTorch {debian_version('python3-torch')}, torchvision "
        f"{debian_version('python3-torchvision')} (Debian packages; `torch.__version__` "
        f"{torch.__version__}), CPU, {PRECISION_TEXT[PRECISION]}, random weights; table "
        f"written {today}.")
    local = "".join(f"; {m} (no preset: scripts/validate_vit.py) with `--onnx` of its export "
                    "instead of `--preset`" for m in LOCAL if any(k[0] == m for k, _ in results))
    add(f"- Estimates: `build/dlcost estimate --preset NAME --dtype {PRECISION} --batch B "
        f"--json` (`--mode train --optimizer O`, or `--mode infer`){local}.")
    add("- The measurements are kept in `docs/accuracy-measured.json` (bytes per model, batch "
        "and step, and per Llama and LoRA case; they do not depend on dlcost): "
        "`scripts/validate-torch --cached` rewrites this page from them, a plain run measures "
        "only what is missing, `--fresh` all again.")
    add("- Error = (estimate - measured) / measured. Targets (issue #12; #29 for autocast): "
        f"saved within {100 * TOL_SAVED:g} %, steady-state training peak within 3 %, "
        "inference peak within 5 %.")
    add("- Bytes are MiB (2^20). Live bytes are counted at the tensor level (see the method "
        "below); oneDNN's in-op scratch on CPU, like cuDNN's workspace on GPU, is not a tensor "
        "and is not counted.")
    add("")
    worst = {}
    for (preset, batch), rows in results:
        found = [("saved", rows["saved"]), ("inference peak", rows["infer"])]
        for o, t in rows["train"].items():
            found += [("step 2 (set_to_none)", t["step2"]), ("step 3 (kept)", t["step3"]),
                      ("step 1", t["step1"])]
        for what, (est, meas) in found:
            e = err(est, meas)
            if what not in worst or abs(e) > abs(worst[what][0]):
                worst[what] = (e, f"{preset} at batch {batch}")
    if worst:
        add("- Largest error per measure: " + "; ".join(
            f"{what} {100 * e:+.2f} % ({where})" for what, (e, where) in worst.items()) + ".")
        add("")
    if missing:
        add("- Not measured in this run (`--cached` writes only what the cache holds): " +
            ", ".join(f"{m} at batch {b}" for m, b in missing) + ".")
        add("")
    add("## Saved for backward and inference peak")
    add("")
    add("| model | batch | saved measured | saved estimate | error | inference measured | "
        "inference estimate | error |")
    add("|---|---:|---:|---:|---:|---:|---:|---:|")
    for (preset, batch), rows in results:
        se, sm = rows["saved"]
        ie, im = rows["infer"]
        add(f"| {preset} | {batch} | {mib(sm)} | {mib(se)} | {pct(err(se, sm))} | {mib(im)} | "
            f"{mib(ie)} | {pct(err(ie, im))} |")
    add("")
    add("## Training step peak")
    add("")
    add("Measured: the peak of a whole step (zero_grad, forward, loss, backward, "
        "`optimizer.step()`) for step 2 with `zero_grad(set_to_none=True)` (PyTorch 2.x's "
        "default), step 3 with `zero_grad(set_to_none=False)` (gradients kept, 1.x's default) "
        "and step 1 (no gradient or optimizer state yet), with PyTorch 2.x's in-place "
        "gradient accumulation in backward (see below; the next table gives 1.13's own "
        "figures where they differ). Estimates: the report's `total` "
        "with `--zero-grad set_to_none` and `--zero-grad zero`, and its `first_step_total`, "
        "all with `--optimizer-impl for_loop` (the implementation PyTorch runs on CPU). "
        "Phase: where the step peaks, estimated / measured (`backward` or the optimizer "
        "`step`).")
    add("")
    add("| model | batch | optimizer | step 2 measured | estimate | error | step 3 (kept) "
        "measured | estimate | error | step 1 measured | estimate | error | phase |")
    add("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    short = {"backward": "backward", "optimizer_step": "step"}
    raw_rows = []
    for (preset, batch), rows in results:
        for o, t in rows["train"].items():
            cells = []
            raw_cells = []
            for k in ("step2", "step3", "step1"):
                est, meas = t[k]
                cells.append(f"{mib(meas)} | {mib(est)} | {pct(err(est, meas))}")
                raw = t["raw"][k][1]
                raw_cells.append(f"{mib(raw)} | {pct(err(est, raw))}")
            pe, pm = t["phase"]
            add(f"| {preset} | {batch} | {o} | " + " | ".join(cells) +
                f" | {short[pe]} / {short[pm]} |")
            if any(t["raw"][k][1] != t[k][1] for k in ("step2", "step3", "step1")):
                raw_rows.append(f"| {preset} | {batch} | {o} | " + " | ".join(raw_cells) + " |")
    add("")
    add(RAW_INTRO)
    add("")
    if raw_rows:
        add("| model | batch | optimizer | step 2, 1.13 | error | step 3 (kept), 1.13 | error | "
            "step 1, 1.13 | error |")
        add("|---|---:|---|---:|---:|---:|---:|---:|---:|")
        lines.extend(raw_rows)
    else:
        add("No row of this table differs.")
    add("")
    # Sections kept by hand (their figures are tests elsewhere): carried over as they are.
    old = open(path).read() if os.path.exists(path) else ""
    for heading in HAND_KEPT_SECTIONS:
        if heading in old:
            section = old[old.index(heading):]
            end = section.find("\n## ", len(heading))
            lines.extend((section if end < 0 else section[:end]).rstrip().splitlines())
            add("")
    if llama_lines:
        add(LLAMA_INTRO)
        add("| case | figure | measured | estimate | error | 1.13's own | error |")
        add("|---|---|---:|---:|---:|---:|---:|")
        lines.extend(llama_lines)
        add("")
        add(LLAMA_NOTES)
    if lora_lines:
        add(LORA_INTRO)
        add("| case | figure | measured | estimate | error | 1.13's own | error |")
        add("|---|---|---:|---:|---:|---:|---:|")
        lines.extend(lora_lines)
        add("")
        add(LORA_NOTES)
    add(GAPS)
    add(METHOD)
    # The "Serving" section is written by scripts/serving_accuracy.py: keep it.
    kept = ""
    marker = "<!-- serving: written by scripts/serving_accuracy.py -->"
    if marker in old:
        kept = "\n" + old[old.index(marker):]
    with open(path, "w") as f:
        f.write("\n".join(lines) + kept)


# Sections of docs/accuracy.md written by hand, carried over when the page is rewritten.
HAND_KEPT_SECTIONS = ["## Multi-GPU step time against published runs"]

RAW_INTRO = """### PyTorch 1.13's own gradient accumulation

Where a tensor receives gradients from two readers (a residual block's input: its first
convolution and the shortcut), autograd's InputBuffer sums them. PyTorch 1.13 sums out of
place (`torch/csrc/autograd/input_buffer.cpp` before in-place accumulation, `accumulate`:
`buffer[pos] = old_var + var`; the profiler shows every such sum in 1.13.1's backward as
`aten::add`, none as `add_`), so the old sum, the new part and the new sum are alive together
for one op. PyTorch 2.x adds into the old sum when the buffer holds its last reference (the
same file's `accumulate`: `buffer[pos] = old_var.add_(var)` under
`can_accumulate_inplace(old_var)`),
which is what the engine models and what the table above measures: the harness replays 1.13's
step and leaves out each such sum's new tensor (`LiveTensors.peak_2x`). This was the
unexplained 0.2-0.3 % of ResNet-18 and ResNet-50 with `set_to_none` in the previous table
(0.38 MiB of ResNet-18's at batch 2: the gradient of layer3's input, 256 x 14 x 14 values per
sample). Under PyTorch 1.13 the steps peak higher by at most one such gradient:"""


LLAMA_INTRO = """## A Llama decoder in plain PyTorch

`scripts/validate_llama.py` writes Hugging Face transformers' Llama (modeling_llama.py of
v4.48 and later: LlamaRMSNorm, rotary embeddings, `eager_attention_forward` with `repeat_kv`,
the SwiGLU LlamaMLP, LlamaForCausalLM's shifted cross-entropy) in plain PyTorch and measures
it as above: 2 layers, hidden 256, 8 query heads over 4 key/value heads, intermediate 688,
vocabulary 2048, fp32, CPU; 2 sequences of 128 tokens, and 1 of 16 tokens (short-sequence
fine-tuning, where a parameter's gradient rather than the logits sets the peak) with the LM
head separate and tied to the embeddings (`tie_word_embeddings`). The estimate reads the same
config.json (`dlcost estimate CONFIG --attention eager --seq-len S --batch B --dtype fp32`).
"Measured" is with PyTorch 2.x's in-place gradient accumulation, as in the CNN table; "1.13's
own" is the step as PyTorch 1.13 runs it.
"""

LLAMA_NOTES = """What the rows check, rule by rule (PyTorch 2.x's derivatives.yaml and HF's modelling file):
LlamaRMSNorm keeps its fp32 input (`pow`), rsqrt's value per token and the normalised tensor
before the weight multiply, and the next linear keeps its output: 3h values + 4 bytes per token
and norm where the engine used to count 2h; eager attention keeps the `repeat_kv` copies of K
and V (heads / kv_heads times their width), Q, the softmax output and o_proj's input; the
SwiGLU MLP keeps gate, SiLU, up and product; the loss keeps the fp32 log-probabilities and the
int64 labels, the embedding the int64 token ids. At the logits' backward nll_loss's gradient
and log_softmax's (both fp32, as large as the logits) are alive with the saved tensors.

Residuals: the rotary cos and sin tables (2 x seq x 32 fp32 values, one per batch) are not
modelled (-0.2 % of the saved bytes at 2 x 128 tokens, -0.5 % at 1 x 16). PyTorch 1.13's `mean` keeps its input for backward
(`MeanBackward1._saved_self`) where 2.x's does not (derivatives.yaml, `mean.dim`:
`mean_backward(grad, self.sym_sizes(), dim, self.sym_numel(), keepdim)`), so the harness
writes RMSNorm's mean as `sum / n`, which saves what 2.x's mean saves. The training step
runs without holding the logits (Hugging Face's `Trainer.compute_loss` returns the loss
alone). With `set_to_none` the step peaks at the logits' backward, before any gradient
exists. The estimate compares that step with the top layer's backward (the head's gradients
and one layer's; the head's saved tensors gone), the first layer's (every gradient but the
embeddings'; one layer's saved tensors left) and the embeddings' (every gradient), which for
a dense decoder with like layers bound every step between; for other transformers it counts
every gradient from the top layer on, an upper bound. The 16-bit forms (RMSNorm's
upcast, eager softmax computed in fp32 and cast back, which keeps both) are not measured here.

Kept gradients (`--zero-grad zero`): every `.grad` exists all step, and each backward op
computes its parameters' new gradients into fresh tensors that AccumulateGrad adds in and frees
(`accumulate_grad.h`, `accumulateGrad`: `variable_grad += new_grad`); the autograd engine runs
an AccumulateGrad as soon as it is ready (`accumulate_grad.cpp`, its constructor:
`Node(/*sequence_nr=*/UINT64_MAX)`, the ready queue's first), so one op's new gradients are
the transient. The estimate takes the largest
of: the logits' backward (no transient); the LM head's (its vocab x h gradient, with the
logits' gradient and the head input's alive and the loss's saved tensors gone); a layer's (its
largest weight matrix with the widest working set, an upper bound); the embedding's (the dense
vocab x h table of `embedding_dense_backward`). With 1 x 16 tokens the LM head's line peaks:
without it the estimate was 13 % low. A tied head's gradient waits in the shared weight's input
buffer from the head's backward to the embedding's (the weight's AccumulateGrad runs once both
uses have contributed), so it is alive through the layers' backward and meets the embedding's
own gradient there, with `set_to_none` too: that case was 9 % low before (19 % under 1.13).
The first step has no `.grad` to add into, so with kept gradients its estimate
(`first_step_total`) walks the `set_to_none` lines (it counted every gradient before).
"""

LORA_INTRO = """## LoRA on the Llama

`scripts/validate_lora.py` puts PEFT's LoRA Linear (huggingface/peft,
`src/peft/tuners/lora/layer.py` at 5d602fdbf: `update_layer` lines 256-281, `lora_A` r x in,
`lora_B` out x r, an `nn.Identity` dropout at LoraConfig's default 0, `scaling = alpha / r`;
`Linear.forward` lines 1035-1074: the frozen base layer, the input cast to the adapters'
dtype, `result + lora_B(lora_A(dropout(x))) * scaling`) on the Llama above, r = 8, alpha 16,
every base weight frozen, the optimizer over the adapters only, fp32 on CPU. The estimate:
`dlcost estimate CONFIG --finetune lora --lora-rank 8 --lora-targets T` with the flags above.
"""

LORA_NOTES = """What autograd keeps when the base is frozen: the generated code saves an input of a
multi-input op only when the gradient that reads it is needed (PyTorch's
`tools/autograd/gen_variable_type.py`, `guard_for`: `grad_fn->should_compute_output(edge)`
around the saved input). So a frozen linear keeps its weight, not its input (derivatives.yaml,
`mm`: `mat2: mm_mat2_backward(grad, self, ...)`), and lora_A keeps it instead: the input
itself in fp32; over a 16-bit base each adapted module keeps its own fp32 copy (PEFT's
`_cast_input_dtype`, tuners_utils.py lines 2176-2191; measured in bf16: four (256, 256) fp32
copies for q and v in two layers). RMSNorm keeps its fp32 input and rsqrt's value, not the
normalised tensor its frozen weight multiplies; the SwiGLU MLP keeps gate, SiLU and up
outputs, not down_proj's input unless down_proj is adapted; the frozen LM head keeps no input,
the frozen embedding no token ids. The embeddings' output needs no gradient, so the first
layer's input norm keeps nothing and its QK^T keeps K (for Q's gradient) but not Q; Hugging
Face's `enable_input_require_grads` (called with gradient checkpointing) changes that, and
the estimate does not model it. The estimate used to count the full fine-tuning tensors plus
r values per adapter: with q and v at 2 x 128 tokens 15,901,696 saved bytes (+40 %) and
30,267,392 at Adam's step 2 (+18 %); all-linear +13 % and +6 %; one sequence of 16 tokens
+47 % and +2.6 %.

Residuals: the rotary cos and sin tables (32 KiB at 128 tokens, 4 KiB at 16), the float64
scalars that `* scaling` wraps, Adam's CPU step counters and the labels. Gradients: the
adapters' only, fp32; with `set_to_none` and with kept gradients the step peaks at the
logits' backward here, before any adapter gradient exists; a kept adapter's new gradient
(r x width) is the layer's transient, too small to move these peaks. Not measured: bf16's
training peaks (its saved bytes are measured: 10,164,308, estimated 10,147,840, -0.16 %,
since the estimate counts the fp32 softmax output Llama's eager attention keeps beside its
16-bit copy, 2 x 1 MiB here; full training in bf16 11,756,604 measured, 11,740,160
estimated), torch.autocast
(the estimate assumes its matmuls keep 16-bit copies of the adapters' inputs), lora_dropout
above 0 (each adapted module would keep its dropout output and mask), QLoRA's dequantisation.
"""

GAPS = """## The training-step rules the estimate follows

A step peaks in one of two phases; the report gives both (`memory.phases`), its `total` is
the larger and `peak_phase` says which; `first_step_total` is the first step's peak.

1. **Backward: gradients appear as backward runs** (`--zero-grad set_to_none`, the default,
   as `Optimizer.zero_grad(set_to_none=True)` is since PyTorch 2.0). AccumulateGrad
   (`torch/csrc/autograd/functions/accumulate_grad.h`, `accumulateGrad`) steals each new
   gradient as `.grad`, so at backward step t only the layers backward has reached have
   gradients, while the saved activations of the layers behind are still alive. The engine
   walks the backward steps with both (`backward_gradient_delta`: the gradients not made yet,
   negative) and takes the step that peaks at the batch; `totalAt` and the largest batch try
   every step that can peak at some batch, so sweeps stay exact. With `--zero-grad zero`
   (`set_to_none=False`, 1.x's default) every gradient exists all step, and AccumulateGrad
   adds the new one into it (`variable_grad += new_grad`): the layer's new gradients are a
   transient at its backward step (alexnet: its 9216 x 4096 classifier weight, 144 MiB).
2. **The optimizer step** (`optimizer_step`, its own phase): weights, gradients, states, the
   batch and output the training loop still holds, and the temporaries of
   `--optimizer-impl` (torch/optim/ of PyTorch 2.x): the for-loop Adam
   (`_single_tensor_adam`: `denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)`)
   holds `sqrt()` and the quotient of parameter i while parameter i-1's `denom` is still
   bound, max over i of 2 s_i + s_(i-1) values; `foreach` (`_multi_tensor_adam`, the 2.x
   default when every parameter is on CUDA) one copy of every parameter
   (`exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)`, then in place; PyTorch 1.13's
   `_multi_tensor_adam` made a second, `denom = torch._foreach_add(exp_avg_sq_sqrt, eps)`);
   `fused` none. RMSprop and Adagrad hold one `sqrt()` per parameter (s_i + s_(i-1), or one
   copy with foreach); SGD and momentum update in place. The harness measures the for-loop
   (what PyTorch runs on CPU). Adam's per-parameter `step` counters are CPU scalars on CUDA
   (`torch.tensor(0.0)` unless `capturable` or `fused`) and are not counted; on CPU they are
   4 bytes per parameter tensor.
3. **The first step** has no optimizer state during its backward: Adam makes `exp_avg` and
   `exp_avg_sq` with `torch.zeros_like` inside `step()`, momentum SGD its buffer as
   `torch.clone(grad)`; and no `.grad` to add into, whatever `zero_grad` does. Its peak is
   the larger of that backward peak and the step phase.

Residuals: the training loop's labels (8 bytes per sample) and scalar loss are not modelled,
nor Adam's CPU `step` counters (see above).
"""

METHOD = """## Method

- **Saved for backward**: `torch.autograd.graph.saved_tensors_hooks` around `model(x)` in
  `train()` mode; every packed tensor's storage is counted once (by storage identity), storages
  of parameters are left out. Batchnorm's saved mean and inverse std are included, as in the
  estimate; its running statistics, which `native_batch_norm` saves too, are buffers (model
  state, in the report's `buffers`) and are left out like parameters.
- **Live tensor bytes**: a `TorchDispatchMode` registers every tensor an ATen op returns,
  together with the weights, buffers, gradients, optimizer states, the input batch and the
  labels that exist before; a weakref finalizer on each tensor object releases its storage
  when the last tensor using it dies (PyTorch keeps a tensor's Python object alive as long as
  C++ holds the tensor, so tensors held only by autograd are seen too). The peak is taken at
  each op's return, when its inputs and outputs are both alive.
- **PyTorch 2.x's gradient accumulation**: during `loss.backward()` an `aten.add.Tensor` of
  two operands of the output's shape, the first dense and filling its storage, is an
  InputBuffer sum that 2.x computes in place; the second peak (`peak_2x`) leaves its new
  tensor out. Python cannot see the use counts 2.x also checks; backward hands a
  concatenation's gradient on as slices, which fill no storage and are not counted as
  in place.
- **Plain eager's in-place bias add**: a dispatch mode makes PyTorch treat every tensor as a
  subclass (`isTensorSubclassLike`), and at::linear then adds an `nn.Linear` bias to an input
  of more than two dimensions out of place instead of with `output.add_(bias)`; the walk
  counts that sum as written into the product, as plain eager does (checked against
  `torch.profiler`'s allocation events: convnext_tiny inference at batch 2, 139,645,216 B
  both ways; the mode's own walk said 142,053,664 B).
- **Self-test** (`scripts/validate-torch --selftest`): Linear(1000, 1000) -> ReLU ->
  Linear(1000, 10), batch 8, whose saved bytes, inference peak and step peaks are worked out
  by hand in `selftest()`; the method must match them within 0.1 %.
- **Dropout as on CUDA**: on CUDA, `nn.Dropout` runs the fused `native_dropout`, which saves
  a 1-byte bool mask (derivatives.yaml: `native_dropout_backward(grad, result1, ...)`). On CPU,
  `F.dropout` takes the unfused path (`aten/src/ATen/native/Dropout.cpp`, `_dropout_impl`:
  `input * noise`) and saves an fp32 noise tensor, 4 bytes per element. The estimate follows
  CUDA, and so does the measurement: the harness swaps every `nn.Dropout` for a module calling
  `torch.native_dropout`, which runs on CPU too. With CPU's own dropout, alexnet's saved bytes
  measure 1.1 % more at batch 8 (the fp32 noise of its two dropout layers).
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlcost", default="build/dlcost")
    ap.add_argument("--quick", action="store_true",
                    help="CI subset: saved bytes, inference and SGD training peaks of resnet18 and "
                    "mobilenet_v2 at batch 2; exits 1 outside a tolerance")
    ap.add_argument("--selftest", action="store_true", help="only the hand-worked toy model")
    ap.add_argument("--all", action="store_true", help="every preset with a torchvision twin")
    ap.add_argument("--models", help="comma-separated presets")
    ap.add_argument("--batches", default="8,32")
    ap.add_argument("--optimizers", default=",".join(OPTIMIZERS))
    ap.add_argument("--cache", default="docs/accuracy-measured.json",
                    help="measurements are kept here and reused (they do not depend on dlcost; "
                    "committed, so a later run measures only what is missing)")
    ap.add_argument("--fresh", action="store_true", help="measure again, ignoring the cache")
    ap.add_argument("--cached", action="store_true",
                    help="measure no CNN row: write the table from the cached measurements "
                    "(the Llama's and LoRA's are measured if the cache lacks them)")
    ap.add_argument("--out", default="docs/accuracy.md")
    ap.add_argument("--no-llama", action="store_true",
                    help="leave out the Llama decoder written in plain PyTorch and its LoRA")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--dtype", default="fp32", choices=list(AUTOCAST),
                    help="fp32, or the twin's forward under torch.autocast (autocast_bf16, on "
                    "CPU) against dlcost's --dtype of that name; "
                    "saved bytes are then held to 1.5 %% (issue #29)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    global PRECISION, TOL_SAVED
    PRECISION = a.dtype
    if PRECISION != "fp32":
        TOL_SAVED = 0.015
        if a.out == "docs/accuracy.md":  # the fp32 table stays; autocast's has its own page
            a.out = "docs/accuracy-autocast.md"

    ok = selftest()
    if a.selftest or not ok:
        return 0 if ok else 1

    if a.quick:
        models, batches, cache_path = QUICK_MODELS, [QUICK_BATCH], None
    else:
        models = (a.models.split(",") if a.models else
                  list(TWINS) if a.all else DEFAULT_MODELS)
        batches = [int(b) for b in a.batches.split(",")]
        cache_path = a.cache
    # The CI subset checks saved bytes, the inference peak and SGD's step peaks (gradient
    # timing with set_to_none and with kept gradients); the full table adds momentum and Adam.
    optimizers = ["sgd"] if a.quick else a.optimizers.split(",")
    for m in models:
        if m not in TWINS and m not in LOCAL:
            ap.error(f"no torchvision twin known for preset '{m}'")

    cache = {}
    if cache_path and not a.fresh and os.path.exists(cache_path):
        with open(cache_path) as f:
            cache = json.load(f)
    version_key = f"torch {torch.__version__}, method {METHOD_VERSION}"
    cache = cache if cache.get("version") == version_key else {"version": version_key}

    start = time.time()
    results = []
    failures = []
    for preset in models:
        shape = preset_input(a.dlcost, preset)
        if preset in LOCAL:
            ctor, kwargs = LOCAL[preset][0], {}
        else:
            ctor = getattr(torchvision.models, preset)
            kwargs = dict(TWINS[preset], weights=None)
        for batch in batches:
            key = f"{preset}|{batch}" + ("" if PRECISION == "fp32" else f"|{PRECISION}")
            meas = cache.get(key)
            if a.cached and meas is None:
                continue
            if meas is not None and meas.get("saved_version") != SAVED_VERSION:
                torch.manual_seed(0)
                model = build(lambda: ctor(**kwargs)).train()
                meas["saved"] = saved_bytes(model, torch.randn(batch, *shape))
                meas["saved_version"] = SAVED_VERSION
                del model
            if not a.cached and (meas is None or any(o not in meas for o in optimizers)):
                t0 = time.time()
                meas = measure(lambda: ctor(**kwargs), shape, batch, optimizers)
                print(f"measured {key} in {time.time() - t0:.0f} s", flush=True)
                cache[key] = meas
                if cache_path:
                    os.makedirs(os.path.dirname(cache_path), exist_ok=True)
                    with open(cache_path, "w") as f:
                        json.dump(cache, f, indent=1)
            rows = compare(a.dlcost, preset, batch, meas, optimizers)
            results.append(((preset, batch), rows))
            se, sm = rows["saved"]
            ie, im = rows["infer"]
            line = (f"{preset:20s} b{batch:<3d} saved {pct(err(se, sm)):>9s}  "
                    f"infer {pct(err(ie, im)):>9s}")
            for o, t in rows["train"].items():
                line += (f"  {o} {pct(err(*t['step2']))} (kept {pct(err(*t['step3']))}, "
                         f"first {pct(err(*t['step1']))})")
            print(line, flush=True)
            if abs(err(se, sm)) > TOL_SAVED:
                failures.append(f"{key}: saved {pct(err(se, sm))} "
                                f"(tolerance {100 * TOL_SAVED:g} %)")
            if abs(err(ie, im)) > TOL_INFER:
                failures.append(f"{key}: inference peak {pct(err(ie, im))} (tolerance 5 %)")
            for o, t in rows["train"].items():
                for k, what in (("step2", "step 2 (set_to_none)"), ("step3", "step 3 (kept)")):
                    if abs(err(*t[k])) > TOL_TRAIN:
                        failures.append(f"{key} {o}: {what} peak {pct(err(*t[k]))} "
                                        "(tolerance 3 %)")
    llama_lines = []
    lora_lines = []
    if not a.quick and not a.no_llama:
        sys.dont_write_bytecode = True  # no scripts/__pycache__ in the work tree
        import validate_llama
        llm_cache = None if cache_path is None else cache
        validate_llama.report(a.dlcost, ["sgd", "adam"], llama_lines.append, llm_cache)
        print("\n".join(llama_lines), flush=True)
        import validate_lora
        validate_lora.report(a.dlcost, ["sgd", "adam"], lora_lines.append, llm_cache)
        print("\n".join(lora_lines), flush=True)
        if cache_path:
            with open(cache_path, "w") as f:
                json.dump(cache, f, indent=1)
    elapsed = time.time() - start
    if not a.quick:
        done = {key for key, _ in results}
        missing = [(m, b) for m in models for b in batches if (m, b) not in done]
        write_markdown(a.out, results, optimizers, elapsed, llama_lines, missing, lora_lines)
        print(f"wrote {a.out}")
    for f in failures:
        print("outside tolerance: " + f)
    if a.quick:
        print(f"validate-torch --quick: {len(failures)} outside tolerance, {elapsed:.0f} s")
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
