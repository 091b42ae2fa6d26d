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
	kindCohere2       // head_dim is always hidden_size / num_attention_heads
	kindMiniMax       // rotary_dim honoured, where HF rotates the whole head
	kindGranite       // granitemoehybrid: RoPE only when position_embedding_type is "rope"

	// kindDeepSeekV4: the trailing rope slice of each head, two RoPEs by rope-type label
	// (deepseek_v4.go).
	kindDeepSeekV4
	// kindJetMoe: heads num_key_value_heads × num_experts_per_tok.
	kindJetMoe
	// kindZamba2: RoPE only with use_mem_rope; head size attention_head_dim.
	kindZamba2
	// kindZgcm: the rotary dim rounded down to even.
	kindZgcm
)

// family is what a model_type implies about its RoPE.
type family struct {
	// style follows the HF checkpoint's weight layout, which is what the HF modeling code
	// (and vLLM's is_neox_style) rotates.
	style rope.Style
	kind  kind
	// partial is the rotary fraction of the head when the config names none; 0 means all.
	partial float64
	// partialKwarg: the config class's __post_init__ puts partial among its kwargs
	// (kwargs.setdefault("partial_rotary_factor", partial), or with ignores naming the key
	// kwargs["partial_rotary_factor"] = partial), so the config object always has the attribute
	// that standardize_rope_params writes over the rope object's (partial_source.go).
	partialKwarg bool
	// rotaryPct: the config class reads rotary_pct as its rotary fraction (rotary_pct.go).
	rotaryPct bool
	// rotaryDim: the config class (or, for MiniMax, the authors' code) reads rotary_dim as the
	// rotary part of the head (rotary_dim.go).
	rotaryDim bool
	// fractionFirst: a partial_rotary_factor the config gives sizes the rotary part over its
	// rotary_dim (MiniMax-M2, rotary_dim.go).
	fractionFirst bool
	// rotaryDimIgnoredBy names the rotary embedding of a config class that declares rotary_dim
	// but sizes the rotary part by partial_rotary_factor alone (rotary_dim.go).
	rotaryDimIgnoredBy string
	// interleavedMRoPE: the family's MRoPE is Qwen3-VL's interleaved layout even when the
	// config does not say mrope_interleaved.
	interleavedMRoPE bool
	// alternateHW: the family's MRoPE is ERNIE-4.5-VL's (rope.MRoPE.AlternateHW).
	alternateHW bool
	// mropeSection is the family's mrope_section when the config gives none, and mropeFrom
	// the HF class that defaults it.
	mropeSection []int
	mropeFrom    string
	// defaults are the HF config class's defaults for keys published configs omit.
	defaults map[string]any
	// note says which layers the spec covers when some have no position embedding.
	note string
	// layers is the family's per-layer RoPE (layers.go); nil when only rope_parameters can
	// make layers differ.
	layers *layerRule
	// indexer is how an MLA family's DSA indexer (index_head_dim) rotates (indexer.go).
	indexer indexerRule
	// ignores are config keys the family's config class does not read, whatever they say
	// (a note says so when the config gives one); hf does not read them either.
	ignores []string
	// ropeTypes rewrites rope types as the config class does before anything reads them.
	ropeTypes map[string]string
	// class names the config class in the notes about ignores and ropeTypes.
	class string
	// attributeMap gives the family's config-class names for the keys hf reads (HF's
	// attribute_map), a dotted path for a key in a sub-object; the config's own key wins.
	attributeMap map[string]string
	// mergesRopeScaling: the config class updates rope_parameters' full_attention entry with a
	// legacy rope_scaling given beside it, where the other classes take rope_scaling whole
	// (rope_both.go).
	mergesRopeScaling bool
	// typeNames maps the family's layer type names to the ones the per-layer rules know
	// (full_attention for the spec's own RoPE, sliding_attention), in layer_types and in the
	// rope object's per-type keys.
	typeNames map[string]string
}

func num(s string) json.Number { return json.Number(s) }

