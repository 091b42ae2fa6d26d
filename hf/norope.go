package hf

import (
	"errors"
	"fmt"
)

// ErrNoRoPE is wrapped (beside ErrConfig) by the error for a model that has no rotary position
// embedding at all, so that callers can tell "nothing to compute" from a broken config.
var ErrNoRoPE = errors.New("no rotary position embedding")

// noRoPE maps model_type values whose Hugging Face modeling code positions tokens without RoPE
// to what it uses instead. Without this table such a config would either be refused as unknown
// or, having hidden_size and num_attention_heads, be taken for a NeoX RoPE model.
var noRoPE = map[string]string{
	// Learned absolute position embeddings added to the input (modeling_<type>.py's
	// position_embeddings / wpe tables).
	"bert":        "learned absolute position embeddings (BertEmbeddings.position_embeddings)",
	"roberta":     "learned absolute position embeddings (RobertaEmbeddings.position_embeddings)",
	"xlm-roberta": "learned absolute position embeddings (XLMRobertaEmbeddings.position_embeddings)",
	"distilbert":  "learned (or sinusoidal) absolute position embeddings (DistilBERT Embeddings)",
	"albert":      "learned absolute position embeddings (AlbertEmbeddings.position_embeddings)",
	"electra":     "learned absolute position embeddings (ElectraEmbeddings.position_embeddings)",
	"gpt2":        "learned absolute position embeddings (GPT2Model.wpe)",
	"gpt_bigcode": "learned absolute position embeddings (GPTBigCodeModel.wpe)",
	"gpt_neo":     "learned absolute position embeddings (GPTNeoModel.wpe)",
	"opt":         "learned absolute position embeddings (OPTLearnedPositionalEmbedding)",
	"bart":        "learned absolute position embeddings (BartLearnedPositionalEmbedding)",
	"mbart":       "learned absolute position embeddings (MBartLearnedPositionalEmbedding)",
	"whisper":     "sinusoidal (encoder) and learned (decoder) absolute position embeddings",
	// Relative position biases added to the attention scores.
	"t5":         "relative position buckets added to the attention scores (T5Attention.relative_attention_bias)",
	"mt5":        "relative position buckets added to the attention scores (MT5Attention.relative_attention_bias)",
	"umt5":       "relative position buckets added to the attention scores (UMT5Attention.relative_attention_bias)",
	"longt5":     "relative position buckets added to the attention scores (LongT5Attention.relative_attention_bias)",
	"deberta":    "disentangled relative position attention (DisentangledSelfAttention)",
	"deberta-v2": "disentangled relative position attention (DisentangledSelfAttention)",
	// ALiBi: a linear bias on the scores, per head.
	"bloom": "ALiBi (build_alibi_tensor in modeling_bloom.py)",
	"mpt":   "ALiBi (build_mpt_alibi_tensor in modeling_mpt.py)",
	// No attention, or attention without positions.
	"mamba":        "no attention: a selective state-space model (MambaMixer) carries order in its state",
	"mamba2":       "no attention: a selective state-space model (Mamba2Mixer) carries order in its state",
	"falcon_mamba": "no attention: a selective state-space model (FalconMambaMixer) carries order in its state",
	"rwkv":         "no attention: RWKV's time mixing carries order in its state",
	"jamba":        "no position embedding: its attention layers (JambaAttention) apply none, the Mamba layers carry order",
	// MLA with NoPE beside linear layers, configs that may still carry a rope_theta nobody reads:
	// KimiLinearModel deletes its rotary_emb and KimiLinearAttention never rotates k_rot
	// (modular_kimi_linear.py @b4f5cc99); Glm5NextTextConfig refuses qk_rope_head_dim > 0
	// ("Expecting NoPE for the DSA attention layers", configuration_glm5_next.py @a4c52c8e).
	"kimi_linear":    "no position embedding: MLA full-attention layers with NoPE (KimiLinearAttention; KimiLinearModel deletes rotary_emb), KDA linear layers carry order in their state",
	"glm5_next":      "no position embedding in the language model: DSA attention layers with qk_rope_head_dim 0 (Glm5NextTextConfig requires NoPE), KDA linear layers carry order in their state",
	"glm5_next_text": "no position embedding: DSA attention layers with qk_rope_head_dim 0 (Glm5NextTextConfig requires NoPE), KDA linear layers carry order in their state",
}

