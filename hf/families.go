package hf

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// kind selects the family-specific rules beyond style and defaults.
type kind uint8

const (
	kindPlain    kind = iota
	kindDeepSeek      // MLA: the RoPE part is its own qk_rope_head_dim-wide tensor
	kindChatGLM       // THUDM remote code: kv_channels, seq_length, rope_ratio, original_rope
	kindFalcon        // multi_query / new_decoder_architecture head rules, ALiBi variants
	kindGemma3        // per-layer RoPE: sliding layers use rope_local_base_freq
	kindLlama4        // some layers are NoPE
)

// family is what a model_type implies about its RoPE.
type family struct {
	// style follows the HF checkpoint's weight layout, which is what the HF modeling code
	// (and vLLM's is_neox_style) rotates.
	style rope.Style
	kind  kind
	// partial is the rotary fraction of the head when the config names none; 0 means all.
	partial float64
	// interleavedMRoPE: the family's MRoPE is Qwen3-VL's interleaved layout even when the
	// config does not say mrope_interleaved.
	interleavedMRoPE bool
	// mropeSection is the family's mrope_section when the config gives none.
	mropeSection []int
	// defaults are the HF config class's defaults for keys published configs omit.
	defaults map[string]any
}

func num(s string) json.Number { return json.Number(s) }

var (
	neox = family{style: rope.NeoX}
	gptj = family{style: rope.GPTJ}
	// Qwen3VLTextRotaryEmbedding (modeling_qwen3_vl.py) defaults mrope_section to [24, 20, 20].
	qwen3 = family{style: rope.NeoX, interleavedMRoPE: true, mropeSection: []int{24, 20, 20}}
	// Gemma3TextConfig's defaults: google/gemma-3-4b-it's config.json gives only a few text
	// keys (hidden_size, num_hidden_layers, rope_scaling, sliding_window) and relies on these.
	gemma3 = family{style: rope.NeoX, kind: kindGemma3, defaults: map[string]any{
		"hidden_size":             num("2304"),
		"num_hidden_layers":       num("26"),
		"num_attention_heads":     num("8"),
		"num_key_value_heads":     num("4"),
		"head_dim":                num("256"),
		"max_position_embeddings": num("131072"),
		"rope_theta":              num("1000000"),
		"rope_local_base_freq":    num("10000"),
		"sliding_window_pattern":  num("6"),
	}}
	// Phi3Config always carries original_max_position_embeddings (default 4096), and HF's
	// LongRoPE reads it from the config, not from rope_scaling.
	phi3     = family{style: rope.NeoX, defaults: map[string]any{"original_max_position_embeddings": num("4096")}}
	falcon   = family{style: rope.NeoX, kind: kindFalcon, defaults: map[string]any{"max_position_embeddings": num("2048")}}
	deepseek = family{style: rope.GPTJ, kind: kindDeepSeek}
	glmHalf  = family{style: rope.GPTJ, partial: 0.5}
	chatglm  = family{style: rope.GPTJ, kind: kindChatGLM, partial: 0.5}
	llama4   = family{style: rope.GPTJ, kind: kindLlama4}
)

// families maps HF model_type to its RoPE family.
var families = map[string]family{
	// NeoX (rotate_half) layouts.
	"llama":             neox,
	"mistral":           neox,
	"mixtral":           neox,
	"qwen2":             neox,
	"qwen2_moe":         neox,
	"qwen3":             neox,
	"qwen3_moe":         neox,
	"qwen2_vl":          neox,
	"qwen2_vl_text":     neox,
	"qwen2_5_vl":        neox,
	"qwen2_5_vl_text":   neox,
	"qwen3_vl":          qwen3,
	"qwen3_vl_text":     qwen3,
	"qwen3_vl_moe":      qwen3,
	"qwen3_vl_moe_text": qwen3,
	"gemma":             neox,
	"gemma2":            neox,
	"gemma3":            gemma3,
	"gemma3_text":       gemma3,
	"phi":               neox,
	"phi3":              phi3,
	"gpt_neox":          neox,
	"gpt_oss":           neox,
	"olmo":              neox,
	"olmo2":             neox,
	"stablelm":          neox,
	"persimmon":         neox,
	"starcoder2":        neox,
	"internlm2":         neox,
	"falcon":            falcon,
	"RefinedWeb":        falcon,
	"RefinedWebModel":   falcon,
	"glm4_moe":          {style: rope.NeoX, partial: 0.5},

	// GPT-J (rotate_every_two / interleaved) layouts.
	"gptj":         gptj,
	"codegen":      gptj,
	"cohere":       gptj,
	"glm":          glmHalf,
	"glm4":         glmHalf,
	"chatglm":      chatglm,
	"deepseek_v2":  deepseek,
	"deepseek_v3":  deepseek,
	"deepseek_v32": deepseek,
	"kimi_k2":      deepseek,
	"llama4":       llama4,
	"llama4_text":  llama4,
}

// KnownModelTypes returns the model_type values Parse understands, sorted.
func KnownModelTypes() []string {
	names := make([]string, 0, len(families))
	for k := range families {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func knownList() string { return strings.Join(KnownModelTypes(), ", ") }
