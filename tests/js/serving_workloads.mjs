// The two serving workloads the wasm-module tests share (serving.test.mjs checks their plans
// against the CLI; report_types.test.mjs checks their reports against types.d.ts): vLLM with a
// paged KV cache, llama.cpp with part of the model in host memory, and llama.cpp on a CPU.

export const VLLM = { mode: 'infer', dtype: 'bf16', engine: 'vllm', gpu: 'h100-sxm', context: 8192, users: 32 };

export const LLAMA_CPP = {
  mode: 'infer',
  dtype: 'fp16',
  engine: 'llamacpp',
  quant: 'gguf',
  gguf_type: 'Q4_K_M',
  context: 4096,
  users: 2,
  gpu: 'rtx-4090',
  n_gpu_layers: 20,
};

export const LLAMA_CPP_CPU = {
  mode: 'infer',
  dtype: 'fp16',
  engine: 'llamacpp',
  quant: 'gguf',
  gguf_type: 'Q4_K_M',
  context: 4096,
  gpu: 'amd-epyc-9654',
  system_ram_gib: 64,
};
