#!/usr/bin/python3
"""Exports torchvision models to ONNX with Debian's python3-torch (1.13) and strips their
weights out of the file, for dlcost's ONNX graph import (tests/fixtures/onnx/*.onnx).

usage: make_onnx_graphs.py OUTDIR [NAME...]
       make_onnx_graphs.py --tiny-blocks OUTFILE   the fuzz seed fuzz/seeds/onnx/tiny_blocks.onnx
       make_onnx_graphs.py --tiny-split OUTFILE    the fuzz seed fuzz/seeds/onnx/tiny_split.onnx:
                                                   chunk, channel shuffle, a channels-last Linear
                                                   without constant folding, x.mean([2, 3])
       make_onnx_graphs.py --tiny-unet OUTFILE     tests/fixtures/onnx/tiny_unet.onnx: a small U-Net
                                                   (conv blocks, max-pool, ConvTranspose, bilinear
                                                   Upsample, skip Concat, LeakyReLU), training mode
       make_onnx_graphs.py --tiny-vit OUTFILE      tests/fixtures/onnx/tiny_vit.onnx: a small ViT
                                                   (patch conv, class token, position embedding,
                                                   attention with Softmax, GELU MLP), default export
       make_onnx_graphs.py --tiny-vit-dynamic OUTFILE
                                                   tests/fixtures/onnx/tiny_vit_dynamic.onnx: the
                                                   same with a symbolic batch (dynamic_axes)
       make_onnx_graphs.py --tiny-vit-torchvision OUTFILE [1]
                                                   tests/fixtures/onnx/tiny_vit_torchvision.onnx:
                                                   torchvision's VisionTransformer (2 blocks,
                                                   width 24, 3 heads), training mode, batch 2;
                                                   with 1: tiny_vit_torchvision_b1.onnx, one
                                                   block at batch 1 (refused)
       make_onnx_graphs.py --tiny-espcn OUTFILE    tests/fixtures/onnx/tiny_espcn.onnx: ESPCN
                                                   super-resolution (Tanh, PixelShuffle as
                                                   DepthToSpace, Sigmoid), training mode
       make_onnx_graphs.py --tiny-style OUTFILE    tests/fixtures/onnx/tiny_style.onnx: a style
                                                   transfer / CycleGAN-style generator
                                                   (reflection and replication Pad,
                                                   InstanceNormalization, nearest Resize,
                                                   ConvTranspose with output_padding), training
       make_onnx_graphs.py --tiny-resize OUTFILE   tests/fixtures/onnx/tiny_resize.onnx: every
                                                   Resize F.interpolate exports, training mode
       make_onnx_graphs.py --tiny-groupnorm OUTFILE
                                                   tests/fixtures/onnx/tiny_groupnorm.onnx: a
                                                   diffusion-style residual block (GroupNorm
                                                   affine and not, SiLU), training mode
       make_onnx_graphs.py --tiny-resnet-eval OUTFILE
                                                   tests/fixtures/onnx/tiny_resnet_eval.onnx: a
                                                   small resnet (conv-BN-ReLU, a residual block,
                                                   Dropout) exported the usual way for inference
                                                   (eval, constant folding): BatchNorm folded
       make_onnx_graphs.py --tiny-refused OUTFILE  tests/fixtures/onnx/tiny_refused.onnx: operators
                                                   dlcost does not model (Softplus, Einsum),
                                                   refused by name
       make_onnx_graphs.py --measure               PyTorch's own figures for the tiny models
                                                   above: parameters, MACs, saved-for-backward
                                                   bytes
       make_onnx_graphs.py --measure-layers        the same for one instancenorm2d, pixel_shuffle,
                                                   pad or bicubic upsample between two 1x1
                                                   convolutions (tests/test_layers_imaging.cpp),
                                                   the norms also of a transposed input

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


# Opset per model where 14 does not do: 17 has LayerNormalization, which a model with
# nn.LayerNorm needs to export as one node (opset 14 spells it out in ReduceMean, Pow, Sqrt).
OPSET = {"convnext_tiny": 17, "vit_b_16": 17}

# Batch per model where 1 does not do: torchvision's ViT runs nn.MultiheadAttention
# sequence-first, and its export merges the batch with the heads ([S, B*H, hd]) and the tokens
# ([S*B, E]) in Reshapes of fixed sizes; at batch 1 those cannot tell where the batch is.
BATCH = {"vit_b_16": 2}

# Image size and constructor arguments per model where 224 and none do not: Inception v3 reads
# 299x299 and is built without its auxiliary head, as dlcost's preset models it.
SIZE = {"inception_v3": 299}
KWARGS = {"inception_v3": {"aux_logits": False, "init_weights": False}}


def constructor_kwargs(name):
    """Keyword arguments of torchvision's constructor for the export and its measured twin."""
    # Stochastic depth draws random numbers in training, which torch.onnx cannot export; at
    # probability 0 it is the identity (torchvision/ops/stochastic_depth.py) and has no
    # parameters, so the count is unchanged.
    extra = ({"stochastic_depth_prob": 0.0} if name.startswith(("efficientnet", "convnext"))
             else {})
    return dict(extra, **KWARGS.get(name, {}))


