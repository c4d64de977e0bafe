#!/usr/bin/env python3
"""Calibration harness for dlcost's speed figures (issue #32, "Calibrated, not tuned").

For every measurement in tests/fixtures/speed/speed-calibration.json (published llama-bench
speeds, vLLM/SGLang KV-cache sizes, TensorRT-LLM / gpt-fast serving figures, multi-GPU training
throughput; tests/fixtures/speed/SOURCES.md), builds the `dlcost estimate` command of that setup
(model, GPU, engine, precision/quantization, batch, lengths, GPUs and layout), runs it with
--json, reads the matching figure and compares it with the measurement. Prints ONE table: per
kind of measurement, device family and engine, the points run, those within the issue's bounds,
the median error and the worst point; then the points that cannot run, grouped by reason.

    python3 scripts/calibrate_speed.py [--dlcost build/dlcost] [--json] [--check] [--write-docs]
                                       [--fit]

  --json        per-point residuals (measured, estimate, error, commands, reason) as JSON
  --check       exit 1 only when a point that produced a figure at the last --write-docs
                (tests/fixtures/speed/baseline.json) now errors or gives none; a benchmark,
                not an accuracy test
  --write-docs  rewrite the section of docs/accuracy.md between the markers below, and the
                baseline of --check

  --fit         fit the time model's parameters (core/hardware/time_params.json: per device
                family and engine, never per model or row) by least squares on
                log(estimate / measured), running dlcost with trial values
                (DLCOST_TIME_PARAMS); writes the file with the residual ranges, prints the
                parameters and the table before and after. Rebuild dlcost to embed them.

dlcost runs with the parameters of core/hardware/time_params.json (passed as
DLCOST_TIME_PARAMS, so a fit is checked before the rebuild that embeds it) and the setup's own
fields. Where dlcost has no engine of the row's kind, the row runs through a proxy engine named
in the table (ENGINES).
"""
import argparse
import atexit
import concurrent.futures
import functools
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DATA = "tests/fixtures/speed/speed-calibration.json"
MODELS = "tests/fixtures/speed/models"
BASELINE = "tests/fixtures/speed/baseline.json"
TIME_PARAMS = "core/hardware/time_params.json"
DOC = "docs/accuracy.md"
BEGIN = "<!-- speed-calibration: written by scripts/calibrate_speed.py -->"
END = "<!-- /speed-calibration -->"
GIB = 2**30

# Issue #32's bounds on |estimate / measured - 1| per kind of measurement. Serving latency (time
# to first token) has no bound of its own in the issue; it takes serving throughput's.
BOUNDS = {"decode": 0.20, "prefill": 0.20, "kv_capacity": 0.03, "serving_throughput": 0.25,
          "serving_latency": 0.25, "training": 0.15}

# Why a point cannot run (the headings of the list under the table).
GPU_MISSING = "GPU missing from dlcost"
GPU_UNSTATED = "GPU variant not stated"
MODEL_MISSING = "model missing (no preset; its config.json is not known exactly)"
FAMILY_MISSING = "model family not read by dlcost"
ENGINE_OPTION = "engine option missing"
LAYOUT_OPTION = "parallel layout option missing"
SETUP_UNSTATED = "setup not stated"
NOT_A_STEP = "not a speed of one setup"
NOT_RELEASED = "unreleased build"
REFUSED = "dlcost refuses the setup"
NO_FIGURE = "dlcost gives no figure"
IMPOSSIBLE = "measured beyond the device's physical limit"


class Skip(Exception):
    """A point that cannot run: a reason (one of the headings above) and a detail."""

    def __init__(self, reason, detail):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


# The row's device text (first match wins) -> dlcost GPU id, or why not.
GPUS = [
    (r"RTX 4090", "rtx-4090"),
    (r"RTX 3090", "rtx-3090"),
    (r"RTX 3060 12GB", "rtx-3060-12gb"),
    (r"RTX A6000", "rtx-a6000"),
    (r"RTX 3070", "rtx-3070"),
    (r"RTX 3080 Ti", "rtx-3080-ti"),
    (r"RTX 5000 Ada", "rtx-5000-ada"),
    (r"RTX PRO 6000 Blackwell", "rtx-pro-6000-blackwell"),
    (r"A100 80GB PCIe", "a100-pcie-80gb"),
    (r"PCIe or SXM not stated|A100 \(memory size not stated\)|^NVIDIA A100$",
     Skip(GPU_UNSTATED, "A100 (40/80 GB, PCIe/SXM)")),
    (r"A100-SXM4-80GB|A100-SXM 80GB|A100 80GB", "a100-sxm4-80gb"),
    (r"A100 40GB", "a100-sxm4-40gb"),
    # Meta's 96 GB HBM2e H100 at 500 W has no NVIDIA datasheet; the table's 96 GB part is the
    # H100 NVL (94 GB HBM3, 3.9 TB/s, `h100-nvl`), another memory and bandwidth.
    (r"H100 96GB", Skip(GPU_MISSING, "H100 96GB HBM2e (500 W; not the H100 NVL)")),
    (r"H100 NVL", "h100-nvl"),
    (r"RTX 4000 Ada", "rtx-4000-ada"),
    (r"H100", "h100-sxm"),  # 80 GB H100s; the rows' logs and node types are SXM (HBM3)
    (r"H200", "h200"),
    (r"GB200", "gb200"),
    (r"B200", "b200"),
    (r"L40S", "l40s"),
    (r"GB10", "nvidia-gb10-128gb"),
    (r"MI250X", "mi250x"),
    (r"Apple M1 Max 32-core", "apple-m1-max-32gb"),
    (r"Apple M1 Max 24-core", "apple-m1-max-24c-32gb"),
    (r"Apple M1 7-core", "apple-m1-8gb"),
    (r"Apple M2 8-core", "apple-m2-8gb"),
    (r"Apple M2 10-core", "apple-m2-16gb"),
    (r"Apple M2 Pro 19-core", "apple-m2-pro-32gb"),
    (r"Apple M2 Max 38-core", "apple-m2-max-96gb"),
    (r"Apple M4 Max 32-core", "apple-m4-max-32c-36gb"),
    (r"Apple M4 Max 40-core", "apple-m4-max-128gb"),
]

# dlcost GPU id prefix -> device family (the table's second column).
FAMILIES = [("apple-", "Apple silicon"), ("nvidia-gb10", "NVIDIA GB10"), ("mi", "AMD Instinct"),
            ("rtx-", "NVIDIA RTX"), ("", "NVIDIA datacenter")]

