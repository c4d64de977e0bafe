#pragma once
// A transformer described by its hyper-parameters, as a Hugging Face config.json or dlcost's
// generic transformer form gives them. Parameter counts follow from these fields exactly.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlcost {

enum class NormKind {
  kLayerNorm,  ///< weight (and bias when Transformer::norm_bias): h or 2h parameters
  kRmsNorm,    ///< weight only: h parameters (Llama, Mistral, T5's LayerNorm without mean)
  kNoAffine,   ///< normalisation without learned parameters (OLMo's LayerNorm)
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

/// One linear map of a vision-language projector, applied to `rows_per_image` vectors of
/// each image.
struct ProjectorLinear {
  int64_t in = 0;
  int64_t out = 0;
  bool bias = false;
  int64_t rows_per_image = 0;
};

/// The vision side of a vision-language model (LLaVA, LLaVA-NeXT, Gemma 3, Mistral 3,
/// PaliGemma): a ViT over image patches and the projector into the language model's
/// embeddings. Sizes are counts; the figures per image are at the model's image size.
struct VisionTower {
  std::string architecture;  ///< vision_config's model_type: clip_vision_model,
                             ///< siglip_vision_model, pixtral
  // The ViT's encoder layers (pre-norm, bidirectional attention over one pass's patches).
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t head_dim = 0;
  int64_t ffn = 0;
  bool gated_mlp = false;  ///< Pixtral: gate, up and down projections
  NormKind norm = NormKind::kLayerNorm;
  bool norm_bias = true;    ///< LayerNorms with a bias (CLIP, SigLIP)
  bool linear_bias = true;  ///< biases of q, k, v, o and the MLP (CLIP, SigLIP; none in Pixtral)
  // Embeddings.
  int64_t channels = 3;
  int64_t image_size = 0;  ///< pixels per side of one pass's square input
  int64_t patch_size = 0;
  bool patch_bias = false;           ///< the patch convolution's bias (SigLIP)
  bool class_token = false;          ///< CLIP's class embedding: one more position per pass
  bool learned_positions = false;    ///< a position table (CLIP, SigLIP); Pixtral: 2-D rotary
  bool pre_norm = false;             ///< CLIP's pre_layrnorm, Pixtral's ln_pre
  bool post_norm = false;            ///< post_layernorm (CLIP, SigLIP)
  bool attention_pool_head = false;  ///< SigLIP's multi-head attention pooling head
  /// Passes of the tower per image (LLaVA-NeXT's anyres: the base image and the grid's tiles).
  int64_t passes_per_image = 1;
  /// Positions of the language model's sequence one image fills.
  int64_t tokens_per_image = 0;
  std::vector<ProjectorLinear> projector;
  int64_t projector_norm = 0;  ///< projector norm parameters (Mistral 3, Gemma 3)
  int64_t extra_params = 0;    ///< LLaVA-NeXT's image_newline (text hidden)
  /// The image size the per-image figures are for, in words (e.g. "a 336 x 336 image").
  std::string image_note;
};

/// Patches (tokens) of one pass of the tower, the class token included.
int64_t visionPassTokens(const VisionTower& v);
/// Parameters of the tower (patch embedding, positions, layers, norms, pooling head).
int64_t visionTowerParams(const VisionTower& v);
/// Parameters of the projector (its linears and norms, LLaVA-NeXT's image_newline).
int64_t visionProjectorParams(const VisionTower& v);

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
  /// OPT's word_embed_proj_dim when it differs from hidden (OPT-350m: 512 under 1,024): the
  /// token table and the (tied) LM head are this wide, and bias-free project_in /
  /// project_out linears map it to and from hidden. 0: no projection.
  int64_t word_embed_proj = 0;
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
  int64_t position_offset = 0;   ///< extra rows of the learned table (OPT: 2)
  int64_t relative_buckets = 0;  ///< kRelativeBias only
  int64_t type_vocab = 0;        ///< BERT token-type embeddings (0: none)
  bool embedding_norm = false;   ///< a norm right after the embeddings (BERT)
  bool pooler = false;           ///< BERT pooler: dense h x h + bias on the first token
  bool parallel_block = false;   ///< attention and MLP read the same input (GPT-J, Falcon)
  /// 1 when a parallel block shares one norm; 4 with norms after attention and MLP too
  /// (Gemma 2's pre/post norms).
  int64_t norms_per_layer = 2;
  bool qk_norm = false;       ///< per-head norms of q and k (Qwen3, Phi's qk_layernorm)
  bool qk_norm_full = false;  ///< the q/k norms span all heads (OLMo 2, OLMoE)
  /// The q/k norms carry no bias even where the layer norms do (StableLM's
  /// StableLmLayerNormPerHead: one bias-free LayerNorm(head_dim) per head).
  bool qk_norm_bias_free = false;
  bool final_norm = true;          ///< a norm after the last layer
  int64_t experts = 0;             ///< routed experts per MoE layer (0: dense MLP)
  int64_t experts_per_token = 0;   ///< experts each token is routed to (MoE only)
  bool attention_dropout = false;  ///< dropout on attention probabilities (training masks)
  /// Eager attention's softmax runs in fp32 whatever the activations' dtype and keeps that
  /// output beside the 16-bit copy AV reads (Llama's eager_attention_forward:
  /// `softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)`).
  bool softmax_fp32 = false;
  bool hidden_dropout = false;  ///< dropout on residual branches and embeddings

