#!/usr/bin/python3
"""Measures, with the project's harness (scripts/validate_torch.py: saved-for-backward bytes,
inference peak, SGD step peaks), the torchvision models whose ONNX exports
tests/test_onnx_graph.cpp checks without a preset twin, and prints them beside dlcost's
estimate of the exported file.

usage: measure_onnx_twins.py DLCOST ONNX_DIR [BATCH [NAME...]]

Each NAME is built as make_onnx_graphs.py exports it (weights=None, stochastic depth 0) and
measured in fp32 on CPU; ONNX_DIR holds NAME.onnx from make_onnx_graphs.py. The NAME
tiny_vit_torchvision is make_onnx_graphs.py's TINY_VIT_TV (torchvision's VisionTransformer at
small sizes, 3x32x32 images), its file from `make_onnx_graphs.py --tiny-vit-torchvision`.
"""
import json
import os
import subprocess
import sys

import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts"))
import torch  # noqa: E402
from make_onnx_graphs import SIZE, TINY_VIT_TV, constructor_kwargs  # noqa: E402
from validate_common import (inference_peak, make_optimizer, step_peaks, term,  # noqa: E402
                             training_peaks)
from validate_torch import saved_bytes, with_cuda_dropout  # noqa: E402


def build(name):
    if name == "tiny_vit_torchvision":
        from torchvision.models.vision_transformer import VisionTransformer
        return VisionTransformer(**TINY_VIT_TV)
    return getattr(torchvision.models, name)(weights=None, **constructor_kwargs(name))


def measure(name, batch):
    """validate_torch.measure for SGD alone, without its state_dict reload between optimizers
    (MNASNet's _load_from_state_dict refuses a state dict without its version metadata)."""
    torch.manual_seed(0)
    model = with_cuda_dropout(build(name))
    size = TINY_VIT_TV["image_size"] if name == "tiny_vit_torchvision" else SIZE.get(name, 224)
    x = torch.randn(batch, 3, size, size)
    y = torch.randint(0, TINY_VIT_TV["num_classes"] if name == "tiny_vit_torchvision" else 1000,
                      (batch,))
    model.train()
    result = {"saved": saved_bytes(model, x)}
    model.eval()
    result["infer"] = inference_peak(model, x)
    model.train()
    result["sgd"] = training_peaks(model, make_optimizer("sgd", model.parameters()), x, y)
    return result


def estimate(dlcost, path, batch, mode):
    cmd = [dlcost, "estimate", "--onnx", path, "--batch", str(batch), "--mode", mode,
           "--optimizer", "sgd", "--dtype", "fp32", "--json"]
    if mode == "train":
        cmd += ["--zero-grad", "set_to_none", "--optimizer-impl", "for_loop"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main():
    dlcost, onnx_dir = sys.argv[1], sys.argv[2]
    batch = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    names = sys.argv[4:] or ["mnasnet1_0", "shufflenet_v2_x1_0", "convnext_tiny",
                             "tiny_vit_torchvision", "densenet121", "inception_v3"]
    for name in names:
        model = build(name)
        params = sum(p.numel() for p in model.parameters())
        meas = measure(name, batch)
        (_, _, _), (step2, _, phase), _ = [step_peaks(p) for p in meas["sgd"]]
        path = os.path.join(onnx_dir, name + ".onnx")
        train = estimate(dlcost, path, batch, "train")
        infer = estimate(dlcost, path, batch, "infer")
        rows = [("saved", term(train["memory"], "activations"), meas["saved"]),
                ("step2 (sgd)", train["memory"]["total"], step2),
                ("inference", infer["memory"]["total"], meas["infer"])]
        print(f"{name} batch {batch}: params torch {params:,} dlcost {train['params']['total']:,}")
        for label, est, got in rows:
            print(f"  {label:12s} dlcost {est:>14,} measured {got:>14,} {100 * (est - got) / got:+.2f} %")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