# The row's model text (first match wins) -> how dlcost is given the model, or why not.
MODEL_TABLE = [
    (r"^Llama-3-8B$", ["--preset", "llama-3-8b"]),
    (r"^Llama-3-70B$", ["--preset", "llama-3-70b"]),
    # The TensorRT-LLM methodology names Llama-2 engines for "LLaMA 7B/70B"; llama.cpp's
    # "LLaMA 7B" (PR #4766) has Llama 2 7B's shapes.
    (r"Llama-2-7B$|Llama-2-7B \(|^LLaMA 7B$", ["--preset", "llama-2-7b"]),
    (r"^LLaMA 70B$|^LLAMA2-70B$", ["--preset", "llama-2-70b"]),
    # gpt-fast's speculative row states no acceptance rate, which dlcost's --draft-acceptance
    # needs (it depends on the prompts): the figure cannot be computed from the setup.
    (r"verifier", Skip(SETUP_UNSTATED, "speculative decoding's acceptance rate")),
    (r"gpt-oss-20b", ["--preset", "gpt-oss-20b"]),
    (r"gemma-3-4b-it", ["--preset", "gemma-3-4b-it"]),
    (r"google/gemma-2-9b-it", ["--preset", "gemma-2-9b"]),
    (r"microsoft/phi-2", ["--preset", "phi-2"]),
    (r"Mixtral-8x7B-Instruct-v0.1", ["--preset", "mixtral-8x7b"]),
    (r"^Qwen/Qwen3-8B$", ["--preset", "qwen3-8b"]),
    (r"^Llama 3\.1 8B$|Meta-Llama-3\.1-8B-Instruct", ["--preset", "llama-3.1-8b"]),
    (r"^GPT-2 350M", ["--preset", "gpt2-medium"]),
    (r"^GPT-2 774M", ["--preset", "gpt2-large"]),
    (r"^GPT-2 1558M", ["--preset", "gpt2-xl"]),
    (r"^GPT-J 6B$", ["tests/fixtures/hf-configs/gpt-j-6b.json"]),
    (r"^Falcon 180B$", [f"{MODELS}/falcon-180b.json"]),
    (r"^Llama 3\.3 70B$", [f"{MODELS}/llama-3.3-70b.json"]),
    (r"^Llama 3\.1 405B$", [f"{MODELS}/llama-3.1-405b.json"]),
    (r"codellama/CodeLlama-7b-hf", [f"{MODELS}/codellama-7b-hf.json"]),
    (r"^Qwen/Qwen3-32B$", [f"{MODELS}/qwen3-32b.json"]),
    (r"Qwen3-235B-A22B", [f"{MODELS}/qwen3-235b-a22b.json"]),
    (r"Qwen2\.5-7B-Instruct", [f"{MODELS}/qwen2.5-7b-instruct.json"]),
    (r"^BLOOM 176B", [f"{MODELS}/bloom-176b.json"]),
    (r"^Nemotron-", Skip(FAMILY_MISSING, "nemotron (NeMo's Nemotron)")),
    (r"granite", Skip(FAMILY_MISSING, "granite")),
    (r"Llama-4-Scout", Skip(FAMILY_MISSING, "llama4")),
    (r"Kimi-VL", Skip(FAMILY_MISSING, "kimi_vl")),
    (r"Kimi-Dev-72B", Skip(MODEL_MISSING, "Kimi-Dev-72B")),
    (r"gemma-3-12b-it", ["--preset", "gemma-3-12b"]),
    (r"Mistral-Small-3\.1-24B", ["tests/fixtures/hf-configs/mistral-small-3-24b.json"]),
    (r"^Llama 3\.1 70B$", Skip(MODEL_MISSING, "Llama 3.1 70B")),
]

# The row's engine -> (dlcost --engine, proxy). dlcost has no gpt-fast engine; it runs CUDA
# graphs over a static KV cache, so its rows run as vLLM, and the table names them
# "gpt-fast (as vllm)".
ENGINES = {"llama.cpp": ("llamacpp", False), "vLLM": ("vllm", False), "SGLang": ("sglang", False),
           "TensorRT-LLM": ("trtllm", False), "gpt-fast": ("vllm", True)}

# Serving rows' precision text (first match wins) -> flags, and the approximation made if any.
PER_CHANNEL = "1048576"  # a group wider than any matrix row: one scale per output channel
PRECISIONS = [
    (r"FP8 KV cache", ["--dtype", "fp16", "--quant", "fp8-tensor", "--gpu-dtype", "fp8",
                       "--kv-dtype", "fp8"], None),
    (r"^FP8$", ["--dtype", "bf16", "--quant", "fp8-tensor", "--gpu-dtype", "fp8"], None),
    (r"^FP4$", ["--dtype", "bf16", "--quant", "nvfp4", "--gpu-dtype", "fp8"],
     "FP4 math at dlcost's FP8 rate (it has no FP4 rate)"),
    (r"^FP16$", ["--dtype", "fp16"], None),
    (r"^bf16", ["--dtype", "bf16"], None),
    (r"^int8 weight-only", ["--dtype", "bf16", "--weight-dtype", "int8",
                            "--quant-group-size", PER_CHANNEL], None),
    (r"^int4 weight-only \(group 32\)", ["--dtype", "bf16", "--weight-dtype", "int4",
                                         "--quant-group-size", "32"], None),
]

# KV-capacity rows' quantization -> flags (vLLM's compressed-tensors W8A8: int8 weights with a
# scale per output channel).
KV_QUANT = {None: [], "mxfp4": ["--quant", "mxfp4"],
            "compressed-tensors": ["--weight-dtype", "int8", "--quant-group-size", PER_CHANNEL]}

# llama.cpp rows' GGUF type -> dlcost's --gguf-type (llama-quantize's name for the file type;
# "MXFP4 (MoE)" is LLAMA_FTYPE_MOSTLY_MXFP4_MOE, named "MXFP4_MOE" by llama-quantize).
GGUF_TYPES = {"Q4_K_M": "Q4_K_M", "Q4_0": "Q4_0", "Q8_0": "Q8_0", "F16": "F16",
              "MXFP4 (MoE)": "MXFP4_MOE"}
LLAMA_TEST = re.compile(r"^(?:(?P<quant>F16|Q4_0)_)?(?P<op>pp|tg)(?P<n>\d+)(?:@d(?P<depth>\d+))?"
                        r"(?:_fa(?P<fa>[01]))?(?:_(?P<build>master|branch))?$")
LLAMA_BATCHED = re.compile(r"^batched_bench_PP(?P<pp>\d+)_TG(?P<tg>\d+)_B(?P<b>\d+)_S_TG$")

# Training rows: activation checkpointing -> --recompute.
RECOMPUTE = {True: "full", "full": "full", "selective": "selective", False: "none", None: "none"}


def first_match(table, text, what):
    for pattern, value, *rest in table:
        if re.search(pattern, text or ""):
            if isinstance(value, Skip):
                raise value
            return (value, *rest) if rest else value
    raise Skip(GPU_MISSING if what == "GPU" else MODEL_MISSING, text)


def gpu_id(text):
    return first_match(GPUS, text, "GPU")


def family(gpu):
    return next(name for prefix, name in FAMILIES if gpu.startswith(prefix))


# Vision-language models among the calibration set's llama.cpp rows.
VLM = re.compile(r"gemma-3-(4b|12b|27b)")


def model_args(text):
    return list(first_match(MODEL_TABLE, text, "model"))


# llm-foundry's training rows: "MPT-<size> (llm-foundry yaml; <N> params at this seq len)".
MPT_ROW = re.compile(r"^MPT-(?P<size>\w+) \(llm-foundry yaml; (?P<params>[\d,]+) params at this "
                     r"seq len\)$")
# The model section of llm-foundry's scripts/train/yamls/pretrain/mpt-<size>.yaml at commit
# 495218376830947dce625efabc4d86be7c47cc45 (the commit of scripts/train/benchmarking/README.md,
# whose table the rows are): size -> (d_model, n_heads, n_layers). Every yaml also sets
# expansion_ratio 4, vocab_size 50368, max_seq_len ${max_seq_len} (the run's) and
# attn_config.attn_impl flash, and nothing else, so the rest is MPTConfig's defaults
# (llmfoundry/models/mpt/configuration_mpt.py): learned_pos_emb true, no_bias false,
# attn_config.alibi false, norm_type low_precision_layernorm, ffn_type mptmlp, tied wte.
MPT_YAMLS = {"125m": (768, 12, 12), "350m": (1024, 16, 24), "760m": (1536, 12, 24),
             "1b": (2048, 16, 24), "3b": (2560, 20, 32), "7b": (4096, 32, 32),
             "13b": (5120, 40, 40), "30b": (7168, 56, 48), "70b": (8192, 64, 80)}
MPT_DIR = []  # the temporary directory of the generated config.json files, made on first use


@atexit.register
def remove_mpt_configs():
    for d in MPT_DIR:
        for name in os.listdir(d):
            os.remove(os.path.join(d, name))
        os.rmdir(d)