var (
	neox = family{style: rope.NeoX}
	gptj = family{style: rope.GPTJ}
	// GPTJConfig and CodeGenConfig (configuration_gptj.py, configuration_codegen.py) are the only
	// transformers classes that read rotary_dim: GPTJAttention and CodeGenAttention rotate the
	// first rotary_dim dims of each head (rotary_dim.go).
	gptjRotaryDim = family{style: rope.GPTJ, rotaryDim: true}
	// PhiConfig and PersimmonConfig set partial_rotary_factor 0.5 by default, StableLmConfig
	// 0.25 (configuration_<type>.py: kwargs.setdefault in __post_init__).
	neoxHalf    = family{style: rope.NeoX, partial: 0.5, partialKwarg: true}
	neoxQuarter = family{style: rope.NeoX, partial: 0.25, partialKwarg: true}
	// GPTNeoXConfig.convert_rope_params_to_dict (configuration_gpt_neox.py) takes rope_theta from
	// rotary_emb_base (default 10000) and partial_rotary_factor from rotary_pct (default 0.25):
	// the config's own rope_theta and partial_rotary_factor are never read.
	gptNeoX = family{style: rope.NeoX, partial: 0.25, rotaryPct: true, class: "GPTNeoXConfig", ignores: []string{"rope_theta", "partial_rotary_factor"}}
	// Qwen3VLTextRotaryEmbedding (modeling_qwen3_vl.py) defaults mrope_section to [24, 20, 20].
	qwen3 = family{style: rope.NeoX, interleavedMRoPE: true, mropeSection: []int{24, 20, 20}, mropeFrom: "Qwen3VLTextRotaryEmbedding"}
	// Gemma3TextConfig's defaults: google/gemma-3-4b-it's config.json gives only a few text
	// keys (hidden_size, num_hidden_layers, rope_scaling, sliding_window) and relies on these.
	gemma3 = family{style: rope.NeoX, layers: gemma3Layers, class: "Gemma3TextConfig", mergesRopeScaling: true, defaults: map[string]any{
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
	// Phi3Config (configuration_phi3.py) rewrites rope type su and yarn to longrope.
	phi3 = family{style: rope.NeoX, class: "Phi3Config", ropeTypes: map[string]string{"su": "longrope", "yarn": "longrope"},
		defaults: map[string]any{"original_max_position_embeddings": num("4096")}}
	falcon   = family{style: rope.NeoX, kind: kindFalcon, defaults: map[string]any{"max_position_embeddings": num("2048")}}
	deepseek = family{style: rope.GPTJ, kind: kindDeepSeek}
	// GlmConfig and Glm4Config (configuration_glm.py, configuration_glm4.py):
	// kwargs.setdefault("partial_rotary_factor", 0.5).
	glmHalf = family{style: rope.GPTJ, partial: 0.5, partialKwarg: true}
	chatglm = family{style: rope.GPTJ, kind: kindChatGLM, partial: 0.5}
	// Llama4TextConfig's defaults (configuration_llama4.py).
	llama4 = family{style: rope.GPTJ, layers: llama4Layers, defaults: map[string]any{
		"num_hidden_layers": num("48"), "head_dim": num("128"), "rope_theta": num("500000"),
		"max_position_embeddings": num("131072"), "no_rope_layer_interval": num("4"),
	}}
	// The defaults of Gemma3nTextConfig, Olmo3Config, Cohere2Config, Exaone4Config and
	// SmolLM3Config (configuration_<type>.py) for the keys hf reads.
	gemma3n = family{style: rope.NeoX, layers: gemma3nLayers, class: "Gemma3nTextConfig", mergesRopeScaling: true, defaults: map[string]any{
		"hidden_size": num("2048"), "num_hidden_layers": num("35"), "num_attention_heads": num("8"),
		"num_key_value_heads": num("2"), "head_dim": num("256"), "max_position_embeddings": num("32768"),
		"rope_theta": num("1000000"), "rope_local_base_freq": num("10000"),
	}}
	olmo3 = family{style: rope.NeoX, layers: olmo3Layers, class: "Olmo3Config", mergesRopeScaling: true, defaults: map[string]any{
		"num_hidden_layers": num("32"), "rope_theta": num("500000"), "max_position_embeddings": num("2048"),
	}}
	// Cohere2Config.__post_init__ sets head_dim = hidden_size // num_attention_heads, whatever
	// the file says; Cohere2RotaryEmbedding interleaves (repeat_interleave, pairs (2i, 2i+1)).
	cohere2 = family{style: rope.GPTJ, kind: kindCohere2, layers: cohere2Layers, defaults: map[string]any{
		"num_hidden_layers": num("40"), "max_position_embeddings": num("8192"),
	}}
	exaone4 = family{style: rope.NeoX, layers: exaone4Layers, defaults: map[string]any{
		"num_hidden_layers": num("32"), "max_position_embeddings": num("2048"),
	}}
	smollm3 = family{style: rope.NeoX, layers: smollm3Layers, defaults: map[string]any{
		"num_hidden_layers": num("36"), "rope_theta": num("2000000"), "max_position_embeddings": num("32768"),
		"no_rope_layer_interval": num("4"),
	}}

	// Qwen3NextConfig (configuration_qwen3_next.py) sets partial_rotary_factor 0.25 and head_dim
	// 256 by default; Qwen3NextAttention rotates with rotate_half. Three layers in four are
	// Gated DeltaNet (layer_types "linear_attention"), which take no positions.
	qwen3Next = family{style: rope.NeoX, partial: 0.25, partialKwarg: true, defaults: map[string]any{"head_dim": num("256")}, note: deltaNetNote}
	// Qwen3_5TextConfig and Qwen3_5MoeTextConfig (configuration_qwen3_5.py,
	// configuration_qwen3_5_moe.py) keep those defaults; Qwen3_5TextRotaryEmbedding
	// (modular_qwen3_5.py) is Qwen3-VL's interleaved MRoPE with mrope_section defaulting to
	// [11, 11, 10] (32 pairs: a quarter of the 256-wide head).
	qwen35 = family{style: rope.NeoX, partial: 0.25, partialKwarg: true, interleavedMRoPE: true, mropeSection: []int{11, 11, 10},
		mropeFrom: "Qwen3_5TextRotaryEmbedding", defaults: map[string]any{"head_dim": num("256")}, note: deltaNetNote}
	// MiniMax-Text-01 and MiniMax-M2 publish rotary_dim 64 of head_dim 128. The authors'
	// modeling code and vLLM (minimax_text_01.py, minimax_m2.py, NeoX) rotate those 64; HF's
	// MiniMaxConfig and MiniMaxM2Config have no rotary_dim and rotate the whole head
	// (MiniMaxAttention is MixtralAttention). rotary follows the authors. A
	// partial_rotary_factor wins over MiniMax-M2's rotary_dim (fractionFirst): vLLM's
	// minimax_m2.py (01d99586) turns rotary_dim into the fraction only where rope_parameters has
	// none, and HF main's MiniMaxM2RotaryEmbedding (modeling_minimax_m2.py, decba1d2) sizes the
	// rotary part by the fraction alone.
	minimaxText = family{style: rope.NeoX, kind: kindMiniMax, rotaryDim: true, note: "linear_attention (lightning attention) layers use no position embedding; the spec covers the full-attention layers"}
	minimaxM2   = family{style: rope.NeoX, kind: kindMiniMax, rotaryDim: true, fractionFirst: true}
	// Glm4vTextAttention (modeling_glm4v.py) rotates with rotate_half_llm, pairs (2i, 2i+1), over
	// chunked mrope_section; Glm4vMoeTextAttention (modular_glm4v_moe.py) uses GPT-NeoX's
	// apply_rotary_pos_emb over the same chunked sections. Both rotate half the head, as every
	// GLM-4 text model (Glm4Config's partial_rotary_factor default 0.5).
	// Glm4vTextRotaryEmbedding and Glm4vMoeTextRotaryEmbedding default mrope_section to
	// [8, 12, 12] (32 pairs: half of the 128-wide head).
	glm4v    = family{style: rope.GPTJ, partial: 0.5, mropeSection: []int{8, 12, 12}, mropeFrom: "Glm4vTextRotaryEmbedding"}
	glm4vMoE = family{style: rope.NeoX, partial: 0.5, partialKwarg: true, mropeSection: []int{8, 12, 12}, mropeFrom: "Glm4vMoeTextRotaryEmbedding"}
	// ERNIE-4.5-VL's and Qwen3-Omni's language models: see their model_type entries.
	ernie45VL = family{style: rope.GPTJ, alternateHW: true, mropeSection: []int{22, 22, 20}, mropeFrom: "Ernie4_5_VLMoeTextRotaryEmbedding"}
	qwen3Omni = family{style: rope.NeoX, interleavedMRoPE: true, mropeSection: []int{24, 20, 20}, mropeFrom: "Qwen3OmniMoeThinkerTextRotaryEmbedding"}
	// BambaConfig (configuration_bamba.py) hardcodes partial_rotary_factor 0.5 (kwargs, not a
	// setdefault: a top-level value is replaced; one inside rope_parameters still wins); its
	// attention layers rotate with rotate_half (vLLM bamba.py: is_neox_style=True).
	bamba = family{style: rope.NeoX, partial: 0.5, partialKwarg: true, note: mambaNote, class: "BambaConfig", ignores: []string{"partial_rotary_factor"}}
	// GraniteMoeHybridModel (modular_granitemoehybrid.py) builds a rotary embedding only when
	// position_embedding_type is "rope"; otherwise its attention layers are NoPE.
	graniteHybrid = family{style: rope.NeoX, kind: kindGranite, note: mambaNote}
)

const (
	deltaNetNote = "linear_attention layers (Gated DeltaNet) use no position embedding; the spec covers the full_attention layers"
	mambaNote    = "mamba layers use no position embedding; the spec covers the attention layers"
)

// Families transformers main added or changed after the table above was first checked, each
// from its configuration_<type>.py and modeling_<type>.py (commits per entry).
var (
	// GlmMoeDsaAttention (modeling_glm_moe_dsa.py @01f8fa55) rotates the qk_rope_head_dim part
	// with apply_rotary_pos_emb_interleave whatever rope_interleave says, and GlmMoeDsaIndexer
	// the first qk_rope_head_dim dims of its index_head_dim head the same way
	// (transformers#46842).
	glmMoeDsa = family{style: rope.GPTJ, kind: kindDeepSeek, indexer: indexerFirstGPTJ}
	// Glm4MoeLiteConfig (configuration_glm4_moe_lite.py): MLA, head_dim is qk_rope_head_dim
	// (attribute_map), rope_interleave true.
	glm4MoeLite = family{style: rope.GPTJ, kind: kindDeepSeek}
	// LongcatFlashConfig (configuration_longcat_flash.py): MLA with default_theta 1e7; its
	// attention rotates with apply_rotary_pos_emb_interleave.
	longcatFlash = family{style: rope.GPTJ, kind: kindDeepSeek}
	// HYV4Config (configuration_hy_v4.py @cdda7eb0): MLA whose q_rot/k_rot rotate with
	// rotate_half ("Non-interleave RoPE", modular_hy_v4.py @0840ffec); its indexer rotates the
	// trailing qk_rope_head_dim dims of its head (HYV4Indexer), which no rope.Spec describes.
	hyV4 = family{style: rope.NeoX, kind: kindDeepSeek, indexer: indexerTrailing}
	// HeliumConfig (configuration_helium.py): default_theta 1e5; modular_helium.py's
	// apply_rotary_pos_emb repeat_interleaves cos/sin and rotates pairs (2i, 2i+1).
	helium = family{style: rope.GPTJ}
	// Kolibri1Config (configuration_kolibri1.py @bdd66176): full_attention every 5th layer,
	// sliding_window 513; Kolibri1Attention (modeling_kolibri1.py) rotates only "if
	// self.sliding_window is None or self.is_sliding", EXAONE 4's rule without its pattern key.
	kolibri1 = family{style: rope.NeoX, layers: &layerRule{pattern: 5, nope: nopeUnlessSlidingWindowed}}
	// GlmOcrTextConfig (configuration_glm_ocr.py): no partial_rotary_factor, so the whole head
	// rotates; GlmOcrTextRotaryEmbedding's chunked mrope_section defaults to [8, 12, 12], with
	// GLM's interleaved pairs.
	glmOCR = family{style: rope.GPTJ, mropeSection: []int{8, 12, 12}, mropeFrom: "GlmOcrTextRotaryEmbedding"}
	// JetMoeConfig (configuration_jetmoe.py): attribute_map head_dim → kv_channels, and
	// __post_init__ sets num_attention_heads = num_key_value_heads × num_experts_per_tok;
	// JetMoeRotaryEmbedding is Mixtral's (rotate_half over the whole head).
	jetmoe = family{style: rope.NeoX, kind: kindJetMoe, attributeMap: map[string]string{"head_dim": "kv_channels"}}
	// Zamba2Config (configuration_zamba2.py): attention_head_dim = 2·hidden_size / heads
	// (attribute_map head_dim); Zamba2Attention rotates only if config.use_mem_rope (default
	// false), with Llama's rotate_half.
	zamba2 = family{style: rope.NeoX, kind: kindZamba2, note: mambaNote}
	// ZgcmConfig (configuration_zgcm.py @75ec25a0): partial_rotary_factor 0.334 with the rotary
	// dim rounded down to even, rope_theta 1e7, and no rope object: ZgcmRotaryEmbedding
	// (modeling_zgcm.py @a67f860e) reads head_dim, partial_rotary_factor and rope_theta only.
	zgcm = family{style: rope.NeoX, kind: kindZgcm, partial: 0.334, class: "ZgcmConfig", ignores: []string{"rope_parameters", "rope_scaling"}}
	// DbrxConfig (configuration_dbrx.py): attribute_map num_attention_heads → n_heads,
	// hidden_size → d_model, num_hidden_layers → n_layers, max_position_embeddings →
	// max_seq_len; num_key_value_heads is attn_config.kv_n_heads, and DbrxAttention takes its
	// base from attn_config.rope_theta (modeling_dbrx.py at transformers 7c65d177, v4.4x; the
	// v5 DbrxAttentionConfig no longer lists it, but the published configs and every other
	// runtime keep it there). DbrxRotaryEmbedding is Llama's: rotate_half over the whole head.
	dbrx = family{style: rope.NeoX, attributeMap: map[string]string{
		"num_attention_heads": "n_heads", "hidden_size": "d_model", "num_hidden_layers": "n_layers",
		"max_position_embeddings": "max_seq_len", "num_key_value_heads": "attn_config.kv_n_heads",
		"rope_theta": "attn_config.rope_theta",
	}}
	// MoonshineConfig (configuration_moonshine.py): attribute_map points the head keys at the
	// decoder's, and kwargs.setdefault("partial_rotary_factor", 0.9); MoonshineRotaryEmbedding
	// and apply_rotary_pos_emb are GLM's, pairs (2i, 2i+1) (modular_moonshine.py). The encoder's
	// self-attention rotates with the same embedding.
	moonshine = family{style: rope.GPTJ, partial: 0.9, partialKwarg: true, attributeMap: map[string]string{
		"num_attention_heads": "decoder_num_attention_heads", "num_key_value_heads": "decoder_num_key_value_heads",
		"num_hidden_layers": "decoder_num_hidden_layers",
	}}
	// ZayaConfig (configuration_zaya.py @075f05cf): layer types "hybrid" (global attention) and
	// "hybrid_sliding", each with its own rope_parameters entry and partial_rotary_factor;
	// convert_rope_params_to_dict drops a stray top-level rope_type beside the entries (the
	// published ZAYA1-8B config has one). ZayaRotaryEmbedding (modular_zaya.py @060988b6) builds
	// one inv_freq per layer type, applied with rotate_half on the leading dims.
	// Its convert_rope_params_to_dict returns the kwargs untouched (configuration_zaya.py at
	// transformers decba1d2): a legacy rope_scaling is never read.
	zaya = family{style: rope.NeoX, class: "ZayaConfig", ignores: []string{"rope_scaling"}, typeNames: map[string]string{"hybrid": rope.FullAttention, "hybrid_sliding": rope.SlidingAttention}}
	// Qwen4ExpTextConfig (modular_qwen4_exp.py @01377e76): Qwen3.5's text model, head_dim 256 and
	// partial_rotary_factor 0.25; Qwen4ExpTextRotaryEmbedding is Qwen3_5TextRotaryEmbedding
	// (interleaved MRoPE, mrope_section [11, 11, 10]). The generated configuration_qwen4_exp.py
	// at 626859fc and 075d0aed declares no partial_rotary_factor, which would rotate the whole
	// head with sections that cover a quarter of it: rotary takes the modular's 0.25, with which
	// the default sections fit, and published configs give the factor.
	qwen4Exp = family{style: rope.NeoX, partial: 0.25, interleavedMRoPE: true, mropeSection: []int{11, 11, 10},
		mropeFrom: "Qwen4ExpTextRotaryEmbedding", note: deltaNetNote}
	// MellumConfig (configuration_mellum.py, transformers decba1d2): rope_parameters keyed by
	// layer type (mellumLayers), full_attention default at 500000 and sliding_attention default
	// at 10000 when the config gives none; its convert_rope_params_to_dict returns the kwargs
	// untouched, so a legacy rope_scaling is never read.
	mellum = family{style: rope.NeoX, layers: mellumLayers, class: "MellumConfig", ignores: []string{"rope_scaling"}}
	// MiniMaxM3VLTextConfig (configuration_minimax_m3_vl.py, transformers decba1d2) declares
	// rotary_dim (default 64, "number of head channels rotated by RoPE"), but
	// MiniMaxM3VLRotaryEmbedding (modeling_minimax_m3_vl.py, MiniMax-M2's) sizes inv_freq by
	// int(head_dim · rope_parameters.get("partial_rotary_factor", 1.0)) and apply_rotary_pos_emb
	// rotates the first cos.shape[-1] dims with rotate_half: rotary_dim is never read.
	// MiniMaxM3VLTextModel.forward takes 1-D position_ids (no get_rope_index, no mrope_section),
	// so image and video tokens rotate as text does.
	minimaxM3VL = family{style: rope.NeoX, rotaryDimIgnoredBy: "MiniMaxM3VLRotaryEmbedding"}
)

// Gemma4TextConfig's defaults (configuration_gemma4.py), Gemma4UnifiedTextConfig's
// (configuration_gemma4_unified.py), which differ in max_position_embeddings, and
// DiffusionGemmaTextConfig's (configuration_diffusion_gemma.py), Gemma4TextConfig's.
var (
	gemma4         = gemma4Family("131072", "Gemma4TextConfig", gemma4Layers)
	gemma4Unified  = gemma4Family("262144", "Gemma4UnifiedTextConfig", gemma4Layers)
	diffusionGemma = gemma4Family("131072", "DiffusionGemmaTextConfig", diffusionGemmaLayers)
)

// Mistral4Config's defaults (configuration_mistral4.py): MLA over a qk_rope_head_dim 64 part,
// rope_interleave true (Mistral4Attention rotates with apply_rotary_pos_emb_interleave), and
// rope_parameters YaRN with llama_4_scaling_beta when the config has none; its partial rotary
// factor qk_rope/(qk_nope + qk_rope) makes the frequencies span the rope part, as DeepSeek's.
var mistral4 = family{style: rope.GPTJ, kind: kindDeepSeek, defaults: map[string]any{
	"num_hidden_layers": num("36"), "num_attention_heads": num("32"), "num_key_value_heads": num("32"),
	"qk_rope_head_dim": num("64"), "max_position_embeddings": num("1048576"),
	"rope_parameters": object{
		"type": "yarn", "rope_theta": num("10000.0"), "factor": num("128.0"), "original_max_position_embeddings": num("8192"),
		"beta_fast": num("32.0"), "beta_slow": num("1.0"), "mscale_all_dim": num("1.0"), "mscale": num("1.0"),
		"llama_4_scaling_beta": num("0.1"),
	},
}}

// DeepseekV4Config's defaults (configuration_deepseek_v4.py) for the keys hf reads; its
// rotate_half pairs (2i, 2i+1) of the rope slice.
var deepseekV4 = family{style: rope.GPTJ, kind: kindDeepSeekV4, layers: &layerRule{deepseekV4Types: true}, defaults: map[string]any{
	"num_hidden_layers": num("43"), "num_attention_heads": num("64"), "num_key_value_heads": num("1"),
	"max_position_embeddings": num("1048576"), "rope_theta": num("10000.0"), "compress_rope_theta": num("160000.0"),
}}

// gemma4Family is Gemma 4's family with the config class's defaults and layer rule layers,
// rope_parameters included: sliding layers default RoPE with theta 10000, full layers proportional over a
// quarter of their 512-wide head with theta 1000000. The classes' convert_rope_params_to_dict
// returns the kwargs untouched ("no old-format rope_scaling" for new models, transformers
// decba1d2), so a legacy rope_scaling is never read.
func gemma4Family(maxPositions, class string, layers *layerRule) family {
	return family{style: rope.NeoX, layers: layers, class: class, ignores: []string{"rope_scaling"}, defaults: map[string]any{
		"hidden_size": num("2304"), "num_hidden_layers": num("30"), "num_attention_heads": num("8"),
		"num_key_value_heads": num("4"), "head_dim": num("256"), "max_position_embeddings": num(maxPositions),
		"rope_parameters": object{
			rope.SlidingAttention: object{"rope_type": "default", "rope_theta": num("10000")},
			rope.FullAttention:    object{"rope_type": "proportional", "partial_rotary_factor": num("0.25"), "rope_theta": num("1000000")},
		},
	}}
}

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
	"gemma3n":           gemma3n,
	"gemma3n_text":      gemma3n,
	"olmo3":             olmo3,
	"exaone4":           exaone4,
	"smollm3":           smollm3,
	"phi":               neoxHalf,
	"phi3":              phi3,
	"gpt_neox":          gptNeoX,
	"gpt_oss":           neox,
	"olmo":              neox,
	"olmo2":             neox,
	"stablelm":          neoxQuarter,
	"persimmon":         neoxHalf,
	"starcoder2":        neox,
	"internlm2":         neox,
	"falcon":            falcon,
	"RefinedWeb":        falcon,
	"RefinedWebModel":   falcon,
	"glm4_moe":          {style: rope.NeoX, partial: 0.5, partialKwarg: true}, // Glm4MoeConfig: kwargs.setdefault
	// Llama-style attention (rotate_half, whole head) in HF: GraniteAttention
	// (modeling_granite.py) and its MoE variants, MinistralAttention and Ministral3Attention
	// (MistralAttention), PhimoeAttention (LlamaAttention; LongRoPE with short_mscale /
	// long_mscale), HunYuanDenseV1Attention / HunYuanMoEV1Attention (LlamaAttention;
	// NTK-alpha), SeedOssAttention, ApertusAttention, InternLM3Attention (LlamaAttention).
	"granite":          neox,
	"granitemoe":       neox,
	"granitemoeshared": neox,
	"granitemoehybrid": graniteHybrid,
	"bamba":            bamba,
	"ministral":        neox,
	"ministral3":       neox,
	"mistral3":         neox,
	"phimoe":           neox,
	"hunyuan_v1_dense": neox,
	"hunyuan_v1_moe":   neox,
	"hunyuan_vl":       neox, // HunYuanVLDenseV1Attention: rotate_half, xdrope_section chunked
	"hunyuan_vl_text":  neox,
	"seed_oss":         neox,
	"apertus":          neox,
	"internlm3":        neox,
	// NemotronConfig (configuration_nemotron.py) defaults partial_rotary_factor to 0.5.
	"nemotron":         {style: rope.NeoX, partial: 0.5, partialKwarg: true},
	"qwen3_next":       qwen3Next,
	"qwen3_5":          qwen35,
	"qwen3_5_text":     qwen35,
	"qwen3_5_moe":      qwen35,
	"qwen3_5_moe_text": qwen35,
	"minimax":          minimaxText,
	"minimax_text_01":  minimaxText,
	"minimax_m2":       minimaxM2,
	"glm4v_moe":        glm4vMoE,
	"glm4v_moe_text":   glm4vMoE,

	// Gemma 4: rotate_half, full layers with proportional RoPE over their own head size.
	"gemma4":              gemma4,
	"gemma4_text":         gemma4,
	"gemma4_unified":      gemma4Unified,
	"gemma4_unified_text": gemma4Unified,

	// Qwen3OmniMoeThinkerTextRotaryEmbedding (modeling_qwen3_omni_moe.py; the talker's inherits
	// it): Qwen3-VL's interleaved MRoPE, [24, 20, 20] by default.
	"qwen3_omni_moe":             qwen3Omni,
	"qwen3_omni_moe_thinker":     qwen3Omni,
	"qwen3_omni_moe_text":        qwen3Omni,
	"qwen3_omni_moe_talker":      qwen3Omni,
	"qwen3_omni_moe_talker_text": qwen3Omni,
	// Qwen2_5OmniRotaryEmbedding with apply_multimodal_rotary_pos_emb (modeling_qwen2_5_omni.py):
	// chunked MRoPE over rotate_half pairs.
	"qwen2_5_omni":         neox,
	"qwen2_5_omni_thinker": neox,
	"qwen2_5_omni_text":    neox,
	"qwen2_5_omni_talker":  neox,
	// GPT-J (rotate_every_two / interleaved) layouts.
	"gptj":         gptjRotaryDim,
	"codegen":      gptjRotaryDim,
	"cohere":       gptj,
	"cohere2":      cohere2,
	"glm":          glmHalf,
	"glm4":         glmHalf,
	"chatglm":      chatglm,
	"deepseek_v2":  deepseek,
	"deepseek_v3":  deepseek,
	"deepseek_v32": deepseek,
	"mistral4":     mistral4,
	"deepseek_v4":  deepseekV4,
	"kimi_k2":      deepseek,
	// Kimi_K25Config wraps a DeepseekV3Config text model (class_defaults.go's kimi25): a
	// text_config without model_type is DeepSeek-V3's.
	"kimi_k25":    deepseek,
	"llama4":      llama4,
	"llama4_text": llama4,
	"glm4v":       glm4v,
	"glm4v_text":  glm4v,
	// Ernie4_5's apply_rotary_pos_emb (modular_ernie4_5.py) interleaves cos/sin and rotates
	// with GLM's rotate_half, pairs (2i, 2i+1), over the whole head; Ernie4_5_Moe shares it.
	"ernie4_5":     gptj,
	"ernie4_5_moe": gptj,
	// Ernie4_5_VLMoeTextRotaryEmbedding (modeling_ernie4_5_vl_moe.py) rotates the whole head
	// with rotate_half_text, pairs (2i, 2i+1), h and w alternating over the first
	// mrope_section[0]+[1] pairs and t over the rest, [22, 22, 20] by default (the published
	// configs' rope_3d with freq_allocation 20).
	"ernie4_5_vl_moe":      ernie45VL,
	"ernie4_5_vl_moe_text": ernie45VL,
	"ernie4_5_moe_vl":      ernie45VL,

	"glm_moe_dsa":        glmMoeDsa,
	"glm4_moe_lite":      glm4MoeLite,
	"longcat_flash":      longcatFlash,
	"hy_v4":              hyV4,
	"helium":             helium,
	"kolibri1":           kolibri1,
	"glm_ocr":            glmOCR,
	"glm_ocr_text":       glmOCR,
	"jetmoe":             jetmoe,
	"zamba2":             zamba2,
	"zgcm":               zgcm,
	"zaya":               zaya,
	"dbrx":               dbrx,
	"moonshine":          moonshine,
	"qwen4_exp":          qwen4Exp,
	"qwen4_exp_text":     qwen4Exp,
	"mellum":             mellum,
	"minimax_m3_vl":      minimaxM3VL,
	"minimax_m3_vl_text": minimaxM3VL,
	// DiffusionGemmaTextConfig (configuration_diffusion_gemma.py) is Gemma4TextConfig's, and its
	// attention Gemma 4's: sliding and full layers with their own heads and RoPE.
	"diffusion_gemma":      diffusionGemma,
	"diffusion_gemma_text": diffusionGemma,
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
