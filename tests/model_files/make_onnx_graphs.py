#!/usr/bin/python3
"""Exports torchvision models to ONNX with Debian's python3-torch (1.13) and strips their
weights out of the file, for dlcost's ONNX graph import (tests/fixtures/onnx/*.onnx).

usage: make_onnx_graphs.py OUTDIR [NAME...]
       make_onnx_graphs.py --tiny-blocks OUTFILE   the fuzz seed fuzz/seeds/onnx/tiny_blocks.onnx
       make_onnx_graphs.py --tiny-unet OUTFILE     tests/fixtures/onnx/tiny_unet.onnx: a U-Net step
                                                   (ConvTranspose, Upsample, LeakyReLU) that dlcost
                                                   refuses, naming the operators

Each model is exported at 3x224x224 in training mode (torch.onnx.TrainingMode.TRAINING), as it
is trained: BatchNormalization stays a node with its four initializers (an eval-mode export
folds it into the preceding Conv, which changes the parameter count) and Dropout stays.
Every initializer of more than 64 values then becomes an external tensor: its data is removed
and data_location is EXTERNAL (ONNX's external-data form, location "stripped"), so dims and
type remain and the file is a few tens of kilobytes. The weights file is not written: dlcost
reads dims, never data. The protobuf is rewritten here with a few lines of wire-format code
(Debian has no python3-onnx).
"""
import io
import os
import sys

import torch
import torchvision


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_varint(buf, pos):
    shift = value = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, pos


def fields(buf):
    """(number, wire, raw bytes of the whole field, payload) for each field of a message."""
    pos = 0
    while pos < len(buf):
        start = pos
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = read_varint(buf, pos)
            payload = None
        elif wire == 1:
            pos += 8
            payload = None
        elif wire == 5:
            pos += 4
            payload = None
        elif wire == 2:
            length, pos = read_varint(buf, pos)
            payload = buf[pos:pos + length]
            pos += length
        else:
            raise ValueError("wire type %d" % wire)
        yield number, wire, buf[start:pos], payload


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def strip_tensor(t):
    dims = []
    for number, wire, raw, payload in fields(t):
        if number == 1:
            if wire == 0:
                dims.append(read_varint(raw, len(varint(1 << 3)))[0])
            else:
                p = 0
                while p < len(payload):
                    d, p = read_varint(payload, p)
                    dims.append(d)
    elements = 1
    for d in dims:
        elements *= d
    if elements <= 64:
        return t
    kept = b"".join(raw for number, _, raw, _ in fields(t) if number not in (4, 5, 7, 9, 10, 11, 13, 14))
    entry = lambda k, v: field(13, field(1, k.encode()) + field(2, v.encode()))
    return kept + entry("location", "stripped") + varint(14 << 3) + varint(1)


def strip_graph(g):
    out = bytearray()
    for number, _, raw, payload in fields(g):
        out += field(5, strip_tensor(payload)) if number == 5 else raw
    return bytes(out)


def strip_model(m):
    out = bytearray()
    for number, _, raw, payload in fields(m):
        out += field(7, strip_graph(payload)) if number == 7 else raw
    return bytes(out)


def export(name, outdir):
    torch.manual_seed(0)
    # Stochastic depth draws random numbers in training, which torch.onnx cannot export; at
    # probability 0 it is the identity (torchvision/ops/stochastic_depth.py) and has no
    # parameters, so the count is unchanged.
    extra = {"stochastic_depth_prob": 0.0} if name.startswith("efficientnet") else {}
    model = getattr(torchvision.models, name)(weights=None, **extra)
    # Random values everywhere: torch.onnx stores equal initializers once (zero-initialised
    # biases would become Identity nodes of one tensor).
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    model.train()
    buf = io.BytesIO()
    torch.onnx.export(model, torch.zeros(1, 3, 224, 224), buf,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["image"], output_names=["logits"], opset_version=14)
    data = strip_model(buf.getvalue())
    with open(os.path.join(outdir, name + ".onnx"), "wb") as f:
        f.write(data)
    print(name, len(buf.getvalue()), "->", len(data), "bytes")


class TinyBlocks(torch.nn.Module):
    """One of each pattern the graph import reads, small enough for a fuzz seed (< 8 KiB)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1, bias=False)
        self.bn = torch.nn.BatchNorm2d(4)
        self.pool = torch.nn.MaxPool2d(2)
        self.branch = torch.nn.Conv2d(4, 4, 1)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        x = torch.nn.functional.silu(self.bn(self.conv(x)))
        x = self.pool(x)
        x = x + self.branch(x)
        x = torch.cat([x, torch.nn.functional.hardswish(x)], 1)
        x = torch.flatten(torch.nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return torch.softmax(self.fc(torch.nn.functional.dropout(x, 0.1, self.training)), -1)


class TinyUnet(torch.nn.Module):
    """Operators without a layer in dlcost's schema: ConvTranspose, Resize, LeakyRelu."""

    def __init__(self):
        super().__init__()
        self.down = torch.nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.up = torch.nn.ConvTranspose2d(4, 4, 2, stride=2)
        self.out = torch.nn.Conv2d(8, 2, 1)

    def forward(self, x):
        d = torch.nn.functional.leaky_relu(self.down(x))
        u = self.up(d)
        s = torch.nn.functional.interpolate(d, scale_factor=2.0, mode="nearest")
        return self.out(torch.cat([u, s], 1))


def tiny_unet(path):
    torch.manual_seed(0)
    buf = io.BytesIO()
    torch.onnx.export(TinyUnet().eval(), torch.zeros(1, 3, 8, 8), buf, input_names=["image"],
                      output_names=["mask"], opset_version=14)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    print(path, len(buf.getvalue()), "bytes")


def tiny_blocks(path):
    torch.manual_seed(0)
    model = TinyBlocks().train()
    buf = io.BytesIO()
    torch.onnx.export(model, torch.zeros(1, 3, 8, 8), buf,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["image"], output_names=["probs"], opset_version=13)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    print(path, len(buf.getvalue()), "bytes")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--tiny-blocks":
        tiny_blocks(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--tiny-unet":
        tiny_unet(sys.argv[2])
        sys.exit(0)
    for name in sys.argv[2:] or ["resnet18", "mobilenet_v2", "squeezenet1_1", "alexnet", "vgg11",
                                 "mobilenet_v3_small", "efficientnet_b0", "densenet121"]:
        export(name, sys.argv[1])
