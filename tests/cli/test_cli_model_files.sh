#!/usr/bin/env bash
# The CLI's contract for model files: `dlcost inspect` on generated GGUF, safetensors and
# index files (exact counts), bad files exit 2 naming the field, and `estimate --hf` reads
# the local Hugging Face cache or says where it looked.
set -u
: "${DLCOST:?set DLCOST to the dlcost binary}"
here="$(cd "$(dirname "$0")" && pwd)"
presets="$here/../../core/presets/hf"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=check_output.sh
source "$here/check_output.sh"

python3 "$here/../model_files/make_model_files.py" "$tmp"

# tiny-llama-q4km.gguf (make_model_files.py): 2 layers of width 256, ffn 768, vocab 1000.
# Parameters: embeddings and output 2 x 256,000; per layer 4 x 256 norms/...: the sum of the
# tensor shapes the generator writes, 2,086,144; bytes from ggml-common.h's block sizes.
check "inspect gguf: parameters" 0 '"parameters": 2086144' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf" --json
check "inspect gguf: bytes" 0 '"weight_bytes": 1362128' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf" --json
check "inspect gguf: table" 0 'Q4_K        11   1,370,112' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf"
check "inspect gguf: KV heads" 0 'KV heads            2' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf"
check "inspect gguf: tensors" 0 'blk.1.ffn_down.weight' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf" --tensors
check "inspect safetensors" 0 '"parameters": 132160' "$DLCOST" inspect "$tmp/tiny-bf16.safetensors" --json
check "inspect index" 0 '"weight_bytes": 262400' "$DLCOST" inspect "$tmp/model.safetensors.index.json" --json
# The shards next to their index: 64,000 + 64 + 64,000 parameters, 128,000 + 256 + 128,000
# bytes (BF16 2 bytes, F32 4), equal to metadata.total_size (checked).
check "index with its shards" 0 '"parameters": 128064' "$DLCOST" inspect "$tmp/sharded/model.safetensors.index.json" --json
check "index with its shards: bytes" 0 '"weight_bytes": 256256' "$DLCOST" inspect "$tmp/sharded/model.safetensors.index.json" --json
check "index without its shards" 0 'not found next to the index: model-00001-of-00002.safetensors' \
  "$DLCOST" inspect "$tmp/model.safetensors.index.json"
python3 - "$tmp/sharded/model.safetensors.index.json" "$tmp/sharded/bad.index.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["metadata"]["total_size"] += 2
json.dump(d, open(sys.argv[2], "w"))
PY
check "total_size disagrees with the shards" 2 'error at /metadata/total_size' \
  "$DLCOST" inspect "$tmp/sharded/bad.index.json"
check "inspect decimal units" 0 '1.36 MB' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf" --units decimal

# The architecture a GGUF stands for: the engine counts exactly the file's tensors (the
# generator writes every tensor a llama layer has: difference 0).
check "inspect gguf: config check" 0 '(difference 0)' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf"
check "inspect --config" 0 '"num_key_value_heads": 2' "$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf" --config
check "mixtral from experts" 0 '"num_local_experts": 4' "$DLCOST" inspect "$tmp/tiny-moe.gguf" --config
check "estimate --gguf" 0 '"total": 2086144' "$DLCOST" estimate --gguf "$tmp/tiny-llama-q4km.gguf" --json
check "estimate --gguf: the file's bytes" 0 '"weight_bytes": 1362128' "$DLCOST" estimate --gguf "$tmp/tiny-llama-q4km.gguf" --json
check "estimate --gguf: human note" 0 'of weights as stored (Q4_K, Q6_K, F32)' \
  "$DLCOST" estimate --gguf "$tmp/tiny-llama-q4km.gguf" --mode infer
check "inspect --config of safetensors" 2 'only a GGUF file' "$DLCOST" inspect "$tmp/tiny-bf16.safetensors" --config

head -c 5000 "$tmp/tiny-llama-q4km.gguf" >"$tmp/cut.gguf"
check "truncated gguf" 2 'error at /metadata' "$DLCOST" inspect "$tmp/cut.gguf"
head -c 1000000 "$tmp/tiny-llama-q4km.gguf" >"$tmp/partial.gguf"
check "incomplete download" 2 'an incomplete download' "$DLCOST" inspect "$tmp/partial.gguf"
printf 'GGUF\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00' >"$tmp/huge.gguf"
check "2^60 tensors" 2 'error at /tensor_count' "$DLCOST" inspect "$tmp/huge.gguf"
check "a config.json is not an index" 2 'has no weight_map' "$DLCOST" inspect "$presets/gpt2.json"
check "missing file" 2 'cannot read file' "$DLCOST" inspect "$tmp/nothing.gguf"
check "inspect needs a file" 2 'inspect needs one FILE' "$DLCOST" inspect
check "inspect --json error" 2 '"code": "value"' "$DLCOST" inspect "$tmp/cut.gguf" --json

