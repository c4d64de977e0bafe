"""A ViT-S/16 for the measuring harness: torchvision has no ViT-S and dlcost has no ViT
preset, so the harness builds this one in plain PyTorch and gives dlcost the same model as an
ONNX export (`dlcost estimate --onnx`).

The layout is Hugging Face's ViT (ViTSelfAttention: separate query / key / value, heads split
by view + permute, scores divided by sqrt(head size)), as tests/model_files/make_onnx_graphs.py's
TinyVit, at ViT-S/16's sizes (Touvron et al. 2021, DeiT-S: 224x224 images in 16x16 patches,
width 384, 6 heads, 12 blocks, MLP 4 x width; 22,050,664 parameters with 1000 classes). The
class token and position embedding are fp32 parameters, so under autocast the residual
stream stays fp32.
"""
import io
import os
import tempfile

import torch
import torch.nn as nn

IMAGE = (3, 224, 224)


class Attention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h, self.hd = h, d // h
        self.query, self.key = nn.Linear(d, d), nn.Linear(d, d)
        self.value, self.proj = nn.Linear(d, d), nn.Linear(d, d)

    def split(self, x):
        return x.view(x.shape[0], x.shape[1], self.h, self.hd).permute(0, 2, 1, 3)

    def forward(self, x):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        p = (torch.matmul(q, k.transpose(-1, -2)) / (self.hd ** 0.5)).softmax(-1)
        o = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        return self.proj(o.view(o.shape[0], o.shape[1], -1))


class Block(nn.Module):
    def __init__(self, d, h, mlp):
        super().__init__()
        self.norm1, self.attn = nn.LayerNorm(d), Attention(d, h)
        self.norm2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, mlp), nn.GELU(), nn.Linear(mlp, d))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class VitS16(nn.Module):
    def __init__(self, img=224, patch=16, d=384, depth=12, h=6, mlp=1536, classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.zeros(1, (img // patch) ** 2 + 1, d))
        self.blocks = nn.Sequential(*[Block(d, h, mlp) for _ in range(depth)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], 1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


def onnx_path():
    """Exports VitS16 once (torch.onnx.export's defaults: the model has no batchnorm or
    dropout, so its eval graph is its training graph; opset 17 has LayerNormalization) and
    returns the file, which dlcost reads with --onnx."""
    path = os.path.join(tempfile.gettempdir(), "dlcost_vit_s16.onnx")
    if not os.path.exists(path):
        buf = io.BytesIO()
        torch.onnx.export(VitS16().eval(), torch.zeros(1, *IMAGE), buf, input_names=["image"],
                          output_names=["logits"], opset_version=17)
        with open(path, "wb") as f:
            f.write(buf.getvalue())
    return path


def torchvision_onnx_path():
    """torchvision's vit_b_16 exported once as tests/model_files/make_onnx_graphs.py exports it
    (training mode, no constant folding, opset 17, batch 2: its nn.MultiheadAttention merges
    the batch into Reshapes of fixed sizes, which batch 1 leaves ambiguous), weights stripped
    (dlcost reads dims only); returns the file."""
    import sys
    path = os.path.join(tempfile.gettempdir(), "dlcost_vit_b_16_train.onnx")
    if not os.path.exists(path):
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "model_files"))
        from make_onnx_graphs import export
        export("vit_b_16", tempfile.gettempdir())
        os.replace(os.path.join(tempfile.gettempdir(), "vit_b_16.onnx"), path)
    return path


def write_fixture(path):
    """The same export with its weights stripped (tests/model_files/make_onnx_graphs.py's
    strip_model), for the Catch2 suites: tests/fixtures/onnx/vit_s16.onnx."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "model_files"))
    from make_onnx_graphs import strip_model
    with open(onnx_path(), "rb") as f:
        data = strip_model(f.read())
    with open(path, "wb") as f:
        f.write(data)
    print(path, len(data), "bytes")


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 3 or sys.argv[1] != "--fixture":
        sys.exit("usage: /usr/bin/python3 scripts/validate_vit.py --fixture OUT.onnx")
    write_fixture(sys.argv[2])
