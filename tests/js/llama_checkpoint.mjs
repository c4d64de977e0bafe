// A small Llama checkpoint written by the tests, for the component check of a dropped
// safetensors file (node and browser tests): the config of tests/cli/test_cli_model_files.sh's
// llama64 (2 layers, width 64, 4 heads of 16, 2 KV heads, MLP 128, vocabulary 256, untied
// head) and its tensors named and shaped as transformers' modeling_llama.py names them
// (model.embed_tokens, model.layers.N.self_attn.{q,k,v,o}_proj, mlp.{gate,up,down}_proj,
// input_layernorm, post_attention_layernorm, model.norm, lm_head). The file is the
// safetensors layout (huggingface/safetensors README: 8-byte little-endian header length,
// JSON header, data), F32 zeros.

export const LLAMA64_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  hidden_size: 64,
  intermediate_size: 128,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  num_hidden_layers: 2,
  vocab_size: 256,
  max_position_embeddings: 512,
  tie_word_embeddings: false,
  rms_norm_eps: 1e-5,
};

/** The checkpoint's tensors: {name: shape}, in the order transformers saves them. */
export function llama64Tensors() {
  const t = { 'model.embed_tokens.weight': [256, 64] };
  for (let i = 0; i < 2; i += 1) {
    const l = `model.layers.${i}.`;
    Object.assign(t, {
      [`${l}self_attn.q_proj.weight`]: [64, 64],
      [`${l}self_attn.k_proj.weight`]: [32, 64],
      [`${l}self_attn.v_proj.weight`]: [32, 64],
      [`${l}self_attn.o_proj.weight`]: [64, 64],
      [`${l}mlp.gate_proj.weight`]: [128, 64],
      [`${l}mlp.up_proj.weight`]: [128, 64],
      [`${l}mlp.down_proj.weight`]: [64, 128],
      [`${l}input_layernorm.weight`]: [64],
      [`${l}post_attention_layernorm.weight`]: [64],
    });
  }
  Object.assign(t, { 'model.norm.weight': [64], 'lm_head.weight': [256, 64] });
  return t;
}

/** Each component's elements as the shapes above add them up (not from dlcost): embeddings
 *  256 x 64; attention 2 x (64x64 + 32x64 + 32x64 + 64x64); MLP 2 x 3 x 128x64; norms
 *  2 x 2 x 64 + 64; LM head 256 x 64. */
export const LLAMA64_COMPONENTS = {
  embeddings: 16384,
  attention: 24576,
  mlp: 49152,
  norms: 320,
  lm_head: 16384,
};

/** A safetensors file of `tensors` ({name: shape}), F32 zeros. @returns {Uint8Array} */
export function safetensorsBytes(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, shape] of Object.entries(tensors)) {
    const bytes = 4 * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (text.length % 8)) % 8);
  const out = new Uint8Array(8 + text.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
  out.set(new TextEncoder().encode(text), 8);
  return out;
}
