#!/usr/bin/env python3
"""Writes small GGUF and safetensors files with known contents into OUTDIR, for the CLI,
node (cross-check against @huggingface/gguf), browser and fuzz-seed tests.

Layouts from the specifications, not from dlcost: GGUF (ggml docs/gguf.md) key/values and
tensor infos, tensor data aligned to general.alignment; bytes per ggml block from the
static_asserts of ggml/src/ggml-common.h; safetensors (huggingface/safetensors README):
8-byte little-endian header length, JSON header, data. Tensor data is zeros.

usage: make_model_files.py OUTDIR
       make_model_files.py --seeds OUTDIR   small fuzz seeds: headers without their data
"""
import json
import os
import struct
import sys

QK_K = 256
# ggml_type: (enum value, values per block, bytes per block), ggml-common.h.
GGML = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q5_0": (6, 32, 22),
    "Q8_0": (8, 32, 34), "Q2_K": (10, QK_K, 84), "Q3_K": (11, QK_K, 110),
    "Q4_K": (12, QK_K, 144), "Q5_K": (13, QK_K, 176), "Q6_K": (14, QK_K, 210),
    "IQ2_XXS": (16, QK_K, 66), "IQ4_XS": (23, QK_K, 136), "BF16": (30, 1, 2),
    "MXFP4": (39, 32, 17),
}

U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
PACK = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f",
        BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}


def gguf_string(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    if vtype == STRING:
        return gguf_string(value)
    if vtype == ARRAY:
        etype, items = value
        return struct.pack("<IQ", etype, len(items)) + b"".join(gguf_value(etype, v) for v in items)
    return struct.pack(PACK[vtype], value)


def gguf(kvs, tensors, version=3, alignment=32, header_only=False):
    """kvs: [(key, type, value)]; tensors: [(name, dims in ggml order, type name)]."""
    out = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs))
    for key, vtype, value in kvs:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
    offset = 0
    for name, dims, tname in tensors:
        tid, block, size = GGML[tname]
        n = 1
        for d in dims:
            n *= d
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<q", d) for d in dims)
        out += struct.pack("<IQ", tid, offset)
        offset += (n // block * size + alignment - 1) // alignment * alignment
    if header_only:
        return out
    out += b"\0" * (-len(out) % alignment)
    last = tensors[-1] if tensors else None
    data = offset
    if last:  # the file ends at the last tensor's end, without trailing padding
        tid, block, size = GGML[last[2]]
        n = 1
        for d in last[1]:
            n *= d
        data = offset - (n // block * size + alignment - 1) // alignment * alignment + n // block * size
    return out + b"\0" * data


def llama_gguf(vocab=1000, header_only=False):
    h, ff, layers = 256, 768, 2
    kvs = [
        ("general.architecture", STRING, "llama"),
        ("general.name", STRING, "tiny-llama-q4km"),
        ("general.file_type", U32, 15),
        ("general.quantization_version", U32, 2),
        ("llama.context_length", U32, 8192),
        ("llama.embedding_length", U32, h),
        ("llama.block_count", U32, layers),
        ("llama.feed_forward_length", U32, ff),
        ("llama.rope.dimension_count", U32, 64),
        ("llama.attention.head_count", U32, 4),
        ("llama.attention.head_count_kv", U32, 2),
        ("llama.attention.layer_norm_rms_epsilon", F32, 1e-5),
        ("llama.rope.freq_base", F32, 500000.0),
        ("tokenizer.ggml.model", STRING, "gpt2"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, ["tok%d" % i for i in range(vocab)])),
        ("tokenizer.ggml.token_type", ARRAY, (I32, [1] * vocab)),
        ("tokenizer.ggml.bos_token_id", U32, 1),
        ("tokenizer.ggml.add_bos_token", BOOL, True),
        ("test.u8", U8, 200), ("test.i8", I8, -5), ("test.u16", U16, 60000),
        ("test.i16", I16, -30000), ("test.i32", I32, -2000000000),
        ("test.u64", U64, 2 ** 40 + 3), ("test.i64", I64, -(2 ** 40)), ("test.f64", F64, 0.125),
        ("test.short_array", ARRAY, (F32, [0.5, 1.5, 2.5])),
    ]
    tensors = [("token_embd.weight", [h, vocab], "Q4_K")]
    for i in range(layers):
        p = "blk.%d." % i
        tensors += [
            (p + "attn_norm.weight", [h], "F32"),
            (p + "attn_q.weight", [h, h], "Q4_K"),
            (p + "attn_k.weight", [h, 128], "Q4_K"),
            (p + "attn_v.weight", [h, 128], "Q6_K"),
            (p + "attn_output.weight", [h, h], "Q4_K"),
            (p + "ffn_norm.weight", [h], "F32"),
            (p + "ffn_gate.weight", [h, ff], "Q4_K"),
            (p + "ffn_up.weight", [h, ff], "Q4_K"),
            (p + "ffn_down.weight", [ff, h], "Q6_K"),
        ]
    tensors += [("output_norm.weight", [h], "F32"), ("output.weight", [h, vocab], "Q6_K")]
    return gguf(kvs, tensors, header_only=header_only)


def moe_gguf(header_only=False):
    """A Mixtral-like layer: 3-D expert tensors, assorted quantizations, alignment 64, v2."""
    h, ff, experts = 256, 512, 4
    kvs = [
        ("general.architecture", STRING, "llama"),
        ("general.alignment", U32, 64),
        ("llama.context_length", U64, 32768),
        ("llama.embedding_length", U64, h),
        ("llama.block_count", U64, 1),
        ("llama.feed_forward_length", U64, ff),
        ("llama.attention.head_count", U64, 8),
        ("llama.attention.head_count_kv", U64, 8),
        ("llama.expert_count", U32, experts),
        ("llama.expert_used_count", U32, 2),
        ("llama.vocab_size", U32, 512),
    ]
    tensors = [
        ("token_embd.weight", [h, 512], "Q8_0"),
        ("blk.0.attn_q.weight", [h, h], "IQ2_XXS"),
        ("blk.0.attn_k.weight", [h, h], "Q2_K"),
        ("blk.0.attn_v.weight", [h, h], "Q3_K"),
        ("blk.0.attn_output.weight", [h, h], "Q5_K"),
        ("blk.0.ffn_gate_inp.weight", [h, experts], "F16"),
        ("blk.0.ffn_gate_exps.weight", [h, ff, experts], "IQ4_XS"),
        ("blk.0.ffn_up_exps.weight", [h, ff, experts], "Q4_0"),
        ("blk.0.ffn_down_exps.weight", [ff, h, experts], "Q5_0"),
        ("blk.0.attn_norm.weight", [h], "BF16"),
        ("blk.0.ffn_norm.weight", [h], "F32"),
        ("output_norm.weight", [h], "F32"),
        ("output.weight", [h, 512], "MXFP4"),
    ]
    return gguf(kvs, tensors, version=2, alignment=64, header_only=header_only)


def safetensors(tensors, metadata=None):
    """tensors: [(name, dtype, shape, bytes per value)] in data order."""
    header = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset = 0
    for name, dtype, shape, width in tensors:
        n = 1
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n * width]}
        offset += n * width
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the library pads the header to 8 bytes with spaces
    return struct.pack("<Q", len(text)) + text + b"\0" * offset


