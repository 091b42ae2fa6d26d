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
}

// noRoPEError is the error for a model_type in noRoPE.
func noRoPEError(modelType, uses string) error {
	return fmt.Errorf("%w: %w: model_type %q uses %s", ErrConfig, ErrNoRoPE, modelType, uses)
}