  // --- mixture of experts beyond Mixtral's (Qwen2-MoE, DeepSeek, gpt-oss) ---------------
  int64_t expert_ffn = 0;           ///< intermediate size of one routed expert (0: ffn)
  int64_t shared_expert_ffn = 0;    ///< width of the always-on shared MLP (0: none)
  bool shared_expert_gate = false;  ///< Qwen2-MoE's sigmoid gate: Linear(h, 1), no bias
  bool router_bias = false;         ///< a bias (gpt-oss) or score-correction bias (DeepSeek-V3)
  bool expert_bias = false;         ///< biases in the experts' projections (gpt-oss)
  /// Per layer, true where the MLP is dense (DeepSeek's first_k_dense_replace, Qwen-MoE's
  /// mlp_only_layers and decoder_sparse_step); empty: every layer is MoE when experts > 0.
  std::vector<bool> dense_layers;

  // --- multi-head latent attention (DeepSeek-V2/V3) -----------------------------------
  int64_t q_lora_rank = 0;   ///< 0: q projected straight from h
  int64_t kv_lora_rank = 0;  ///< > 0 marks MLA
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;  ///< head_dim holds qk_nope_head_dim + qk_rope_head_dim

  // --- local (sliding-window) attention ---------------------------------------------------
  int64_t sliding_window = 0;  ///< keys a local layer attends to (0: no local layers)
  /// Per layer, true where attention is local; empty with sliding_window > 0: all local.
  std::vector<bool> local_layers;
  bool attention_sinks = false;  ///< gpt-oss: one learned sink logit per head and layer

  /// Read through the generic fallback for a model_type dlcost does not model: the
  /// parameter count and every figure from it are approximate (asked for explicitly).
  bool approximate = false;

  /// A vision-language model's vision tower and projector (absent for text models and for
  /// a multimodal config read text-only).
  std::optional<VisionTower> vision;
  /// The multimodal model_type whose language model alone was read, as the user asked
  /// ("text_only"); empty otherwise.
  std::string text_only_of;
};

