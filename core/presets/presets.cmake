# Every built-in preset, as family/name.json under core/presets. The file name is the
# preset's name; the folder its family.
set(DLCOST_PRESET_FILES
  cnn/mlp_mnist.json
  cnn/alexnet.json
  hf/gpt2.json
  hf/gpt2-medium.json
  hf/gpt2-large.json
  hf/gpt2-xl.json
  hf/bert-base-uncased.json
  hf/bert-large-uncased.json
  hf/t5-base.json
  hf/pythia-70m.json
  hf/llama-2-7b.json
  hf/llama-2-13b.json
  hf/llama-2-70b.json
  hf/llama-3-8b.json
  hf/llama-3-70b.json
  hf/mistral-7b.json
  hf/mixtral-8x7b.json
  hf/qwen2-7b.json
  hf/qwen3-8b.json
  hf/gemma-7b.json
  hf/gemma-2-9b.json
  hf/phi-2.json
  hf/phi-3-mini-4k.json
  hf/falcon-7b.json
)