// unrepresentable maps model_type values whose Hugging Face RoPE rope.Spec cannot describe to
// why. They are refused, each with its reason: read as a generic decoder they would rotate
// plausibly and wrongly.
var unrepresentable = map[string]string{
	// modeling_nanochat.py @01866b8d: rotate_half returns cat(x2, -x1), so q·cos + rotate_half(q)·sin
	// rotates by -θ.
	"nanochat": "its rotate_half flips the signs (cat(x2, -x1), modeling_nanochat.py), a rotation by -θ that rope.Spec has no field for",
	// modeling_deepseek_v41.py @0a2080b4: each layer's RoPE ("main" or "compress") follows
	// compress_ratios[i] > 0, not layer_types as DeepSeek-V4's does.
	"deepseek_v41":      "each layer's RoPE (main or compress) follows compress_ratios, and its layer_types name only the KV-source layers (modeling_deepseek_v41.py): a per-layer rule rotary does not implement",
	"deepseek_v41_text": "each layer's RoPE (main or compress) follows compress_ratios, and its layer_types name only the KV-source layers (modeling_deepseek_v41.py): a per-layer rule rotary does not implement",
	// modeling_k2_horizon.py @cde3b202: with rope_head_dim R < head_dim D, pairs (j, j+D/2) for
	// j < R/2 with frequencies over R.
	"k2_horizon": "with rope_head_dim below head_dim it pairs (j, j+head_dim/2) for j < rope_head_dim/2 with frequencies over rope_head_dim (modeling_k2_horizon.py), a layout rope.Spec has no form for",
	// modeling_bailing_hybrid.py @51057eee: MLA layers interleave on qk_rope_head_dim, linear
	// layers rotate_half on partial_rotary_factor of their own head.
	"bailing_hybrid": "its MLA layers pair (2i, 2i+1) on qk_rope_head_dim and its linear-attention layers (i, i+d/2) on half their own head (modeling_bailing_hybrid.py): layer types that differ in pairing, which rope.LayerRoPE cannot express",
	// configuration_cohere2_moe.py @008e574: layer types from prefix_dense_sliding_window_pattern
	// over the first_k_dense_replace layers, then sliding_window_pattern; modeling_cohere2_moe.py
	// rotates the sliding layers and the dense prefix.
	// Multimodal wrappers whose text model's MRoPE orders its pairs as no rope.MRoPE layout does
	// (mrope_layouts.go): openPangu's VL and omni models (vLLM's registry maps them to
	// OpenPanguVL; rope_type "openpangu"), Ling's VL model (vLLM
	// transformers_utils/configs/bailing_moe_v3_vl.py @e80cc1bf) and Ming (SGLang's
	// BailingMM2Config, model_type bailingmm_moe_v2_lite).
	"openpangu_vl":          openPanguOrder,
	"openpangu_omni":        openPanguOrder,
	"openpangu_v2_vl_moe":   openPanguOrder,
	"openpangu_v2_omni_moe": openPanguOrder,
	"bailing_moe_v3_vl":     bailingOrder,
	"bailingmm":             bailingOrder,
	"bailingmm_moe_v2_lite": bailingOrder,
	"cohere2_moe":           "it rotates the sliding layers and the dense prefix layers (prefix_dense_sliding_window_pattern over first_k_dense_replace, configuration_cohere2_moe.py), a per-layer rule rotary does not implement yet",
}

// noRoPEError is the error for a model_type in noRoPE.
func noRoPEError(modelType, uses string) error {
	return fmt.Errorf("%w: %w: model_type %q uses %s", ErrConfig, ErrNoRoPE, modelType, uses)
}
