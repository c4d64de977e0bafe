"""A Llama decoder written in plain PyTorch, measured as validate_torch.py measures the CNNs.

The modules follow Hugging Face transformers' src/transformers/models/llama/modeling_llama.py
(v4.48 and later): LlamaRMSNorm (upcast to fp32, `hidden_states * torch.rsqrt(variance +
eps)`, then `self.weight * hidden_states.to(input_dtype)`), rotary embeddings applied as
`(q * cos) + (rotate_half(q) * sin)`, eager_attention_forward (repeat_kv, `matmul(query,
key_states.transpose(2, 3)) * scaling`, the causal mask added, softmax in fp32, matmul with
the values), LlamaMLP (`down_proj(act_fn(gate_proj(x)) * up_proj(x))`, SiLU), and
LlamaForCausalLM's loss (cross-entropy of the logits against the labels shifted by one).
Run through scripts/validate-torch --llama.
"""

import json
import math
import subprocess
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

import validate_common as v

# A small Llama with grouped-query attention (2 query heads per key/value head).
CONFIG = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 256,
    "intermediate_size": 688,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "num_hidden_layers": 2,
    "vocab_size": 2048,
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-6,
    "rope_theta": 10000.0,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
}


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        # HF writes pow(2).mean(-1, keepdim=True). PyTorch 1.13's mean keeps its input for
        # backward (MeanBackward1 has _saved_self); 2.x's does not (derivatives.yaml, mean.dim:
        # mean_backward(grad, self.sym_sizes(), dim, self.sym_numel(), keepdim)). sum / n
        # computes the same and saves what 2.x's mean saves (SumBackward1: sizes only).
        variance = hidden_states.pow(2).sum(-1, keepdim=True) / hidden_states.shape[-1]
        hidden_states = hidden_states * torch.rsqrt(variance + self.eps)
        return self.weight * hidden_states.to(input_dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(hidden_states, n_rep):
    batch, kv_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, kv_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, kv_heads * n_rep, slen, head_dim)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, self.heads, self.kv_heads = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
        self.head_dim = h // self.heads
        self.q_proj = nn.Linear(h, self.heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(h, self.kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(h, self.kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(self.heads * self.head_dim, h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, -1, self.head_dim).transpose(1, 2)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        k = repeat_kv(k, self.heads // self.kv_heads)
        v = repeat_kv(v, self.heads // self.kv_heads)
        w = torch.matmul(q, k.transpose(2, 3)) * (1.0 / math.sqrt(self.head_dim))
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        out = torch.matmul(w, v).transpose(1, 2).contiguous().reshape(b, s, -1).contiguous()
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, f = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(h, f, bias=False)
        self.up_proj = nn.Linear(h, f, bias=False)
        self.down_proj = nn.Linear(f, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])

    def forward(self, x, cos, sin, mask):
        residual = x
        x = self.input_layernorm(x)
        x = self.self_attn(x, cos, sin, mask)
        x = residual + x
        residual = x
        x = self.post_attention_layernorm(x)
        x = self.mlp(x)
        return residual + x


class LlamaForCausalLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(DecoderLayer(c) for _ in range(c["num_hidden_layers"]))
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)
        if c["tie_word_embeddings"]:  # PreTrainedModel.tie_weights: one Parameter, two uses
            self.lm_head.weight = self.embed_tokens.weight

    def rotary(self, s, dtype):
        """LlamaRotaryEmbedding: cos and sin of position x inverse frequency, made under
        no_grad (they need no gradient)."""
        d = self.c["hidden_size"] // self.c["num_attention_heads"]
        with torch.no_grad():
            inv = 1.0 / (self.c["rope_theta"] ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
            freqs = torch.outer(torch.arange(s, dtype=torch.float32), inv)
            emb = torch.cat((freqs, freqs), dim=-1)
            return emb.cos().to(dtype)[None, None], emb.sin().to(dtype)[None, None]

    def forward(self, ids):
        s = ids.shape[1]
        x = self.embed_tokens(ids)
        cos, sin = self.rotary(s, x.dtype)
        with torch.no_grad():
            mask = torch.full((s, s), torch.finfo(x.dtype).min).triu(1)[None, None]
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.lm_head(self.norm(x))


def loss_of(logits, labels):
    """ForCausalLMLoss: labels padded with -100 and shifted left; logits upcast to fp32."""
    labels = F.pad(labels, (0, 1), value=-100)[..., 1:]
    v = logits.shape[-1]
    return F.cross_entropy(logits.float().view(-1, v), labels.reshape(-1), ignore_index=-100)


def engine(dlcost, batch, seq, optimizer, zero_grad, config=None, extra=()):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(config or CONFIG, f)
        path = f.name
    cmd = [dlcost, "estimate", path, "--mode", "train", "--batch", str(batch),
           "--seq-len", str(seq), "--dtype", "fp32", "--attention", "eager", "--optimizer",
           optimizer, "--zero-grad", zero_grad, "--optimizer-impl", "for_loop", "--json", *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["memory"]


def saved_with_loss(model, ids):
    """Bytes saved during the forward and the loss (the loss keeps the fp32 log-softmax and
    the labels), each storage once, parameters excluded."""
    params = {v.storage_of(p)[0] for p in model.parameters()}
    seen = {}

    def pack(t):
        key, nbytes = v.storage_of(t)
        if key not in params:
            seen[key] = nbytes
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = loss_of(model(ids), ids)
    del loss
    return sum(seen.values())


def measure(batch, seq, optimizers, config=None):
    """Saved bytes and the step peaks (see validate_torch.measure), fp32 on CPU."""
    torch.manual_seed(0)
    config = config or CONFIG
    model = LlamaForCausalLM(config).train()
    ids = torch.randint(0, config["vocab_size"], (batch, seq))
    result = {"saved": saved_with_loss(model, ids)}
    state = {k: t.clone() for k, t in model.state_dict().items()}
    for name in optimizers:
        model.load_state_dict(state)
        for p in model.parameters():
            p.grad = None
        opt = v.make_optimizer(name, model.parameters())
        result[name] = v.training_peaks(model, opt, ids, ids, loss_of, hold_output=False)
        del opt
    return result


# The measured cases: (what, batch, sequence length, tied head). Two sequences of 128 tokens
# peak at the logits' backward; one of 16 tokens at a parameter's gradient (the LM head's new
# gradient with kept gradients, the embedding's with a tied head), as short-sequence
# fine-tuning does.
CASES = [
    ("2 x 128 tokens", 2, 128, False),
    ("1 x 16 tokens", 1, 16, False),
    ("1 x 16 tokens, tied head", 1, 16, True),
]


def cached(cache, key, optimizers, measure_fn):
    """The measurement under `key` in `cache` (validate_torch's cache: measurements do not
    depend on dlcost), measured and stored when missing or lacking an optimizer."""
    meas = cache.get(key) if cache is not None else None
    if meas is None or any(o not in meas for o in optimizers):
        meas = measure_fn()
        if cache is not None:
            cache[key] = meas
    return meas


def compare(what, meas, optimizers, add, estimate):
    """The table's lines for one measured case through `add`, and its (what, figure, estimate,
    measured) rows: saved bytes, then steps 2, 3 and 1 per optimizer. `estimate(optimizer,
    zero_grad)` is the engine's memory for that step."""
    rows = []
    saved_est = v.term(estimate("sgd", "set_to_none"), "activations")
    add(f"| {what} | saved for backward | {v.mib(meas['saved'])} | {v.mib(saved_est)} | "
        f"{v.pct(v.err(saved_est, meas['saved']))} | | |")
    rows.append((what, "saved for backward", saved_est, meas["saved"]))
    for o in optimizers:
        (m1, r1, _), (m2, r2, _), (m3, r3, _) = [v.step_peaks(p) for p in meas[o]]
        none = estimate(o, "set_to_none")
        kept = estimate(o, "zero")
        for figure, e, m, r in ((f"{o}: step 2 (set_to_none)", none["total"], m2, r2),
                                (f"{o}: step 3 (kept)", kept["total"], m3, r3),
                                (f"{o}: step 1", none["first_step_total"], m1, r1)):
            add(f"| {what} | {figure} | {v.mib(m)} | {v.mib(e)} | {v.pct(v.err(e, m))} | "
                f"{v.mib(r)} | {v.pct(v.err(e, r))} |")
            rows.append((what, figure, e, m))
    return rows


def report(dlcost, optimizers, add, cache=None):
    """Measures, compares, and writes the table's lines through `add`: per case, figure,
    measured with 2.x's gradient accumulation, estimate, error, and 1.13's own figure and the
    error against it."""
    rows = []
    for what, batch, seq, tied in CASES:
        config = dict(CONFIG, tie_word_embeddings=tied)
        key = f"llama|{batch}x{seq}" + ("|tied" if tied else "")
        meas = cached(cache, key, optimizers, lambda: measure(batch, seq, optimizers, config))
        rows += compare(what, meas, optimizers, add,
                        lambda o, zero_grad: engine(dlcost, batch, seq, o, zero_grad, config))
    return rows