def mpt_model(text, seq):
    """(dlcost's model arguments, the row's parameter count) for an llm-foundry MPT row, or None
    for any other row: the config.json MPTConfig writes for the yaml at max_seq_len `seq`
    (its learned positions make the count depend on it), in a temporary directory."""
    m = MPT_ROW.match(text or "")
    if not m:
        return None
    if m["size"] not in MPT_YAMLS:
        raise Skip(MODEL_MISSING, f"MPT-{m['size']} (no llm-foundry yaml of that size)")
    d_model, heads, layers = MPT_YAMLS[m["size"]]
    config = {"architectures": ["MPTForCausalLM"], "model_type": "mpt", "d_model": d_model,
              "n_heads": heads, "n_layers": layers, "expansion_ratio": 4, "max_seq_len": seq,
              "vocab_size": 50368, "learned_pos_emb": True, "no_bias": False,
              "norm_type": "low_precision_layernorm",
              "attn_config": {"attn_type": "multihead_attention", "attn_impl": "flash",
                              "alibi": False, "rope": False},
              "ffn_config": {"ffn_type": "mptmlp"}, "tie_word_embeddings": True}
    if not MPT_DIR:
        MPT_DIR.append(tempfile.mkdtemp(prefix="dlcost-mpt-"))
    path = os.path.join(MPT_DIR[0], f"mpt-{m['size']}-seq{seq}.json")
    if not os.path.exists(path):
        with open(path, "w") as f:
            json.dump(config, f, indent=1)
    return [path], int(m["params"].replace(",", ""))


def checked_params(report, expected, what):
    """report, after checking that dlcost counts the parameters the row states."""
    total = report["params"]["total"]
    if total != expected:
        raise Skip(REFUSED, f"{what}: dlcost counts {total:,} parameters, the row {expected:,}")
    return report


def engine_of(text):
    for name, (engine, proxy) in ENGINES.items():
        if (text or "").startswith(name):
            return name, engine, proxy
    raise Skip(ENGINE_OPTION, f"engine {text}")


def flags(**kw):
    """--key value flags from keyword arguments (underscores become dashes), skipping None."""
    out = []
    for key, value in kw.items():
        if value is not None:
            out += [f"--{key.replace('_', '-')}", str(value)]
    return out


class Point:
    """One measured figure of a row and how dlcost computes it."""

    def __init__(self, row, test, kind, engine, measured, unit):
        self.row, self.test, self.kind, self.engine = row, test, kind, engine
        self.measured, self.unit = measured, unit
        self.gpu = ""
        self.compute = None  # compute(run) -> figure
        self.skip = None
        self.notes = []
        self.estimate = None
        self.commands = []

    @property
    def key(self):
        return f"{self.row}/{self.test}"

    def error(self):
        return self.estimate / self.measured - 1 if self.estimate is not None else None


def make_point(point, build):
    """point with point.compute set by build(point), or point.skip set by the Skip it raised."""
    try:
        build(point)
    except Skip as s:
        point.skip = s
    return point


# ---- readers: which field of the JSON report each kind reads --------------------------------

def read_decode(report):
    # serving.speed.tokens_per_s: the decode step of `users` sequences at the plan's context,
    # every user's tokens together
    return report["serving"]["speed"]["tokens_per_s"]


def read_prefill(report, prompt):
    # serving.speed.ttft_s: one user's prefill of the prompt (time to first token)
    ttft = report["serving"]["speed"]["ttft_s"]
    return prompt / ttft if ttft else None


def read_ttft_ms(report):
    ttft = report["serving"]["speed"]["ttft_s"]
    return ttft * 1000 if ttft else None


def read_kv_tokens(report):
    # serving.paged.kv_tokens: num_blocks x block_size (vLLM's "GPU KV cache size", SGLang's
    # "#tokens")
    return report["serving"]["paged"]["kv_tokens"]


def read_kv_gib(report):
    # serving.device.terms[kv_cache].bytes: the KV pool on one GPU (vLLM's "Available KV cache
    # memory")
    terms = report["serving"]["device"]["terms"]
    return sum(t["bytes"] for t in terms if t["key"] == "kv_cache") / GIB


def read_training(report, seq_len, gpus):
    # gpu_fit.samples_per_s: the global batch over one optimizer step (gpu_fit.step_time_s)
    return report["gpu_fit"]["samples_per_s"] * seq_len / gpus