def seeds(out):
    os.makedirs(os.path.join(out, "gguf"), exist_ok=True)
    os.makedirs(os.path.join(out, "safetensors"), exist_ok=True)
    # Headers alone: the fuzz targets also read each input as the start of a longer file.
    for name, data in {"llama.gguf": llama_gguf(vocab=20, header_only=True),
                       "moe.gguf": moe_gguf(header_only=True)}.items():
        with open(os.path.join(out, "gguf", name), "wb") as f:
            f.write(data)
    st = safetensors([("a", "BF16", [4, 2], 2), ("b", "U8", [2, 2], 1), ("c", "F32", [3], 4)],
                     {"format": "pt"})
    index = json.dumps({"metadata": {"total_size": 40},
                        "weight_map": {"a": "m-1.safetensors", "b": "m-2.safetensors"}})
    for name, data in {"small.safetensors": st, "index.json": index.encode()}.items():
        with open(os.path.join(out, "safetensors", name), "wb") as f:
            f.write(data)


def main():
    if sys.argv[1] == "--seeds":
        seeds(sys.argv[2])
        return
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        "tiny-llama-q4km.gguf": llama_gguf(),
        "tiny-moe.gguf": moe_gguf(),
        "tiny-bf16.safetensors": safetensors(
            [("model.embed_tokens.weight", "BF16", [1000, 64], 2),
             ("model.layers.0.self_attn.q_proj.weight", "BF16", [64, 64], 2),
             ("model.layers.0.input_layernorm.weight", "F32", [64], 4),
             ("lm_head.weight", "F8_E4M3", [1000, 64], 1)],
            {"format": "pt"}),
        "model.safetensors.index.json": json.dumps({
            "metadata": {"total_size": 262400},
            "weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors",
                           "model.layers.0.self_attn.q_proj.weight": "model-00001-of-00002.safetensors",
                           "lm_head.weight": "model-00002-of-00002.safetensors"}},
            indent=2).encode("utf-8"),
    }
    # A sharded checkpoint: two shards and their index, in a folder of its own.
    shard1 = [("model.embed_tokens.weight", "BF16", [1000, 64], 2),
              ("model.norm.weight", "F32", [64], 4)]
    shard2 = [("lm_head.weight", "BF16", [1000, 64], 2)]
    files["sharded/model-00001-of-00002.safetensors"] = safetensors(shard1, {"format": "pt"})
    files["sharded/model-00002-of-00002.safetensors"] = safetensors(shard2, {"format": "pt"})
    files["sharded/model.safetensors.index.json"] = json.dumps({
        "metadata": {"total_size": 128000 + 256 + 128000},
        "weight_map": {name: "model-00001-of-00002.safetensors" for name, *_ in shard1}
        | {name: "model-00002-of-00002.safetensors" for name, *_ in shard2}}).encode("utf-8")
    os.makedirs(os.path.join(out, "sharded"), exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