/// Widths per token of one self-attention: queries, keys, values (all kept heads) and the
/// output projection's input. GQA: keys = values = kv_heads x head_dim; MLA: per head
/// qk_nope + qk_rope for q and k, v_head_dim for v.
int64_t queryWidth(const Transformer& t);
/// Width of the token embeddings and the LM head's input: word_embed_proj, else hidden.
int64_t tokenWidth(const Transformer& t);
/// Parameters (= MACs per token) of one of OPT's project_in / project_out, 0 without them.
int64_t embedProjectionParams(const Transformer& t);
int64_t keyWidth(const Transformer& t);
int64_t valueWidth(const Transformer& t);
/// The MLP of decoder layer `layer` (0-based) is a mixture of experts.
bool isMoeLayer(const Transformer& t, int64_t layer);
/// Layer `layer` attends to at most sliding_window keys.
bool isLocalLayer(const Transformer& t, int64_t layer);
/// Keys a token of layer `layer` attends to with `context` tokens before it (itself included).
int64_t attendedKeys(const Transformer& t, int64_t layer, int64_t context);
/// How an MLA model's KV cache is kept.
enum class MlaCache {
  kLatent,        ///< kv_lora_rank + qk_rope_head_dim per token and layer (vLLM, SGLang)
  kDecompressed,  ///< per-head K and V, heads x (qk_head_dim + v_head_dim) (HF's cache)
};
inline constexpr MlaCache kMlaCaches[] = {MlaCache::kLatent, MlaCache::kDecompressed};
const char* mlaCacheName(MlaCache mla);
std::optional<MlaCache> parseMlaCache(const std::string& name);
/// KV-cache elements one token of layer `layer` keeps (K and V together): 2 x kv_heads x
/// head_dim, or the MLA form's width.
int64_t kvCacheWidth(const Transformer& t, MlaCache mla);
/// Parameters of one norm over the hidden width: 2h (LayerNorm with bias), h, or 0.
int64_t normParams(const Transformer& t);
/// Parameters of the norms inside one attention: per-head or full-width q/k norms, MLA's
/// q_a and kv_a norms.
int64_t attentionNormParams(const Transformer& t);
/// Weight elements of one self-attention's matrices (its MACs per token, linear part).
int64_t attentionMatrixElements(const Transformer& t);
/// Weight elements of the matrices one token passes through in layer `layer`'s MLP:
/// the active experts, the shared expert, routers (its MACs per token).
int64_t activeMlpMatrixElements(const Transformer& t, int64_t layer);

/// Parameters by component, exact. total = embeddings + attention + mlp + norms + lm_head
/// + other + vision + projector.
struct TransformerParams {
  int64_t embeddings = 0;  ///< token, position and token-type tables
  int64_t attention = 0;   ///< q, k, v, o projections (and cross-attention), biases
  int64_t mlp = 0;         ///< MLPs, or all experts plus their routers under MoE
  /// Of mlp, the routed experts of every MoE layer (what expert parallelism splits; routers
  /// and shared experts stay replicated). 0 for dense models.
  int64_t routed_experts = 0;
  int64_t norms = 0;      ///< every norm, including the final one
  int64_t lm_head = 0;    ///< 0 when tied to the embeddings or absent
  int64_t other = 0;      ///< BERT pooler, T5 relative position biases
  int64_t vision = 0;     ///< a vision-language model's vision tower
  int64_t projector = 0;  ///< and its projector into the language model
  int64_t total = 0;
  /// Parameters of the language model one token uses (MoE: only its experts_per_token
  /// experts); equals total less vision and projector for dense models.
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
  int64_t in = 0;      ///< in_features
  int64_t out = 0;     ///< out_features
  int64_t copies = 1;  ///< per layer: experts under MoE for expert modules
  /// Layers holding this module (0: every layer of its stack); MoE experts live only in
  /// the MoE layers, the dense MLP only in the others.
  int64_t layers = 0;
  bool encoder = false;  ///< in an encoder-stack layer of an encoder-decoder (T5)
};

/// The linear modules of one layer (T5: one encoder layer's, then one decoder layer's,
/// cross-attention included). Together they hold every block weight matrix.
std::vector<LinearModule> blockLinearModules(const Transformer& t);

}  // namespace dlcost