def export(name, outdir):
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None, **constructor_kwargs(name))
    # Random values everywhere: torch.onnx stores equal initializers once (zero-initialised
    # biases would become Identity nodes of one tensor).
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    model.train()
    buf = io.BytesIO()
    size = SIZE.get(name, 224)
    torch.onnx.export(model, torch.zeros(BATCH.get(name, 1), 3, size, size), buf,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["image"], output_names=["logits"],
                      opset_version=OPSET.get(name, 14))
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


class ConvBlock(torch.nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                         torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True),
                         torch.nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                         torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True))


class TinyUnet(torch.nn.Module):
    """Two levels of a U-Net: one up step by ConvTranspose, one by bilinear Upsample."""

    def __init__(self, c=8):
        super().__init__()
        self.enc1 = ConvBlock(3, c)
        self.pool = torch.nn.MaxPool2d(2)
        self.enc2 = ConvBlock(c, 2 * c)
        self.bott = ConvBlock(2 * c, 4 * c)
        self.up2 = torch.nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.dec2 = ConvBlock(4 * c, 2 * c)
        self.up1 = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.dec1 = ConvBlock(2 * c + c, c)
        self.act = torch.nn.LeakyReLU(0.1)
        self.head = torch.nn.Conv2d(c, 2, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bott(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(self.act(d1))


class Attention(torch.nn.Module):
    """Hugging Face ViTSelfAttention's layout: separate query/key/value, heads split by
    view + permute, scores divided by sqrt(head size)."""

    def __init__(self, d, h):
        super().__init__()
        self.h, self.hd = h, d // h
        self.query, self.key = torch.nn.Linear(d, d), torch.nn.Linear(d, d)
        self.value, self.proj = torch.nn.Linear(d, d), torch.nn.Linear(d, d)

    def split(self, x):
        return x.view(x.shape[0], x.shape[1], self.h, self.hd).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        p = (torch.matmul(q, k.transpose(-1, -2)) / (self.hd ** 0.5)).softmax(-1)
        o = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        return self.proj(o.view(o.shape[0], o.shape[1], -1))


class Block(torch.nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.norm1, self.attn = torch.nn.LayerNorm(d), Attention(d, h)
        self.norm2 = torch.nn.LayerNorm(d)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 2 * d), torch.nn.GELU(),
                                       torch.nn.Linear(2 * d, d))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyVit(torch.nn.Module):
    """A ViT of 16x16 images in 4x4 patches: 16 tokens and a class token, width 32, 4 heads,
    2 blocks, 10 classes."""

    def __init__(self, img=16, patch=4, d=32, depth=2, h=4, classes=10):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, d, patch, stride=patch)
        self.cls_token = torch.nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = torch.nn.Parameter(torch.zeros(1, (img // patch) ** 2 + 1, d))
        self.blocks = torch.nn.Sequential(*[Block(d, h) for _ in range(depth)])
        self.norm = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


class TinyEspcn(torch.nn.Module):
    """ESPCN (Shi et al. 2016, arXiv:1609.05158) for 2x super-resolution, small: 5x5 and 3x3
    convolutions with Tanh, a 3x3 convolution to 3 x 2^2 channels, PixelShuffle (DepthToSpace),
    Sigmoid."""

    def __init__(self, r=2):
        super().__init__()
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 5, padding=2), torch.nn.Tanh(),
            torch.nn.Conv2d(16, 8, 3, padding=1), torch.nn.Tanh(),
            torch.nn.Conv2d(8, 3 * r * r, 3, padding=1), torch.nn.PixelShuffle(r),
            torch.nn.Sigmoid())

    def forward(self, x):
        return self.body(x)


class TinyStyle(torch.nn.Module):
    """A fast style-transfer / image-to-image generator in the layout of pytorch/examples'
    fast_neural_style TransformerNet (Johnson et al. 2016) and CycleGAN's ResNet generator:
    ReflectionPad2d + Conv, InstanceNorm2d (affine and not), ReLU, a residual block, an
    upsampling step by nearest interpolation + reflection-padded conv, a ConvTranspose2d up
    step with output_padding, a ReplicationPad2d, a zero F.pad on one side, Tanh."""

    def __init__(self, c=8):
        super().__init__()
        pad, norm = torch.nn.ReflectionPad2d, torch.nn.InstanceNorm2d
        self.head = torch.nn.Sequential(pad(2), torch.nn.Conv2d(3, c, 5), norm(c, affine=True),
                                        torch.nn.ReLU())
        self.down = torch.nn.Sequential(pad(1), torch.nn.Conv2d(c, 2 * c, 3, stride=2),
                                        norm(2 * c, affine=True), torch.nn.ReLU())
        self.res = torch.nn.Sequential(pad(1), torch.nn.Conv2d(2 * c, 2 * c, 3),
                                       norm(2 * c, affine=True), torch.nn.ReLU(), pad(1),
                                       torch.nn.Conv2d(2 * c, 2 * c, 3), norm(2 * c, affine=True))
        self.up = torch.nn.Sequential(pad(1), torch.nn.Conv2d(2 * c, c, 3), norm(c), torch.nn.ReLU())
        self.up2 = torch.nn.Sequential(
            torch.nn.ConvTranspose2d(c, c, 3, stride=2, padding=1, output_padding=1), norm(c),
            torch.nn.ReLU())
        self.tail = torch.nn.Sequential(torch.nn.ReplicationPad2d((1, 2, 0, 1)),
                                        torch.nn.Conv2d(c, c, 3, stride=2))
        self.out = torch.nn.Conv2d(c, 3, 2)

    def forward(self, x):
        x = self.down(self.head(x))
        x = x + self.res(x)
        x = self.up(torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest"))
        x = self.tail(self.up2(x))
        return torch.tanh(self.out(torch.nn.functional.pad(x, (0, 1, 0, 1))))


class TinyResize(torch.nn.Module):
    """Every Resize torch exports for F.interpolate between 1x1 convolutions (which keep each
    result for backward): bilinear with and without align_corners, bicubic with and without,
    to a size and by a scale below 1, nearest by 3, and area (an AveragePool)."""

    def __init__(self, c=4):
        super().__init__()
        self.convs = torch.nn.ModuleList([torch.nn.Conv2d(3 if k == 0 else c, c, 1)
                                          for k in range(8)])

    def forward(self, x):
        interp = torch.nn.functional.interpolate
        steps = [lambda t: interp(t, scale_factor=2, mode="bilinear", align_corners=True),
                 lambda t: interp(t, scale_factor=2, mode="bilinear", align_corners=False),
                 lambda t: interp(t, scale_factor=0.5, mode="bicubic", align_corners=False),
                 lambda t: interp(t, size=(11, 13), mode="bicubic", align_corners=True),
                 lambda t: interp(t, scale_factor=3, mode="nearest"),
                 lambda t: interp(t, size=(11, 13), mode="area"),
                 lambda t: interp(t, size=(5, 6), mode="bilinear")]
        x = self.convs[0](x)
        for step, conv in zip(steps, self.convs[1:]):
            x = conv(step(x))
        return x


class TinyGroupNorm(torch.nn.Module):
    """A residual block of a diffusion U-Net's layout (GroupNorm, SiLU, conv): GroupNorm with
    and without affine, which torch exports as Reshape, InstanceNormalization, Reshape, Mul,
    Add."""

    def __init__(self, c=8):
        super().__init__()
        self.conv_in = torch.nn.Conv2d(3, c, 3, padding=1)
        self.norm1, self.conv1 = torch.nn.GroupNorm(2, c), torch.nn.Conv2d(c, c, 3, padding=1)
        self.norm2 = torch.nn.GroupNorm(4, c, affine=False)
        self.conv2 = torch.nn.Conv2d(c, c, 3, padding=1)
        self.conv_out = torch.nn.Conv2d(c, 3, 1)

    def forward(self, x):
        x = self.conv_in(x)
        h = self.conv1(torch.nn.functional.silu(self.norm1(x)))
        h = self.conv2(torch.nn.functional.silu(self.norm2(h)))
        return self.conv_out(x + h)


class TinyResNet(torch.nn.Module):
    """resnet18's layout in small (torchvision's names: conv1, bn1, a BasicBlock with conv1,
    bn1, conv2, bn2 and a residual Add, global pool, Dropout, fc), for the eval-mode export
    that folds each BatchNorm into its convolution and drops the Dropout."""

    def __init__(self, c=8, classes=10):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, c, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(c)
        self.relu = torch.nn.ReLU(inplace=True)
        self.block_conv1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.block_bn1 = torch.nn.BatchNorm2d(c)
        self.block_conv2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.block_bn2 = torch.nn.BatchNorm2d(c)
        self.avgpool = torch.nn.AdaptiveAvgPool2d(1)
        self.dropout = torch.nn.Dropout(0.2)
        self.fc = torch.nn.Linear(c, classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.block_bn1(self.block_conv1(x)))
        x = self.relu(self.block_bn2(self.block_conv2(y)) + x)
        return self.fc(self.dropout(torch.flatten(self.avgpool(x), 1)))


class TinyRefused(torch.nn.Module):
    """Operators dlcost does not model: Softplus, Einsum."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = torch.nn.functional.softplus(self.conv(x))
        return torch.einsum("nchw,nchw->nhw", y, y)


def randomized(model):
    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_()
    return model


def write_stripped(path, buf):
    data = strip_model(buf.getvalue())
    with open(path, "wb") as f:
        f.write(data)
    print(path, len(buf.getvalue()), "->", len(data), "bytes")


def tiny_unet(path):
    buf = io.BytesIO()
    torch.onnx.export(randomized(TinyUnet()).train(), torch.zeros(1, 3, 16, 16), buf,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["image"], output_names=["mask"], opset_version=17)
    write_stripped(path, buf)


def tiny_vit(path, dynamic=False):
    # torch.onnx.export's defaults (eval mode, constant folding): the model has no batchnorm
    # or dropout, so its eval graph is its training graph. Opset 17 has LayerNormalization.
    # A symbolic batch keeps the shape arithmetic (Shape, Gather, Concat) in the graph.
    buf = io.BytesIO()
    torch.onnx.export(randomized(TinyVit()).eval(), torch.zeros(1, 3, 16, 16), buf,
                      input_names=["image"], output_names=["logits"], opset_version=17,
                      dynamic_axes={"image": {0: "batch"}} if dynamic else None)
    write_stripped(path, buf)


def tiny_vit_torchvision(path, batch=2):
    """torchvision's VisionTransformer (vit_b_16's code: nn.MultiheadAttention, sequence-first
    inside) at small sizes, exported in training mode at batch 2 (see BATCH); at batch 1 with
    one block, the export dlcost refuses."""
    from torchvision.models.vision_transformer import VisionTransformer
    model = VisionTransformer(**dict(TINY_VIT_TV, **({} if batch > 1 else {"num_layers": 1})))
    buf = io.BytesIO()
    torch.onnx.export(randomized(model).train(), torch.zeros(batch, 3, 32, 32), buf,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["image"], output_names=["logits"], opset_version=17)
    write_stripped(path, buf)


# 32x32 images in 8x8 patches (16 tokens and a class token), width 24, 3 heads, MLP 48, 2 blocks.
TINY_VIT_TV = dict(image_size=32, patch_size=8, num_layers=2, num_heads=3, hidden_dim=24,
                   mlp_dim=48, num_classes=10)


def tiny_refused(path):
    buf = io.BytesIO()
    torch.onnx.export(randomized(TinyRefused()).eval(), torch.zeros(1, 3, 8, 8), buf,
                      input_names=["image"], output_names=["out"], opset_version=17)
    write_stripped(path, buf)


def tiny_resnet_eval(path):
    # The usual export for inference: model.eval() and torch.onnx.export's defaults
    # (constant folding on). Every BatchNorm is folded into the Conv before it and the
    # Dropout is gone; dlcost refuses a training estimate of the result.
    buf = io.BytesIO()
    torch.onnx.export(randomized(TinyResNet()).eval(), torch.zeros(1, 3, 16, 16), buf,
                      input_names=["image"], output_names=["logits"], opset_version=14)
    write_stripped(path, buf)


def saved_bytes(model, x):
    """Bytes autograd saves for backward in one forward: every saved tensor's storage once;
    parameters, buffers (batchnorm's running statistics, which exist anyway) and 0-dim
    wrapped numbers excluded (scripts/validate_torch.py's measure)."""
    params = {p.storage()._storage._cdata for p in list(model.parameters()) + list(model.buffers())}
    seen = {}

    def pack(t):
        s = t.storage()._storage
        if s._cdata not in params and t.dim() > 0:
            seen[s._cdata] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return sum(seen.values())


def macs(model, x):
    """Multiply-accumulates of the convolutions (a transposed one: every input element times
    out/groups x kh x kw weights) and matrix products ATen runs, counted by a dispatch mode."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Count(TorchDispatchMode):
        total = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = func.__name__
            if name.startswith("convolution"):
                Count.total += (args[0] if args[6] else out).numel() * args[1][0].numel()
            elif name.startswith("addmm"):
                Count.total += args[1].shape[0] * args[1].shape[1] * args[2].shape[1]
            elif name.startswith("mm"):
                Count.total += args[0].shape[0] * args[0].shape[1] * args[1].shape[1]
            elif name.startswith("bmm"):
                a, b = args[0], args[1]
                Count.total += a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
            return out

    with Count(), torch.no_grad():
        model(x)
    return Count.total


TINY = {"tiny_unet": TinyUnet, "tiny_vit": TinyVit, "tiny_espcn": TinyEspcn,
        "tiny_style": TinyStyle, "tiny_resize": TinyResize, "tiny_groupnorm": TinyGroupNorm}


def measure():
    for name, cls in TINY.items():
        model = randomized(cls()).train()
        s2 = saved_bytes(model, torch.randn(2, 3, 16, 16))
        s4 = saved_bytes(model, torch.randn(4, 3, 16, 16))
        print(name, "params", sum(p.numel() for p in model.parameters()),
              "macs/sample", macs(model, torch.randn(1, 3, 16, 16)),
              "saved bytes at batch 2", s2, "batch 4", s4, "per sample", (s4 - s2) // 2)


def layer_cases():
    """One layer between a 1x1 convolution (so that it needs a gradient) and a 1x1 convolution
    (which keeps the layer's output), on [4, 6, 6]; and a padding of the model input."""
    nn = torch.nn
    pad = lambda mode, p=(1, 2, 0, 1): lambda x: torch.nn.functional.pad(x, p, mode=mode)

    class Lambda(nn.Module):
        def __init__(self, f):
            super().__init__()
            self.f = f

        def forward(self, x):
            return self.f(x)

    def between(layer, cout):
        return nn.Sequential(nn.Conv2d(4, 4, 1), layer, nn.LazyConv2d(2, 1))

    return {
        "instancenorm2d affine": between(nn.InstanceNorm2d(4, affine=True), 2),
        "instancenorm2d": between(nn.InstanceNorm2d(4), 2),
        "pixel_shuffle 2": between(nn.PixelShuffle(2), 2),
        "pixel_unshuffle 2": between(nn.PixelUnshuffle(2), 2),
        "pad reflect [1, 2, 0, 1]": between(Lambda(pad("reflect")), 2),
        "pad replicate [1, 2, 0, 1]": between(Lambda(pad("replicate")), 2),
        "pad constant [1, 2, 0, 1]": between(Lambda(pad("constant")), 2),
        "upsample bicubic x2 align_corners": between(
            nn.Upsample(scale_factor=2, mode="bicubic", align_corners=True), 2),
        "groupnorm 2 groups": between(nn.GroupNorm(2, 4), 2),
        # The norms of a non-contiguous input (H and W transposed): `input.contiguous()` copies.
        "instancenorm2d of a transposed input": between(
            nn.Sequential(Lambda(lambda x: x.transpose(2, 3)), nn.InstanceNorm2d(4)), 2),
        "instancenorm2d affine of a transposed input": between(
            nn.Sequential(Lambda(lambda x: x.transpose(2, 3)),
                          nn.InstanceNorm2d(4, affine=True)), 2),
        "groupnorm 2 groups of a transposed input": between(
            nn.Sequential(Lambda(lambda x: x.transpose(2, 3)), nn.GroupNorm(2, 4)), 2),
        "reflection pad of the model input": nn.Sequential(nn.ReflectionPad2d(1),
                                                           nn.Conv2d(4, 2, 3)),
    }


def measure_layers():
    for name, model in layer_cases().items():
        model(torch.zeros(1, 4, 6, 6))  # materialises the lazy convolution
        model = randomized(model).train()
        s2 = saved_bytes(model, torch.randn(2, 4, 6, 6))
        s4 = saved_bytes(model, torch.randn(4, 4, 6, 6))
        print(name, "params", sum(p.numel() for p in model.parameters()),
              "saved bytes per sample", (s4 - s2) // 2, "(batch 2:", s2, "batch 4:", s4, ")")


def tiny_training(cls, path):
    """A tiny image model exported at 3x16x16 in training mode at opset 17."""
    buf = io.BytesIO()
    torch.onnx.export(randomized(cls()).train(), torch.zeros(1, 3, 16, 16), buf,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["image"], output_names=["out"], opset_version=17)
    write_stripped(path, buf)


class TinySplit(torch.nn.Module):
    """The operators of shufflenet_v2, MnasNet and ConvNeXt that the bigger fixtures test, small
    enough for a fuzz seed: chunk (Slice), channel shuffle, a Linear over a channels-last
    tensor (its weight's Transpose, exported without constant folding), a constant operand
    first, x.mean([2, 3]) (ReduceMean)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 8)
        self.scale = torch.nn.Parameter(torch.ones(8, 1, 1))

    def forward(self, x):
        a, b = self.conv(x).chunk(2, dim=1)
        x = torch.cat((a, torch.relu(b)), 1)
        x = x.view(x.shape[0], 2, 4, 8, 8).transpose(1, 2).reshape(x.shape[0], 8, 8, 8)
        x = self.scale * self.fc(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
        return x.mean([2, 3])


def tiny_split(path):
    torch.manual_seed(0)
    model = TinySplit().train()
    buf = io.BytesIO()
    torch.onnx.export(model, torch.zeros(1, 3, 8, 8), buf,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      input_names=["image"], output_names=["features"], opset_version=14)
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
    if sys.argv[1] == "--tiny-split":
        tiny_split(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--tiny-blocks":
        tiny_blocks(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--tiny-unet":
        tiny_unet(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--tiny-vit":
        tiny_vit(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--tiny-vit-dynamic":
        tiny_vit(sys.argv[2], dynamic=True)
        sys.exit(0)
    if sys.argv[1] == "--tiny-vit-torchvision":
        tiny_vit_torchvision(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 2)
        sys.exit(0)
    if sys.argv[1] == "--tiny-resnet-eval":
        tiny_resnet_eval(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--tiny-refused":
        tiny_refused(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] in ("--tiny-espcn", "--tiny-style", "--tiny-resize", "--tiny-groupnorm"):
        tiny_training(TINY[sys.argv[1][2:].replace("-", "_")], sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--measure-layers":
        measure_layers()
        sys.exit(0)
    if sys.argv[1] == "--measure":
        measure()
        sys.exit(0)
    for name in sys.argv[2:] or ["resnet18", "mobilenet_v2", "squeezenet1_1", "alexnet", "vgg11",
                                 "mobilenet_v3_small", "efficientnet_b0", "densenet121"]:
        export(name, sys.argv[1])