# The weights term is the file's bytes: the GGUF's 1,362,128 bytes of Q4_K/Q6_K/F32 tensors,
# whatever --weight-dtype says; the report's formula names the file.
check "estimate --gguf: weights term is the file" 0 '"formula": "weight_bytes (the gguf file' \
  "$DLCOST" estimate --gguf "$tmp/tiny-llama-q4km.gguf" --mode infer --weight-dtype int4 --json
check "estimate --gguf: the term's bytes" 0 '| weights | 1,362,128 |' \
  bash -c '"$0" estimate --gguf "$1" --mode infer --json | python3 -c "import json,sys; t=json.load(sys.stdin)[\"memory\"][\"terms\"][0]; print(\"|\", t[\"key\"], \"|\", format(t[\"bytes\"], \",\"), \"|\")"' \
  "$DLCOST" "$tmp/tiny-llama-q4km.gguf"
"$DLCOST" inspect "$tmp/tiny-llama-q4km.gguf" --config >"$tmp/tiny-config.json"
check "--weights with a config.json" 0 '"formula": "weight_bytes (the safetensors file' \
  "$DLCOST" estimate "$tmp/tiny-config.json" --weights "$tmp/tiny-bf16.safetensors" --json
check "--weights: an index without its shards" 2 'needs its shards' \
  "$DLCOST" estimate "$tmp/tiny-config.json" --weights "$tmp/model.safetensors.index.json"
check "--weights: the count differs" 0 'the safetensors file holds 132,160 parameters' \
  "$DLCOST" estimate "$tmp/tiny-config.json" --weights "$tmp/tiny-bf16.safetensors"

# The file's tensors by component against the engine's count for the config: a 2-layer Llama
# of width 64 written as transformers' modeling_llama.py names its modules; the same with
# a rotary inv_freq buffer older checkpoints stored (8 values, placed under attention).
python3 - "$tmp" <<'PY'
import json, struct, sys
cfg = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
       "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,
       "num_hidden_layers": 2, "vocab_size": 256, "max_position_embeddings": 512,
       "tie_word_embeddings": False, "rms_norm_eps": 1e-5}
json.dump(cfg, open(sys.argv[1] + "/llama64.json", "w"))
t = {"model.embed_tokens.weight": [256, 64], "model.norm.weight": [64], "lm_head.weight": [256, 64]}
for i in range(2):
    l = "model.layers.%d." % i
    t.update({l + "self_attn.q_proj.weight": [64, 64], l + "self_attn.k_proj.weight": [32, 64],
              l + "self_attn.v_proj.weight": [32, 64], l + "self_attn.o_proj.weight": [64, 64],
              l + "mlp.gate_proj.weight": [128, 64], l + "mlp.up_proj.weight": [128, 64],
              l + "mlp.down_proj.weight": [64, 128], l + "input_layernorm.weight": [64],
              l + "post_attention_layernorm.weight": [64]})
def write(name, tensors):
    hdr, off = {}, 0
    for n, s in tensors.items():
        k = 1
        for x in s:
            k *= x
        hdr[n] = {"dtype": "F32", "shape": s, "data_offsets": [off, off + 4 * k]}
        off += 4 * k
    h = json.dumps(hdr).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    open(sys.argv[1] + "/" + name, "wb").write(struct.pack("<Q", len(h)) + h + b"\0" * off)
write("llama64.safetensors", t)
t["model.layers.0.self_attn.rotary_emb.inv_freq"] = [8]
write("llama64-buffer.safetensors", t)
PY
check "--weights: components match" 0 "each equals the engine's count" \
  "$DLCOST" estimate "$tmp/llama64.json" --weights "$tmp/llama64.safetensors"
check "--weights: a component differs" 0 '(difference 8)' \
  "$DLCOST" estimate "$tmp/llama64.json" --weights "$tmp/llama64-buffer.safetensors"
check "--weights: components in JSON" 0 '"difference": 8' \
  "$DLCOST" estimate "$tmp/llama64.json" --weights "$tmp/llama64-buffer.safetensors" --json

# ONNX: the torch.onnx export of tests/fixtures/onnx (make_onnx_files.py --tiny): 845
# parameters + 8 BatchNorm running statistics, 4 bytes each.
onnx="$here/../fixtures/onnx/tiny_cnn.onnx"
check "inspect onnx" 0 '"parameters": 853' "$DLCOST" inspect "$onnx" --json
check "inspect onnx: bytes" 0 '"weight_bytes": 3412' "$DLCOST" inspect "$onnx" --json
check "inspect onnx: operators" 0 'BatchNormalization 1 Conv 1 Flatten 1 Gemm 1 Relu 1' "$DLCOST" inspect "$onnx"
head -c 2000 "$onnx" >"$tmp/cut.onnx"
check "truncated onnx" 2 'truncated or not an ONNX file' "$DLCOST" inspect "$tmp/cut.onnx"
# estimate --onnx: the graph as a layer graph gives the preset's report (resnet18 exported by
# make_onnx_graphs.py; torchvision ResNet18_Weights num_params 11,689,512, _ops 1.814).
tv="$here/../fixtures/onnx"
check "estimate --onnx params" 0 '"total": 11689512' "$DLCOST" estimate --onnx "$tv/resnet18.onnx" --json
check "estimate --onnx MACs = the preset's" 0 \
  "$("$DLCOST" estimate --preset resnet18 --json | grep -m1 '"forward"')" \
  "$DLCOST" estimate --onnx "$tv/resnet18.onnx" --json