def e2e_output_tokens_per_s(run, base, users, prompt, output):
    """Output tokens/s of `users` requests of `prompt` in and `output` out: the batch's prefill
    (serving.speed.batch_prefill_s: every user's prompt in one forward) and `output` decode
    steps of all users at the mean context (serving.speed.itl_s at prompt + output/2)."""
    report = run(base + flags(users=users, batch=users, prompt_tokens=prompt,
                              generated_tokens=output // 2))
    prefill_s = report["serving"]["speed"]["batch_prefill_s"]
    itl_s = report["serving"]["speed"]["itl_s"]
    return users * output / (prefill_s + output * itl_s)


def max_users(run, base, prompt, output):
    # serving.max_users: the sequences of prompt + output tokens the plan's KV pool holds
    return run(base + flags(prompt_tokens=prompt, generated_tokens=output))["serving"]["max_users"]


# ---- llama.cpp rows (llama-bench) -------------------------------------------------------------

def llama_device(row):
    hw = row["hardware"]
    return hw.get("gpu") or f"{hw.get('chip')} {hw.get('gpu_cores')}-core"


def llama_base(row, quant, fa):
    gguf = GGUF_TYPES.get(quant or row["quant"])
    if gguf is None:
        raise Skip(ENGINE_OPTION, f"GGUF type {quant or row['quant']} (dlcost's llama.cpp loads "
                   f"{', '.join(sorted(GGUF_TYPES))} among others)")
    # Several GPUs: llama-bench's default -sm layer splits the layers over all of them.
    gpus = row["hardware"].get("n_gpus", 1)
    if fa is None:
        fa = llama_fa_default(row)
    return (["--mode", "infer", "--engine", "llamacpp", "--dtype", "fp16", "--quant", "gguf",
             "--gguf-type", gguf] + (["--attention", "eager"] if fa == "0" else [])
            + (["--gpus", str(gpus)] if gpus > 1 else []))


def llama_fa_default(row):
    """llama-bench's -fa where a test does not state it: off ("0") before flash attention
    became the default (-fa auto, build b6327, 2025-08-31: llama.cpp's flash_attn_type; it
    arrived behind a flag in PR #5021, 2024-04-30), on ("1") after. A build is read from its
    number "(2824)", else from a year in the row's build text (2023, 2024: before)."""
    build = str(row.get("llama_cpp_build", ""))
    number = re.search(r"\((\d{3,5})\)", build)
    if number:
        return "1" if int(number.group(1)) >= 6327 else "0"
    return "0" if re.search(r"\b(2023|2024)\b", build) else "1"


def llama_build(row, test, point):
    point.gpu = gpu_id(llama_device(row))
    # llama.cpp runs a vision-language model's language model from its own GGUF (the tower is
    # a separate mmproj file, loaded only with --mmproj): llama-bench times the text model.
    model = model_args(row["model"]) + (["--text-only"] if VLM.search(row["model"]) else [])
    m = LLAMA_TEST.match(test)
    if m and m["build"] == "branch":
        raise Skip(NOT_RELEASED, "PR #4766's branch build (its master build runs)")
    b = LLAMA_BATCHED.match(test)
    base = model + ["--gpu", point.gpu] + llama_base(row, m["quant"] if m else None,
                                                     m["fa"] if m else None)
    if b:  # llama-batched-bench: B sequences decoding together after a PP-token prompt
        args = base + flags(users=b["b"], prompt_tokens=b["pp"], generated_tokens=int(b["tg"]) // 2)
        point.compute = lambda run: read_decode(run(args))
        return
    depth, n = int(m["depth"] or 0), int(m["n"])
    if m["op"] == "pp":  # ppN@dD: N prompt tokens after D already in the KV cache
        args = base + flags(prompt_tokens=n, generated_tokens=0, cached_tokens=depth or None)
        point.compute = lambda run: read_prefill(run(args), n)
    else:  # tgN: N tokens from `depth` cached tokens; the mean step attends depth + N/2 keys
        args = base + flags(prompt_tokens=max(1, depth + n // 2), generated_tokens=0)
        point.compute = lambda run: read_decode(run(args))


def llama_points(row):
    for test, value in row["tests"].items():
        kind = "prefill" if re.match(r"^(\w+_)?pp\d", test) else "decode"
        point = Point(row["id"], test, kind, "llama.cpp", value["tokens_per_s"], "tokens/s")
        yield make_point(point, functools.partial(llama_build, row, test))


# ---- vLLM / SGLang start-up memory rows -------------------------------------------------------

def number(text):
    m = re.search(r"\d+(\.\d+)?", str(text)) if text is not None else None
    return float(m.group()) if m else None


def kv_quant_flags(row):
    quant = row.get("quantization")
    if quant is None and "FP8" in row["model"]:
        return ["--quant", "fp8-block"]  # Qwen's -FP8 checkpoints: 128 x 128 blocks
    return KV_QUANT[quant]


def vllm_version(row):
    """dlcost's --vllm-version for a vLLM row: the release its log names; a row dated July 2025
    without one ran 0.9.2 or 0.10.0 (V1 with PyTorch's sampler, as 0.11)."""
    if row["engine"] != "vLLM":
        return None
    text = row.get("engine_version", "")
    if text.startswith("v0.19"):
        return "0.19"
    if text.startswith("v0.11") or "July 2025" in text:
        return "0.11"
    return None


def kv_engine_flags(row):
    """The engine's settings as the row's launch command or log states them."""
    block = row.get("block_size")
    return flags(gpu_memory_utilization=number(row.get("gpu_memory_utilization")
                                               or row.get("mem_fraction_static")),
                 block_size=block if isinstance(block, int) else None,
                 vllm_version=vllm_version(row))


def kv_build(row, point):
    point.gpu = gpu_id(row["gpu"])
    model = model_args(row["model"])
    _, engine, _ = engine_of(row["engine"])
    tp = row.get("tensor_parallel_size") or 1
    dtype = "fp16" if row.get("dtype") == "float16" else "bf16"
    args = (model + ["--mode", "infer", "--engine", engine, "--gpu", point.gpu, "--dtype", dtype]
            + kv_quant_flags(row) + flags(gpus=tp, tp=tp) + kv_engine_flags(row))
    reader = read_kv_tokens if point.unit == "tokens" else read_kv_gib
    context = row.get("max_model_len")  # an int, or "default (model max)" / absent

    def compute(run):
        ctx = context if isinstance(context, int) else model_context(run, model)
        # A start-up log profiles the engine, not a request: no image in the prompt (a
        # vision-language model's tower is loaded and counted all the same).
        return reader(run(args + flags(context=ctx, prompt_tokens=ctx, generated_tokens=0,
                                       images=0)))
    point.compute = compute


def model_context(run, model):
    # transformer.context_tokens of a one-token run is not the model's limit; the config's
    # max_position_embeddings is, and `dlcost preset` / the file holds it.
    if model[0] == "--preset":
        text = subprocess.run([run.dlcost, "preset", model[1]], capture_output=True,
                              text=True, check=True).stdout
    else:
        with open(os.path.join(ROOT, model[0])) as f:
            text = f.read()
    return json.loads(text)["max_position_embeddings"]


def kv_points(row):
    measured = row.get("measured_per_gpu_rank0") or row.get("measured_per_gpu") or row["measured"]
    tokens = measured.get("gpu_kv_cache_size_tokens") or measured.get("kv_cache_tokens")
    if tokens:
        point = Point(row["id"], "kv_tokens", "kv_capacity", row["engine"], tokens, "tokens")
    else:
        point = Point(row["id"], "kv_GiB", "kv_capacity", row["engine"],
                      measured["available_kv_cache_GiB"], "GiB")
    if row.get("extra"):
        point.notes.append(f"run with {row['extra']} (not modelled)")
    yield make_point(point, functools.partial(kv_build, row))


# ---- inference throughput and latency rows ----------------------------------------------------

def serving_base(row, point):
    point.gpu = gpu_id(row["gpu"])
    model = model_args(row["model"])
    name, engine, proxy = engine_of(row["engine"])
    if proxy:
        point.engine = f"{name} (as {engine})"
    precision, note = first_match_precision(row.get("precision"))
    if note:
        point.notes.append(note)
    tp = row.get("tensor_parallel_size") or 1
    return model + ["--mode", "infer", "--engine", engine, "--gpu", point.gpu] + precision + flags(
        gpus=tp, tp=tp, trtllm_version=trtllm_version(row)) + modelopt_kv_flags(row, precision)


def trtllm_version(row):
    """dlcost's --trtllm-version for a TensorRT-LLM row: 0.5 and 0.6.1 predate the XQA decode
    kernels (0.7); the perf-overview rows ran 1.0."""
    if row["engine"] != "TensorRT-LLM":
        return None
    return "0.6" if re.match(r"v0\.[56]\b", row.get("engine_version", "")) else None


def modelopt_kv_flags(row, precision):
    """NVIDIA's ModelOpt checkpoints (nvidia/...-FP8, -FP4) carry an FP8 KV cache: ModelOpt's
    examples/llm_ptq/hf_ptq.py quantizes the KV cache with --kv_cache_qformat, default "fp8", into
    hf_quant_config.json's kv_cache_quant_algo, and TensorRT-LLM's KvCacheConfig(dtype="auto")
    follows the checkpoint. The perf-overview rows name those checkpoints and no KV setting."""
    if not (row.get("checkpoint") or "").startswith("nvidia/") or "--kv-dtype" in precision:
        return []
    return ["--kv-dtype", "fp8"]


def first_match_precision(text):
    for pattern, args, note in PRECISIONS:
        if re.search(pattern, text or ""):
            return args, note
    raise Skip(SETUP_UNSTATED, f"precision {text}")


def serving_build(row, point):
    base = serving_base(row, point)
    prompt = row.get("input_len") or 5  # gpt-fast's benchmark prompt (its A100 rows: 5 tokens)
    output = row.get("output_len") or 0
    if point.test == "first_token_latency_ms":
        args = base + flags(prompt_tokens=prompt, generated_tokens=0)
        point.compute = lambda run: read_ttft_ms(run(args))
    elif point.test == "decode_tokens_per_s":  # batch 1, decode right after the prompt
        args = base + flags(prompt_tokens=prompt, generated_tokens=0)
        point.compute = lambda run: read_decode(run(args))
    elif point.test == "total_output_tokens_per_s":  # the scheduler's batch: what the plan holds
        base += flags(max_num_seqs=8192)  # CUDA graphs up to 8192 sequences (the rows' setup)
        point.compute = lambda run: e2e_output_tokens_per_s(
            run, base, max_users(run, base, prompt, output), prompt, output)
    else:  # static batch; per GPU when the row says so
        users, per = row["batch_size"], row["n_gpus"] if point.test.endswith("per_gpu") else 1
        point.compute = lambda run: e2e_output_tokens_per_s(run, base, users, prompt, output) / per


SERVING_KINDS = {"first_token_latency_ms": ("serving_latency", "ms"),
                 "decode_tokens_per_s": ("decode", "tokens/s"),
                 "total_output_tokens_per_s": ("serving_throughput", "tokens/s"),
                 "output_tokens_per_s": ("serving_throughput", "tokens/s"),
                 "output_tokens_per_s_per_gpu": ("serving_throughput", "tokens/s per GPU")}


def serving_points(row):
    for test, value in row["measured"].items():
        if test not in SERVING_KINDS:
            continue  # achieved_memory_bandwidth_GBps: the same decode speed restated
        kind, unit = SERVING_KINDS[test]
        point = Point(row["id"], test, kind, row["engine"].split(" (")[0], value, unit)
        yield make_point(point, functools.partial(serving_build, row))


# ---- training rows ------------------------------------------------------------------------------

def layout(row):
    """(tp, pp, cp, virtual stages, ZeRO stage) of a training row."""
    text = row.get("parallelism") or ""
    named = {k: int(v) for k, v in re.findall(r"(FSDP|TP|CP|PP) (\d+)", text)}
    tp = row.get("tp") or named.get("TP", 1)
    pp = row.get("pp") or named.get("PP", 1)
    cp = row.get("cp") or named.get("CP", 1)
    sharded = "FSDP" in named or row.get("fsdp_sharding") == "FULL_SHARD"
    zero = 3 if sharded else 1 if "ZeRO-1" in (row.get("framework") or "") else 0
    return tp, pp, cp, row.get("virtual_pipeline") or 1, zero


def training_measured(row):
    m, seq = row["measured"], row.get("seq_len")
    if "tokens_per_s_per_gpu" in m:
        return m["tokens_per_s_per_gpu"]
    if "samples_per_s" in m:
        return m["samples_per_s"] * seq / row["n_gpus"]
    if "seconds_per_iteration_approx" in m:  # llm.c: the batch's tokens per iteration
        return row["total_batch_tokens"] / m["seconds_per_iteration_approx"] / row["n_gpus"]
    return None


def global_batch(row):
    if row.get("global_batch_size"):
        return row["global_batch_size"]
    if row.get("total_batch_tokens") and isinstance(row.get("seq_len"), int):
        return row["total_batch_tokens"] // row["seq_len"]
    raise Skip(SETUP_UNSTATED, "global batch")


def recompute(row):
    """--recompute: the row's activation_checkpointing, else what its framework text says."""
    if "activation_checkpointing" in row:
        return RECOMPUTE[row["activation_checkpointing"]]
    return "full" if "activation checkpointing" in (row.get("framework") or "") else "none"


def training_build(row, point):
    if point.measured is None:
        raise Skip(NOT_A_STEP, "MLPerf time-to-train")
    point.gpu = gpu_id(row["gpu"])
    seq = row.get("seq_len")
    mpt = mpt_model(row["model"], seq) if isinstance(seq, int) else None
    model = mpt[0] if mpt else model_args(row["model"])
    tp, pp, cp, vp, zero = layout(row)
    if cp > 1:
        raise Skip(LAYOUT_OPTION, "context parallelism")
    if not isinstance(seq, int):
        raise Skip(SETUP_UNSTATED, "sequence length")
    gpus, batch = row["n_gpus"], global_batch(row)
    micro = row.get("micro_batch_size") or row.get("micro_batch_size_per_gpu") or 1
    steps = batch // (gpus // (tp * pp) * micro)  # micro-batches per replica and step
    fp8 = re.search(r"fp8", row.get("precision") or "", re.I)
    args = (model + ["--mode", "train", "--dtype", "mixed", "--gpu", point.gpu]
            + (["--gpu-dtype", "fp8"] if fp8 else [])
            + flags(gpus=gpus, tp=tp, pp=pp, zero=zero, batch=batch, seq_len=seq,
                    recompute=recompute(row),
                    microbatches=steps if pp > 1 else None,
                    virtual_stages=vp if vp > 1 else None,
                    grad_accum=steps if pp == 1 and steps > 1 else None))
    if "Omni-Path" in row["gpu"]:
        args += ["--inter-node-link", "ib-edr"]
        point.notes.append("Omni-Path 100 Gb/s as ib-edr, one adapter per GPU (the nodes had one "
                           "per two GPUs)")
    if mpt:
        # The row's own parameter count checks the config against llm-foundry's yaml.
        point.compute = lambda run: read_training(
            checked_params(run(args), mpt[1], row["model"]), seq, gpus)
        return
    point.compute = lambda run: read_training(run(args), seq, gpus)


def training_points(row):
    point = Point(row["id"], "tokens_per_s_per_gpu", "training", training_engine(row),
                  training_measured(row), "tokens/s per GPU")
    yield make_point(point, functools.partial(training_build, row))


def training_engine(row):
    text = row.get("framework") or ""
    for name in ("NeMo", "torchtitan", "llm-foundry", "Megatron-DeepSpeed", "llm.c"):
        if name in text:
            return name
    return "MLPerf" if row["id"].startswith("mlperf") else text or "not stated"


# ---- running ------------------------------------------------------------------------------------

SOURCES = {"llama_cpp": llama_points, "vllm_memory": kv_points,
           "inference_throughput": serving_points, "training_throughput": training_points}


def all_points(data):
    return [p for source, build in SOURCES.items() for row in data[source] for p in build(row)]


RESULTS = {}  # dlcost's JSON per distinct command, shared by the points


class Runner:
    """Runs `dlcost estimate ARGS --json` (once per distinct command and parameter file) for one
    point, and records the commands in its log. `params`: the time model's parameters as JSON
    text (DLCOST_TIME_PARAMS), core/hardware/time_params.json by default."""

    def __init__(self, dlcost, log, params=None):
        self.dlcost, self.log = dlcost, log
        self.params = params if params is not None else read_params_text()
        self.last = None  # the last report run

    def __call__(self, args):
        key = (params_file(self.params),) + tuple(str(a) for a in args)
        if key not in RESULTS:
            RESULTS[key] = self.invoke(key)
        self.log.append(" ".join(("dlcost", "estimate") + key[1:] + ("--json",)))
        result = RESULTS[key]
        self.last = result
        if "error" in result:
            raise Skip(REFUSED, result["error"]["message"])
        return result

    def invoke(self, key):
        env = dict(os.environ, DLCOST_TIME_PARAMS=key[0])
        proc = subprocess.run([self.dlcost, "estimate", *key[1:], "--json"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        try:
            return json.loads(proc.stdout)
        except json.JSONDecodeError:
            return {"error": {"message": f"exit {proc.returncode}: {proc.stderr.strip()[:200]}"}}


def read_params_text():
    with open(os.path.join(ROOT, TIME_PARAMS)) as f:
        return f.read()


PARAM_FILES = {}  # parameter text -> the temporary file the CLI reads it from


@atexit.register
def remove_param_files():
    for path in PARAM_FILES.values():
        if os.path.exists(path):
            os.remove(path)


def params_file(text):
    if text not in PARAM_FILES:
        fd, path = tempfile.mkstemp(prefix="dlcost-time-params-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        PARAM_FILES[text] = path
    return PARAM_FILES[text]


def evaluate(point, dlcost, params=None):
    point.estimate, point.skip = None, None
    point.commands = []
    runner = Runner(dlcost, point.commands, params)
    try:
        point.estimate = point.compute(runner)
        if runner.last:  # the device family whose parameters the figure used
            point.time_family = runner.last["gpu_fit"]["roofline"]["family"]
        physically_possible(point, runner.last)
    except Skip as s:
        point.skip, point.estimate = s, None
    except (KeyError, TypeError, ZeroDivisionError) as e:
        point.skip = Skip(NO_FIGURE, f"{type(e).__name__} {e}")
    if point.skip is None and point.estimate is None:
        point.skip = Skip(NO_FIGURE, "the figure is null (no published compute rate)")
    return point


def physically_possible(point, report):
    """Raises Skip for a llama-bench speed no device can reach: decode faster than reading
    every weight once per token at the full DRAM bandwidth (serving.speed.step_bytes), a
    prompt faster than its FLOPs at twice the dense peak (the FP16-accumulate rate). Such a
    figure is a failed run's (xd's M1 8GB at 8,192 tokens, which swaps: 1,133 tokens/s of an
    8B model from 68 GB/s), not a speed of the setup; a prompt faster than one GPU could run it
    shows that a layer split's GPUs overlapped (8 x RTX 4090, whose GeForce cards dlcost assumes
    take turns), which the comparison keeps."""
    if point.engine != "llama.cpp" or point.kind not in ("decode", "prefill") or not report:
        return
    speed, roof = report["serving"]["speed"], report["gpu_fit"]["roofline"]
    if point.kind == "decode" and speed.get("step_bytes"):
        ceiling = speed["users"] * roof["bandwidth_bytes_per_s"] / speed["step_bytes"]
        limit = "the DRAM bandwidth"
    elif point.kind == "prefill" and speed.get("step_flops") and roof.get("peak_flops"):
        # A layer split over several GPUs computes on all of them at once at best.
        gpus = report["workload"].get("gpus", 1)
        ceiling = 2 * gpus * roof["peak_flops"] / speed["step_flops"]
        limit = "twice the dense FLOP rate" + (f" of {gpus} GPUs" if gpus > 1 else "")
    else:
        return
    if point.measured > ceiling:
        raise Skip(IMPOSSIBLE, f"{point.measured:g} tokens/s > {ceiling:.0f} at {limit}")


def run_all(points, dlcost, params=None):
    todo = [p for p in points if p.compute is not None]
    with concurrent.futures.ThreadPoolExecutor(max(2, os.cpu_count() or 2)) as pool:
        list(pool.map(lambda p: evaluate(p, dlcost, params), todo))
    return points


# ---- reporting ----------------------------------------------------------------------------------

def pct(x, sign=True):
    return f"{x * 100:+.0f} %" if sign else f"{x * 100:.0f} %"


def group_key(p):
    return (p.kind, family(p.gpu), p.engine)


def summary_rows(points):
    ran = [p for p in points if p.estimate is not None]
    groups = {}
    for p in ran:
        groups.setdefault(group_key(p), []).append(p)
    order = list(BOUNDS)
    rows = []
    for key in sorted(groups, key=lambda k: (order.index(k[0]), k[1], k[2])):
        rows.append(summary_row(key, groups[key]))
    for kind in order:  # one line per kind, all families and engines together
        of_kind = [p for p in ran if p.kind == kind]
        if of_kind:
            rows.append(summary_row((f"**{kind}**", "all", "all"), of_kind))
    return rows


def summary_row(key, pts):
    kind = key[0].strip("*")
    errors = [p.error() for p in pts]
    within = sum(abs(e) <= BOUNDS[kind] for e in errors)
    worst = max(pts, key=lambda p: abs(p.error()))
    return [key[0], key[1], key[2], str(len(pts)), f"{within} ({within / len(pts) * 100:.0f} %)",
            pct(statistics.median(abs(e) for e in errors), sign=False),
            pct(statistics.median(errors)),
            f"{worst.key} {pct(worst.error())}"]


HEADER = ["kind", "device family", "engine", "run", "within bound", "median abs error",
          "median error", "worst point"]


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def skipped_lines(points):
    groups = {}
    for p in points:
        if p.skip is not None:
            groups.setdefault(p.skip.reason, []).append(p)
    lines = []
    for reason, pts in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        rows = len({p.row for p in pts})
        details = {}
        for p in pts:
            details[p.skip.detail] = details.get(p.skip.detail, 0) + 1
        shown = "; ".join(f"{d} ({n})" for d, n in sorted(details.items(), key=lambda kv: -kv[1]))
        lines.append(f"- **{reason}**: {len(pts)} points of {rows} rows: {shown}")
    return lines


def report_lines(points, data):
    ran = sum(p.estimate is not None for p in points)
    rows = sum(len(data[s]) for s in SOURCES)
    proxies = sorted({p.engine for p in points if "(as " in p.engine})
    lines = [f"{rows} rows, {len(points)} measured points: {ran} run, {len(points) - ran} cannot "
             "run. Error = estimate / measured - 1; bounds (issue #32): "
             + ", ".join(f"{k} {v * 100:.0f} %" for k, v in BOUNDS.items()) + ".", ""]
    lines += markdown_table(HEADER, summary_rows(points))
    lines += ["", f"Proxy engines (dlcost has none of their kind): {', '.join(proxies)}.", "",
              "Points that cannot run, by reason:", ""]
    return lines + skipped_lines(points)


def point_json(p):
    return {"row": p.row, "test": p.test, "kind": p.kind, "engine": p.engine, "gpu": p.gpu,
            "family": family(p.gpu) if p.gpu else None, "measured": p.measured, "unit": p.unit,
            "estimate": p.estimate, "error": p.error(),
            "within": None if p.error() is None else abs(p.error()) <= BOUNDS[p.kind],
            "commands": p.commands, "notes": p.notes,
            "reason": p.skip.reason if p.skip else None,
            "detail": p.skip.detail if p.skip else None}



# ---- --fit: the time model's parameters, per device family and engine ---------------------------

# Kinds whose figures are times (KV capacity is memory: exact accounting, nothing to fit).
FIT_KINDS = ("decode", "prefill", "serving_throughput", "serving_latency", "training")

# dlcost GPU id prefix -> the time model's device family (core/src/gpu/time_model.cpp,
# deviceFamily, reads the GPU table's vendor, name and architecture; these are the calibration
# set's GPUs).
TIME_FAMILIES = [("h100", "hopper"), ("h200", "hopper"), ("a100", "ampere"),
                 ("rtx-a6000", "ampere"), ("l40s", "ada"), ("b200", "blackwell"),
                 ("nvidia-gb10", "blackwell"), ("rtx-", "geforce"), ("apple-", "apple"),
                 ("mi", "amd")]


def time_family(p):
    """The family dlcost used (its report's gpu_fit.roofline.family), else by the GPU id."""
    return getattr(p, "time_family", None) or next(
        (name for prefix, name in TIME_FAMILIES if p.gpu.startswith(prefix)), "older")


def time_engine(p):
    """The dlcost engine whose parameters a point's figure uses ("none" for training)."""
    if p.kind == "training":
        return "none"
    text = p.engine
    if "(as " in text:
        return text.split("(as ")[1].rstrip(")")
    return {"llama.cpp": "llamacpp", "vLLM": "vllm", "SGLang": "sglang",
            "TensorRT-LLM": "trtllm"}.get(text, text)


def time_format(p):
    """The dequantization format a point's weights need, or None."""
    args = " ".join(p.commands[:1])
    for pattern, fmt in ((r"--gguf-type Q4_K", "k_quant"), (r"--gguf-type Q4_0", "q4_0"),
                         (r"--gguf-type Q8_0", "q8_0"), (r"--weight-dtype int4", "int4"),
                         (r"--weight-dtype int8", "q8_0"), (r"--quant (mxfp4|nvfp4)", "fp4"),
                         (r"--gguf-type MXFP4_MOE", "fp4"),
                         (r"--quant fp8", "fp8")):
        if re.search(pattern, args):
            return fmt
    return None


class Param:
    """One fitted parameter: its place in time_params.json, its bounds, and the points it
    moves (those of its family, engine or format)."""

    def __init__(self, path, lo, hi, points, floor=0.0):
        self.path, self.lo, self.hi, self.points, self.floor = path, lo, hi, points, floor

    @property
    def name(self):
        return ".".join(self.path)

    def get(self, params):
        value = params
        for k in self.path:
            value = value[k]
        return value

    def set(self, params, value):
        target = params
        for k in self.path[:-1]:
            target = target[k]
        target[self.path[-1]] = round(min(self.hi, max(self.lo, value)), 9)

    def candidates(self, value, spread):
        base = value if value > 0 else self.floor
        out = {min(self.hi, max(self.lo, base * f)) for f in (1 / spread, spread ** -0.5,
                                                               spread ** 0.5, spread)}
        if self.floor:  # an additive cost may be absent altogether
            out.add(0.0)
        return sorted(out - {value})


def fit_params(points):
    """The parameters the calibration points can move: per family present, per engine present,
    per quantization format present. Engines run as proxies (gpt-fast) fit vLLM's parameters; plain PyTorch's (training) GEMM share is the family's own."""
    fams, engines, formats = {}, {}, {}
    for p in points:
        fams.setdefault(time_family(p), []).append(p)
        engines.setdefault(time_engine(p), []).append(p)
        fmt = time_format(p)
        if fmt:
            formats.setdefault(fmt, []).append(p)
    params = []
    for fam, pts in sorted(fams.items()):
        # Physical bounds: the best measured large GEMMs reach 80-87 % of the dense peak
        # (GPU-NOTES), streaming reads ~90 % of the DRAM bandwidth.
        params.append(Param(("families", fam, "gemm_efficiency"), 0.05, 0.9, pts))
        params.append(Param(("families", fam, "bandwidth_efficiency"), 0.3, 0.92, pts))
        params.append(Param(("families", fam, "gemm_half_rows"), 1.0, 4096.0, pts))
        # Fused attention's share: it times every prompt and training step of the family
        # (a large part of long sequences' FLOPs), so all of its points are evaluated.
        if any(p.kind in ("prefill", "training", "serving_latency") for p in pts):
            params.append(Param(("families", fam, "attention_efficiency"), 0.1, 0.9, pts))
        fp8 = [p for p in pts if any("fp8" in c for c in p.commands[:1])]
        if fp8:
            params.append(Param(("families", fam, "fp8_gain"), 1.0, 2.0, fp8))
    for eng, pts in sorted(engines.items()):
        if eng in ("llamacpp", "hf", "trtllm"):  # kernels of their own (TensorRT's GEMM tactics)
            # Apple chips and CPUs run the engine's own kernels: the family's share is theirs
            # (core/src/gpu/time_model.cpp, largeGemmEfficiency).
            vendor_blas = [p for p in pts if time_family(p) not in ("apple", "cpu")]
            params.append(Param(("engines", eng, "compute_scale"), 0.1, 3.0, vendor_blas))
        if eng in ("llamacpp", "trtllm", "vllm"):  # attention kernels of their own
            vendor = [p for p in pts if time_family(p) not in ("apple", "cpu")]
            params.append(Param(("engines", eng, "attention_scale"), 0.1, 3.0, vendor))
        params.append(Param(("engines", eng, "layer_overhead_s"), 0.0, 1e-3, pts, floor=2e-6))
        if eng != "none":  # training's forward is its only one (layer_overhead_s)
            params.append(Param(("engines", eng, "prefill_layer_overhead_s"), 0.0, 1e-3, pts,
                                floor=2e-6))
        params.append(Param(("engines", eng, "step_overhead_s"), 0.0, 0.05, pts, floor=1e-4))
        tp = [p for p in pts if re.search(r"--tp [2-9]", " ".join(p.commands[:1]))]
        if tp and eng != "none":
            params.append(Param(("engines", eng, "allreduce_latency_s"), 1e-6, 2e-4, tp))
        split = [p for p in pts if eng == "llamacpp"
                 and re.search(r"--gpus [2-9]", " ".join(p.commands[:1]))]
        if split:
            params.append(Param(("engines", eng, "stage_hop_s"), 0.0, 5e-3, split, floor=1e-6))
    for fmt, pts in sorted(formats.items()):
        params.append(Param(("dequant_ops_per_weight", fmt), 0.0, 200.0, pts, floor=1.0))
    return params


KIND_WEIGHTS = {}  # kind -> 1 / its points in the fit: each kind counts as much as another


def log_loss(points):
    """Sum of squared log(estimate / measured), each point weighted by 1 / the points of its
    kind in the fit (97 llama-bench points must not outvote 5 training runs on the GEMM share
    they share); a point without a figure costs as a 2x miss twice over."""
    total = 0.0
    for p in points:
        weight = KIND_WEIGHTS.get(p.kind, 1.0)
        if p.estimate is None or p.estimate <= 0:
            total += weight * 2 * math.log(2) ** 2
        else:
            total += weight * math.log(p.estimate / p.measured) ** 2
    return total


def loss_with(params, pts, dlcost):
    text = json.dumps(params, indent=1)
    run_all(pts, dlcost, text)
    return log_loss(pts)


def fit(points, dlcost, sweeps=3, only=None):
    """Coordinate descent on the summed squared log error: each parameter in turn tries a few
    values around its own (wide steps first, then narrower), evaluating only the points it
    moves, with dlcost itself (DLCOST_TIME_PARAMS); keeps the best."""
    with open(os.path.join(ROOT, TIME_PARAMS)) as f:
        params = json.load(f)
    pts = [p for p in points if p.kind in FIT_KINDS and p.estimate is not None]
    for kind in FIT_KINDS:
        count = sum(p.kind == kind for p in pts)
        if count:
            KIND_WEIGHTS[kind] = 1.0 / count
    plist = [p for p in fit_params(pts) if not only or p.name.startswith(only)]
    start = time.time()
    for sweep, spread in enumerate((2.0, 1.4, 1.15)[:sweeps]):
        for par in plist:
            current = par.get(params)
            best_value, best = current, loss_with(params, par.points, dlcost)
            for value in par.candidates(current, spread):
                trial = json.loads(json.dumps(params))
                par.set(trial, value)
                loss = loss_with(trial, par.points, dlcost)
                if loss < best - 1e-9:
                    best_value, best = par.get(trial), loss
            par.set(params, best_value)
        print(f"fit: sweep {sweep + 1}, loss {loss_with(params, pts, dlcost):.3f} over {len(pts)} "
              f"points ({time.time() - start:.0f} s)", file=sys.stderr)
    return params, plist


def residual_ranges(points):
    """(p10, p90) of estimate / measured - 1 per kind."""
    out = {}
    for kind in FIT_KINDS:
        errors = sorted(p.error() for p in points if p.kind == kind and p.estimate is not None)
        if len(errors) >= 2:
            q = statistics.quantiles(errors, n=10, method="inclusive")
            out[kind] = [round(q[0], 3), round(q[-1], 3)]
        elif errors:
            out[kind] = [round(min(errors[0], 0), 3), round(max(errors[0], 0), 3)]
    return out


# Engines with no point of their own take a fitted engine's values: SGLang runs CUDA graphs over
# a paged KV cache with custom all-reduce kernels, as vLLM does.
ENGINE_LIKE = {"sglang": "vllm"}


def write_params(params, points, only=None):
    n = sum(p.kind in FIT_KINDS and p.estimate is not None for p in points)
    have = {time_engine(p) for p in points if p.kind in FIT_KINDS and p.estimate is not None}
    for engine, like in ENGINE_LIKE.items():
        if engine not in have and like in have:
            params["engines"][engine] = dict(params["engines"][like])
    what = f"--fit --fit-only {only}" if only else "--fit"
    params["fitted"] = (f"scripts/calibrate_speed.py {what} on {n} time points of "
                        f"{DATA} ({time.strftime('%Y-%m-%d')})")
    params["residuals"].update(residual_ranges(points))
    with open(os.path.join(ROOT, TIME_PARAMS), "w") as f:
        json.dump(params, f, indent=1)
        f.write("\n")


# ---- docs and --check ---------------------------------------------------------------------------

DOC_INTRO = """## Speed: the time model against the calibration set

Written by `scripts/calibrate_speed.py --write-docs` from `build/dlcost` (do not edit by hand).
Every row of `tests/fixtures/speed/speed-calibration.json` (published llama-bench speeds, vLLM and
SGLang start-up KV-cache sizes, TensorRT-LLM and gpt-fast serving figures, multi-GPU training
throughput; `tests/fixtures/speed/SOURCES.md`) is run as `dlcost estimate` with the setup's own
fields. Every time figure comes from one per-op time model (docs/speed-model.md,
`core/include/dlcost/gpu/time_model.hpp`) whose few parameters per device family and engine
(never per model or row) are fitted on these points by `scripts/calibrate_speed.py --fit`
(least squares on log(estimate / measured), each kind weighted by 1 / its points, coordinate descent, dlcost itself evaluating each
trial) and embedded from `core/hardware/time_params.json`; the table of parameters is below the
residuals. What each kind reads: decode `serving.speed.tokens_per_s` at the mean context of the
run (llama-bench tgN: N/2 tokens after the depth); prefill the prompt over
`serving.speed.ttft_s`; KV capacity `serving.paged.kv_tokens` (or the KV pool's bytes where the
log gives only GiB); serving throughput users x output tokens over the batch's prefill
(`serving.speed.batch_prefill_s`) plus output x `serving.speed.itl_s` at the mean context, users
being the static batch or, for trtllm-bench's max-load rows, the plan's `serving.max_users`;
serving latency `serving.speed.ttft_s`; training `gpu_fit.samples_per_s` x sequence length /
GPUs. `--json` lists every point with its commands. The residuals' p10 and p90 per kind are
the range every time figure of that kind carries (`..._range` in JSON, "≈ x (lo–hi)" in the CLI).

Setup choices where a row leaves a field open: llama.cpp runs `--dtype fp16` (f16 activations,
16-bit math for the prompt); an H100 80GB is the SXM part; a KV cache whose type the row does
not state is 16-bit; TensorRT-LLM's max-load batch is capped at 8,192 sequences (its CUDA
graphs); gpt-fast's prompt is 5 tokens; NVFP4 math runs at dlcost's FP8 rate (it has no FP4
rate); BLOOM's Omni-Path network is `ib-edr` with one adapter per GPU (the nodes had one per
two). TensorRT-LLM rows run as dlcost's `trtllm` engine and fit its own column; gpt-fast has no
engine of its own in dlcost: its rows run as vLLM and so fit vLLM's engine parameters."""


PARAM_TEXT = {
    "gemm_efficiency": "share of the dense peak a large GEMM reaches",
    "gemm_half_rows": "GEMM rows (tokens in the batch) at which it reaches half of that",
    "bandwidth_efficiency": "share of the DRAM bandwidth a streaming read reaches",
    "fp8_gain": "speed-up of FP8 GEMMs over 16-bit ones (the peak says 2)",
    "attention_efficiency": "share of the 16-bit dense peak fused attention kernels reach",
    "attention_scale": "the engine's attention kernels' share of the family's attention share",
    "compute_scale": "the engine's GEMM kernels' share of the family's efficiency",
    "bandwidth_scale": "the engine's share of the achievable bandwidth",
    "layer_overhead_s": "seconds per layer per decode step (kernel launches; CUDA graphs)",
    "prefill_layer_overhead_s": "seconds per layer per prefill forward (launched eagerly)",
    "step_overhead_s": "seconds per forward or decode step (scheduling, sampling)",
    "allreduce_latency_s": "seconds per tensor-parallel all-reduce of a forward",
    "stage_hop_s": "seconds per hop of a forward to the next GPU of a layer split (-sm layer)",
    "fp16_accumulate": "16-bit GEMMs accumulate in FP16 (full GeForce tensor rate)",
}


# How the parameters no calibration point moves were set.
PRIOR_NOTES = {
    "sglang": "vLLM's fitted value (no SGLang speed row; both run CUDA graphs over paged KV)",
    "engines.hf.layer_overhead_s": "set from HF generate() on an A10G (fxmarty/accelerated-"
                                   "pytorch-transformers-generation; no HF row in the set)",
    "engines.hf.prefill_layer_overhead_s": "as its decode launches (eager PyTorch)",
    "families.cpu.bandwidth_efficiency": "from llama-bench on an EPYC 9554 (ahelpme.com; "
                                         "tests/test_serving_cpu.cpp)",
}


def param_lines(points):
    """The parameter table: every value in time_params.json, whether the fit moved it (it has
    calibration points) or it keeps its prior."""
    with open(os.path.join(ROOT, TIME_PARAMS)) as f:
        params = json.load(f)
    fitted = {p.name: len(p.points)
              for p in fit_params([q for q in points if q.kind in FIT_KINDS and q.estimate])}
    rows = []
    for group in ("families", "engines"):
        for key, values in params[group].items():
            for name, value in values.items():
                path = f"{group}.{key}.{name}"
                n = fitted.get(path)
                how = (f"fitted ({n} points)" if n else PRIOR_NOTES.get(key, PRIOR_NOTES.get(
                    path, "prior (no point moves it)")))
                rows.append([f"`{path}`", PARAM_TEXT.get(name, ""), f"{value:.4g}"
                             if isinstance(value, float) else str(value).lower(), how])
    for fmt, value in params["dequant_ops_per_weight"].items():
        path = f"dequant_ops_per_weight.{fmt}"
        n = fitted.get(path)
        rows.append([f"`{path}`", f"ALU operations per {fmt} weight to unpack it", f"{value:.4g}",
                     f"fitted ({n} points)" if n else "prior (no point moves it)"])
    for kind, (lo, hi) in params["residuals"].items():
        rows.append([f"`residuals.{kind}`", "p10 and p90 of the error: the figures' range",
                     f"{lo * 100:+.0f} % .. {hi * 100:+.0f} %", "from the fit's residuals"])
    return (["", "### Fitted parameters (core/hardware/time_params.json)", "",
             f"Fitted: {params.get('fitted', '')}.", ""]
            + markdown_table(["parameter", "what it is", "value", "how set"], rows))


def write_docs(points, data):
    section = "\n".join([BEGIN, DOC_INTRO, ""] + report_lines(points, data) + param_lines(points)
                         + [END])
    path = os.path.join(ROOT, DOC)
    with open(path) as f:
        text = f.read()
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + (rest.split(END, 1)[1] if END in rest else "\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(text)
    baseline = {p.key: p.estimate for p in points if p.estimate is not None}
    with open(os.path.join(ROOT, BASELINE), "w") as f:
        json.dump({"what": "figures of the points that ran at the last --write-docs "
                           "(scripts/calibrate_speed.py --check)", "figures": baseline},
                  f, indent=1, sort_keys=True)
        f.write("\n")


def check(points):
    """Points that produced a figure at the last --write-docs and now do not."""
    path = os.path.join(ROOT, BASELINE)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        before = json.load(f)["figures"]
    now = {p.key: p for p in points}
    return [k for k in before if k not in now or now[k].estimate is None]


def kind_summary(points):
    """kind -> (run, within bound, median abs error)."""
    out = {}
    for kind in BOUNDS:
        errors = [p.error() for p in points if p.kind == kind and p.estimate is not None]
        if errors:
            within = sum(abs(e) <= BOUNDS[kind] for e in errors)
            out[kind] = (len(errors), within, statistics.median(abs(e) for e in errors))
    return out


def print_fit(plist, params, before, after):
    print("fitted parameters (core/hardware/time_params.json):", file=sys.stderr)
    for par in plist:
        print(f"  {par.name} = {par.get(params):.6g}  ({len(par.points)} points)",
              file=sys.stderr)
    print("kind: within bound / run, median abs error, before -> after fit:", file=sys.stderr)
    for kind, (n, w, med) in after.items():
        b = before.get(kind)
        was = f"{b[1]}/{b[0]}, {b[2] * 100:.0f} %" if b else "-"
        print(f"  {kind}: {was} -> {w}/{n}, {med * 100:.0f} %", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dlcost", default="build/dlcost")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--fit", action="store_true",
                    help="fit the time model's parameters (core/hardware/time_params.json)")
    ap.add_argument("--fit-only", metavar="PREFIX",
                    help="with --fit, move only the parameters whose name starts with PREFIX "
                         "(e.g. engines.trtllm), keeping the others as fitted")
    a = ap.parse_args()
    dlcost = os.path.abspath(a.dlcost)
    if not os.access(dlcost, os.X_OK):
        print(f"calibrate_speed: no dlcost at {a.dlcost} (build it, or pass --dlcost)",
              file=sys.stderr)
        return 2
    with open(os.path.join(ROOT, DATA)) as f:
        data = json.load(f)
    points = run_all(all_points(data), dlcost)
    if a.fit:
        before = {k: v for k, v in kind_summary(points).items()}
        params, plist = fit(points, dlcost, only=a.fit_only)
        text = json.dumps(params, indent=1)
        run_all(points, dlcost, text)
        write_params(params, points, a.fit_only)
        print_fit(plist, params, before, kind_summary(points))
        run_all(points, dlcost)  # the file just written, with its residual ranges
    if a.json:
        json.dump([point_json(p) for p in points], sys.stdout, indent=1)
        print()
    else:
        print("\n".join(report_lines(points, data)))
    if a.write_docs:
        write_docs(points, data)
    lost = check(points) if a.check else []
    for key in lost:
        print(f"calibrate_speed: {key} ran before and now gives no figure", file=sys.stderr)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
