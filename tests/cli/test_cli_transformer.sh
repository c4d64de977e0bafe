#!/usr/bin/env bash
# The CLI's contract for transformers: a config.json file is a model, workload flags merge
# into it, bad input exits 2 naming the field (or the flag).
set -u
: "${DLCOST:?set DLCOST to the dlcost binary}"
here="$(cd "$(dirname "$0")" && pwd)"
presets="$here/../../core/presets/hf"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=check_output.sh
source "$here/check_output.sh"

# gpt2's exact count from its config.json (Hugging Face model card: 124,439,808).
check "config.json file" 0 '"total": 124439808' "$DLCOST" estimate "$presets/gpt2.json" --json
check "flags merge into a config.json" 0 '"seq_len": 256' \
  "$DLCOST" estimate "$presets/gpt2.json" --seq-len 256 --json
# KV cache: 2 x 32 layers x 32 heads x 128 x 2 B x 1024 tokens (Pope et al. 2022, section 2).
check "preset with inference flags" 0 'KV cache                 512.0 MiB       536,870,912 B' \
  "$DLCOST" estimate --preset llama-2-7b --mode infer --dtype fp16 --prompt-tokens 1024
check "human table folds repeated layers" 0 'layers.0-31.mlp (x32)' \
  "$DLCOST" estimate --preset llama-2-7b --finetune lora --dtype bf16
# Under LoRA the first attention keeps less (its input needs no gradient), so it stands apart.
check "human table folds the alike layers only" 0 'layers.1-31.attention (x31)' \
  "$DLCOST" estimate --preset llama-2-7b --finetune lora --dtype bf16
check "help lists the transformer flags" 0 '--lora-targets' "$DLCOST" --help

python3 - "$presets/llama-2-7b.json" "$tmp/no_hidden.json" <<'PY'
import json, sys
cfg = json.load(open(sys.argv[1])); del cfg["hidden_size"]
json.dump(cfg, open(sys.argv[2], "w"))
PY
check "missing hidden_size names the field in the file" 2 'error at /hidden_size' \
  "$DLCOST" estimate "$tmp/no_hidden.json"
check "negative --seq-len names the flag" 2 'error at --seq-len' \
  "$DLCOST" estimate --preset gpt2 --seq-len -5
check "unknown LoRA module names the flag" 2 'error at --lora-targets' \
  "$DLCOST" estimate --preset gpt2 --finetune lora --lora-targets q_proj,query_key_value
check "error JSON with --json" 2 '"code": "missing_field"' \
  "$DLCOST" estimate "$tmp/no_hidden.json" --json

# --task starts from the page's task table (core/src/task_defaults.cpp): the same report as
# the QLoRA recipe's flags written out (qlora.py: 4-bit base, bf16, full checkpointing,
# AdamW, rank 64, alpha 16, all linear layers, 16 accumulation steps); flags override the task; a CNN gets
# torchvision's SGD with momentum; a task the model cannot run is a usage error.
qlora_flags=(--mode train --finetune qlora --weight-dtype int4 --dtype bf16 --optimizer adamw
  --recompute full --lora-rank 64 --lora-alpha 16 --lora-targets all-linear --grad-accum 16)
a="$("$DLCOST" estimate --preset llama-3-8b --task qlora --seq-len 2048 --batch 4 --gpu rtx-4090 --json)"
b="$("$DLCOST" estimate --preset llama-3-8b "${qlora_flags[@]}" --seq-len 2048 --batch 4 --gpu rtx-4090 --json)"
if [ -n "$a" ] && [ "$a" = "$b" ]; then pass=$((pass + 1)); else
  fail=$((fail + 1))
  echo "FAIL: --task qlora differs from the QLoRA flags"
fi
check "--task qlora fits Llama-3-8B on a 24 GB card" 0 '"fits": true' \
  "$DLCOST" estimate --preset llama-3-8b --task qlora --seq-len 2048 --batch 4 --gpu rtx-4090 --json
check "flags override the task" 0 '"lora_rank": 16' \
  "$DLCOST" estimate --preset llama-3-8b --task qlora --lora-rank 16 --json
check "a CNN's training task is torchvision's SGD with momentum" 0 '"optimizer": "momentum"' \
  "$DLCOST" estimate --preset resnet50 --task train --json
check "a CNN has no LoRA task" 2 '--task must be one of train, infer' \
  "$DLCOST" estimate --preset resnet50 --task lora

# Without --task the CLI starts where the page's first screen starts for the same model (issue
# #27): a preset alone is `--task train`, a serving engine is `--task infer` (bf16 weights, so
# vLLM on an L4 holds users at 4096 tokens, where fp32 weights left "at most 0 users").
for setup in "resnet50|" "llama-3.1-8b|" "qwen2-7b|--engine vllm --gpu l4 --context 4096" \
  "qwen2-7b|--mode infer"; do
  IFS='|' read -r preset extra <<<"$setup"
  task=train
  [ -n "$extra" ] && task=infer
  # shellcheck disable=SC2086
  if [ "$("$DLCOST" estimate --preset "$preset" $extra --json)" = \
    "$("$DLCOST" estimate --preset "$preset" --task "$task" $extra --json)" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: estimate --preset $preset $extra differs from --task $task"
  fi
done
check "vLLM on an L4 at 4096 tokens starts in bf16 and holds users" 0 '"dtype": "bf16"' \
  "$DLCOST" estimate --preset qwen2-7b --engine vllm --gpu l4 --context 4096 --json
check "the document's and the flags' fields win over the task" 0 '"optimizer": "adam"' \
  "$DLCOST" estimate --preset resnet50 --optimizer adam --json

# One figure per question (issue #32): with a serving engine the text shows the plan's users,
# time to first token and tokens/s, each with its calibrated range, and not the GPU fit's
# training-style largest batch or step time beside them; every engine and device class.
for setup in "vllm h100-sxm" "sglang h100-sxm" "hf rtx-4090" "llamacpp rtx-4090" \
  "llamacpp apple-m1-max-32gb" "llamacpp h100-pcie"; do
  read -r engine gpu <<<"$setup"
  out="$("$DLCOST" estimate --preset llama-3-8b --mode infer --engine "$engine" --gpu "$gpu" 2>&1)"
  if grep -q "at most .* users" <<<"$out" && grep -q "tokens/s per user" <<<"$out" &&
    grep -q "≈ [0-9.]* ([0-9.]*–[0-9.]*) tokens/s per user" <<<"$out" &&
    ! grep -q "largest batch that fits" <<<"$out" && ! grep -q "step time" <<<"$out" &&
    [ "$(grep -c "tokens/s per user" <<<"$out")" -eq 1 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: one figure per question with --engine $engine --gpu $gpu"
    echo "$out" | tail -20
  fi
done

echo "cli transformer: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