check "estimate --onnx with flags" 0 '"batch": 8' "$DLCOST" estimate --onnx "$tv/resnet18.onnx" --batch 8 --json
check "inspect onnx: layer graph" 0 '69 of 69 nodes understood' "$DLCOST" inspect "$tv/resnet18.onnx"
check "inspect onnx --config: the layer graph" 0 '"type": "conv2d"' "$DLCOST" inspect "$tv/resnet18.onnx" --config
check "estimate --onnx and --preset" 2 'give one MODEL.json' \
  "$DLCOST" estimate --onnx "$tv/resnet18.onnx" --preset resnet18
# torchvision models exported with random weights count torchvision's published num_params
# (torchvision 0.14 models/squeezenet.py and alexnet.py, weights meta "num_params"); alexnet's
# 244 MB file is read by skipping its weights.
if /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then
  mkdir -p "$tmp/tv"
  /usr/bin/python3 "$here/../model_files/make_onnx_files.py" --torchvision "$tmp/tv" >/dev/null 2>&1
  check "squeezenet1_1.onnx = torchvision num_params" 0 '"parameters": 1235496' \
    "$DLCOST" inspect "$tmp/tv/squeezenet1_1.onnx" --json
  check "alexnet.onnx = torchvision num_params" 0 '"parameters": 61100840' \
    "$DLCOST" inspect "$tmp/tv/alexnet.onnx" --json
  # The full 244 MB export (weights inside) as a layer graph: the preset's MACs
  # (torchvision AlexNet_Weights _ops 0.714 GMACs; test_presets_cnn.cpp).
  check "estimate --onnx alexnet with its weights" 0 '"forward": 714188480' \
    "$DLCOST" estimate --onnx "$tmp/tv/alexnet.onnx" --batch 1 --json
else
  echo "cli model files: python3-torch missing, torchvision ONNX cross-check skipped"
fi

# --hf: a fake Hugging Face cache laid out as huggingface_hub lays it out.
snap="$tmp/hf/hub/models--openai-community--gpt2/snapshots/abc123"
mkdir -p "$snap" "$tmp/hf/hub/models--openai-community--gpt2/refs"
cp "$presets/gpt2.json" "$snap/config.json"
echo abc123 >"$tmp/hf/hub/models--openai-community--gpt2/refs/main"
# gpt2's exact count (Hugging Face model card: 124,439,808), as for the file itself.
check "--hf from HF_HOME" 0 '"total": 124439808' \
  env HF_HOME="$tmp/hf" "$DLCOST" estimate --hf openai-community/gpt2 --json
check "--hf from HF_HUB_CACHE" 0 '"total": 124439808' \
  env HF_HUB_CACHE="$tmp/hf/hub" HF_HOME=/nonexistent "$DLCOST" estimate --hf openai-community/gpt2 --json
check "--hf absent says where it looked" 2 "$tmp/hf/hub/models--meta-llama--Llama-3-8B/snapshots/*/config.json" \
  env HF_HOME="$tmp/hf" "$DLCOST" estimate --hf meta-llama/Llama-3-8B
check "--hf bad id" 2 'ORG/NAME' env HF_HOME="$tmp/hf" "$DLCOST" estimate --hf gpt2
check "--hf with a flag" 0 '"seq_len": 128' \
  env HF_HOME="$tmp/hf" "$DLCOST" estimate --hf openai-community/gpt2 --seq-len 128 --json

# Files by their bytes, not their names: `estimate FILE` reads a GGUF or ONNX file as
# --gguf/--onnx would, whatever it is called; a safetensors file is refused with what to do;
# anything else names its first bytes and the kinds accepted.
cp "$tmp/tiny-llama-q4km.gguf" "$tmp/renamed.bin"
check "estimate a GGUF by its bytes" 0 '"total": 2086144' "$DLCOST" estimate "$tmp/renamed.bin" --json
cp "$here/../fixtures/onnx/squeezenet1_1.onnx" "$tmp/graph.dat"
check "estimate an ONNX file by its bytes" 0 '"total": 1235496' "$DLCOST" estimate "$tmp/graph.dat" --json
check "inspect an ONNX file by its bytes" 0 '"format": "onnx"' "$DLCOST" inspect "$tmp/graph.dat" --json
printf 'PK\003\004zipped' >"$tmp/archive.json"
check "unknown bytes are named" 2 "starts with 50 4B 03 04" "$DLCOST" estimate "$tmp/archive.json"
check "unknown bytes: the kinds accepted" 2 "GGUF" "$DLCOST" inspect "$tmp/archive.json"

echo "cli model files: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
