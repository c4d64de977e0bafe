#!/usr/bin/python3
"""Exports ONNX files with torch.onnx (Debian's python3-torch 1.13; the onnx package is not
needed to write them) for dlcost's ONNX reader.

usage: make_onnx_files.py --tiny OUTFILE        the tiny CNN of tests/fixtures/onnx/ (and the
                                                fuzz seed): Conv2d(3, 4, 3) + BatchNorm2d(4)
                                                + ReLU + Flatten + Linear(4*6*6, 5), training
                                                mode kept so BatchNormalization keeps its four
                                                initializers
       make_onnx_files.py --torchvision OUTDIR [NAME...]
                                                squeezenet1_1 and alexnet (or the torchvision
                                                models named; random weights, no download) for
                                                the CLI's cross-check against torchvision's
                                                published num_params
"""
import os
import sys

import torch


def tiny(path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
        torch.nn.Flatten(), torch.nn.Linear(4 * 6 * 6, 5))
    torch.onnx.export(model, torch.zeros(1, 3, 8, 8), path,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False,
                      input_names=["input"], output_names=["logits"])


def torchvision_models(outdir):
    import torchvision
    names = sys.argv[3:] or ["squeezenet1_1", "alexnet"]
    for name in names:
        model = getattr(torchvision.models, name)(weights=None).eval()
        # Random values everywhere: torch.onnx stores equal initializers once (squeezenet's
        # zero-initialised biases would become Identity nodes of one tensor).
        torch.manual_seed(0)
        with torch.no_grad():
            for p in model.parameters():
                p.normal_()
        size = 224
        torch.onnx.export(model, torch.zeros(1, 3, size, size), os.path.join(outdir, name + ".onnx"))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("--tiny", "--torchvision"):
        sys.exit(__doc__)
    if sys.argv[1] == "--tiny":
        tiny(sys.argv[2])
    else:
        torchvision_models(sys.argv[2])
