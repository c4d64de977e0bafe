#pragma once
// A transformer described by its hyper-parameters, as a Hugging Face config.json or dlcost's
// generic transformer form gives them. Parameter counts follow from these fields exactly.

#include <cstdint>
#include <string>
#include <vector>

namespace dlcost {

enum class NormKind {
  kLayerNorm,  ///< weight (and bias when Transformer::norm_bias): h or 2h parameters
  kRmsNorm,    ///< weight only: h parameters (Llama, Mistral, T5's LayerNorm without mean)
};

enum class PositionKind {
  kLearned,       ///< a learned table of max_positions x hidden (GPT-2, BERT)
  kRotary,        ///< rotary embeddings: no parameters (Llama, GPT-NeoX, Phi)
  kRelativeBias,  ///< T5's relative-position bias: buckets x heads, first layer of each stack
  kNone,          ///< ALiBi or nothing: no parameters
};

enum class TransformerKind {
  kDecoder,         ///< causal language model with an LM head (GPT, Llama)
  kEncoder,         ///< bidirectional encoder without LM head (BERT's BertModel)
  kEncoderDecoder,  ///< T5: an encoder stack and a decoder stack with cross-attention
};

/// One transformer. Sizes are counts (not bytes); 0 means "absent" where noted.
struct Transformer {
  std::string architecture;  ///< the config's model_type, e.g. "llama"; "generic" otherwise
  TransformerKind kind = TransformerKind::kDecoder;
  int64_t layers = 0;          ///< decoder layers (encoder layers for kEncoder), >= 1
  int64_t encoder_layers = 0;  ///< kEncoderDecoder only: layers of the encoder stack
  int64_t hidden = 0;          ///< model width h
  int64_t heads = 0;           ///< query heads a
  int64_t kv_heads = 0;        ///< key/value heads (GQA/MQA), divides heads
  int64_t head_dim = 0;        ///< per-head width (hidden / heads unless the config says)
  int64_t ffn = 0;             ///< intermediate size of one MLP (of one expert under MoE)
  int64_t vocab = 0;
  bool gated_mlp = false;  ///< SwiGLU/GeGLU: gate, up and down projections (3 matrices)
  NormKind norm = NormKind::kLayerNorm;
  bool norm_bias = true;  ///< LayerNorm carries a bias (ignored for RMSNorm)
  /// Biases of the projections, by group: q/k/v, attention output, MLP (both or all three
  /// matrices), LM head.
  bool qkv_bias = false;
  bool out_bias = false;
  bool mlp_bias = false;
  bool lm_head_bias = false;
  bool tied_embeddings = false;  ///< the LM head reuses the token embedding matrix
  PositionKind positions = PositionKind::kRotary;
  int64_t max_positions = 0;     ///< context length; rows of the learned table
  int64_t relative_buckets = 0;  ///< kRelativeBias only
  int64_t type_vocab = 0;        ///< BERT token-type embeddings (0: none)
  bool embedding_norm = false;   ///< a norm right after the embeddings (BERT)
  bool pooler = false;           ///< BERT pooler: dense h x h + bias on the first token
  bool parallel_block = false;   ///< attention and MLP read the same input (GPT-J, Falcon)
  /// 1 when a parallel block shares one norm; 4 with norms after attention and MLP too
  /// (Gemma 2's pre/post norms).
  int64_t norms_per_layer = 2;
  bool qk_norm = false;            ///< per-head norms of q and k (Qwen3, Phi's qk_layernorm)
  bool final_norm = true;          ///< a norm after the last layer
  int64_t experts = 0;             ///< routed experts per MoE layer (0: dense MLP)
  int64_t experts_per_token = 0;   ///< experts each token is routed to (MoE only)
  bool attention_dropout = false;  ///< dropout on attention probabilities (training masks)
  bool hidden_dropout = false;     ///< dropout on residual branches and embeddings
};

/// Parameters by component, exact. total = embeddings + attention + mlp + norms + lm_head
/// + other.
struct TransformerParams {
  int64_t embeddings = 0;  ///< token, position and token-type tables
  int64_t attention = 0;   ///< q, k, v, o projections (and cross-attention), biases
  int64_t mlp = 0;         ///< MLPs, or all experts plus their routers under MoE
  int64_t norms = 0;       ///< every norm, including the final one
  int64_t lm_head = 0;     ///< 0 when tied to the embeddings or absent
  int64_t other = 0;       ///< BERT pooler, T5 relative position biases
  int64_t total = 0;
  /// Parameters one token uses (MoE: only its experts_per_token experts); equals total
  /// for dense models.
  int64_t active_per_token = 0;
  /// Parameters of the linear layers a token passes through in the blocks (per token,
  /// active only): what the forward MACs per token are, LM head excluded.
  int64_t block_linear_per_token = 0;
};

/// Counts parameters; throws ArithmeticOverflow for sizes beyond 64-bit arithmetic.
TransformerParams countParams(const Transformer& t);

/// One linear module of a layer, named as the architecture's Hugging Face implementation
/// names it (what PEFT's target_modules match), with the logical projections it holds.
struct LinearModule {
  std::string name;  ///< e.g. q_proj (Llama), c_attn (GPT-2), query_key_value (Falcon)
  /// Logical projections this module computes, among q_proj, k_proj, v_proj, o_proj,
  /// gate_proj, up_proj, down_proj (GPT-2's c_attn: q_proj, k_proj, v_proj).
  std::vector<std::string> logical;
  int64_t in = 0;        ///< in_features
  int64_t out = 0;       ///< out_features
  int64_t copies = 1;    ///< per layer: experts under MoE for expert modules
  bool encoder = false;  ///< in an encoder-stack layer of an encoder-decoder (T5)
};

/// The linear modules of one layer (T5: one encoder layer's, then one decoder layer's,
/// cross-attention included). Together they hold every block weight matrix.
std::vector<LinearModule> blockLinearModules(const Transformer& t);

}  // namespace dlcost
