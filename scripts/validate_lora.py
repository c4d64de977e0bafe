"""LoRA adapters on the plain-PyTorch Llama of validate_llama.py, measured as the CNNs are.

The adapter follows PEFT's LoRA Linear (huggingface/peft, src/peft/tuners/lora/layer.py at
5d602fdbf): `update_layer` (lines 256-281) makes `lora_dropout` an nn.Identity when the
dropout is 0 (LoraConfig's default, config.py line 634), `lora_A = nn.Linear(in_features, r,
bias=False)`, `lora_B = nn.Linear(r, out_features, bias=False)` and `scaling = lora_alpha / r`;
`Linear.forward` (lines 1035-1074) runs the frozen base layer, casts the input to the
adapter's dtype (`_cast_input_dtype`, tuners_utils.py lines 2176-2191: a no-op when the dtypes
agree), adds `lora_B(lora_A(dropout(x))) * scaling` and casts the sum back to the base
output's dtype. Every base parameter is frozen (PEFT's `mark_only_lora_as_trainable`), the
optimizer gets the adapters only. Run through scripts/validate-torch.
"""

import math

import torch
import torch.nn as nn

import validate_common as v
import validate_llama as llama

RANK = 8
ALPHA = 16


class LoraLinear(nn.Module):
    def __init__(self, base, r, alpha):
        super().__init__()
        self.base_layer = base
        self.lora_dropout = nn.Identity()
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        self.scaling = alpha / r
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x):
        result = self.base_layer(x)
        result_dtype = result.dtype
        x = x.to(self.lora_A.weight.dtype)
        result = result + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling
        return result.to(result_dtype)


def lora_model(config, targets):
    """The Llama with every base parameter frozen and adapters on `targets` (module names, or
    "all-linear": every linear module of the blocks, as PEFT's all-linear, the LM head not)."""
    torch.manual_seed(0)
    model = llama.LlamaForCausalLM(config).train()
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in model.layers:
        for block in (layer.self_attn, layer.mlp):
            for name, child in list(block.named_children()):
                if isinstance(child, nn.Linear) and (targets == ["all-linear"] or name in targets):
                    setattr(block, name, LoraLinear(child, RANK, ALPHA))
    return model


def engine(dlcost, batch, seq, optimizer, zero_grad, targets):
    return llama.engine(dlcost, batch, seq, optimizer, zero_grad, extra=[
        "--finetune", "lora", "--lora-rank", str(RANK), "--lora-alpha", str(ALPHA),
        "--lora-targets", ",".join(targets)])


def measure(batch, seq, optimizers, targets):
    model = lora_model(llama.CONFIG, targets)
    torch.manual_seed(1)
    ids = torch.randint(0, llama.CONFIG["vocab_size"], (batch, seq))
    result = {"saved": llama.saved_with_loss(model, ids)}
    state = {k: t.clone() for k, t in model.state_dict().items()}
    adapters = [p for p in model.parameters() if p.requires_grad]
    for name in optimizers:
        model.load_state_dict(state)
        for p in adapters:
            p.grad = None
        opt = v.make_optimizer(name, adapters)
        result[name] = v.training_peaks(model, opt, ids, ids, llama.loss_of, hold_output=False)
        del opt
    return result


# (what, batch, sequence length, targets)
CASES = [
    ("q,v; 2 x 128 tokens", 2, 128, ["q_proj", "v_proj"]),
    ("all-linear; 2 x 128 tokens", 2, 128, ["all-linear"]),
    ("q,v; 1 x 16 tokens", 1, 16, ["q_proj", "v_proj"]),
]


def report(dlcost, optimizers, add, cache=None):
    """Measures, compares, and writes the table's lines through `add` (as
    validate_llama.report)."""
    rows = []
    for what, batch, seq, targets in CASES:
        key = f"lora|{batch}x{seq}|{','.join(targets)}|r{RANK}"
        meas = llama.cached(cache, key, optimizers,
                            lambda: measure(batch, seq, optimizers, targets))
        rows += llama.compare(what, meas, optimizers, add,
                              lambda o, zero_grad: engine(dlcost, batch, seq, o, zero_grad,
                                                          targets))
    return rows
