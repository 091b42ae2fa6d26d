package hf

import (
	"maps"

	"github.com/rotary-go/rotary/rope"
)

// The Hugging Face config classes' defaults for the keys hf reads, so that a config.json that
// leaves a key out reads as transformers reads it, not as hf's generic fallbacks (head_dim from
// hidden_size / heads, KV heads = heads, rope_theta 10000, 2048 positions).
//
// Values were read at zucchini-nlp/transformers decba1d2ea4e (2026-08-19), a mirror that tracks
// huggingface/transformers main, in src/transformers/models/<type>/configuration_<type>.py;
// each entry names its class. The shared rules (modeling_rope_utils.py,
// RotaryEmbeddingConfigMixin): a class without default_theta has rope_theta 10000, hf's own
// fallback, so only other thetas are listed; head_dim and num_key_value_heads are listed only
// where the class fixes a number, since a None default is resolved to hidden_size // heads and
// to heads, which is what hf does without the key. num_hidden_layers is listed for every class
// (here or in families.go): the per-layer rules, the layer types derived from a pattern and the
// bounds of a layer index count on it.
//
// partial_rotary_factor is not listed: the classes that default it (kwargs.setdefault in
// PhiConfig, StableLmConfig, PersimmonConfig, GPTNeoXConfig's rotary_pct, Glm4MoeConfig,
// BambaConfig, NemotronConfig, GlmConfig, Glm4Config, Qwen3NextConfig, Qwen3_5*Config,
// Glm4vMoeTextConfig) let a rope_parameters partial_rotary_factor win over it (setdefault),
// while a default here would win over the rope object's; family.partial carries those
// fractions with that precedence.
//
// Families with no config class in transformers have no entry, and keep hf's fallbacks:
// internlm2 and internlm3 (remote code only; models/__init__.py imports neither), chatglm
// (THUDM's remote ChatGLMConfig), RefinedWeb and RefinedWebModel (Falcon's remote code, whose
// keys falcon/convert_custom_code_checkpoint.py rewrites before FalconConfig reads them),
// minimax_text_01 (MiniMax-Text-01's remote code; HF's class is minimax) and ernie4_5_moe_vl
// (Baidu's remote code; HF's class is ernie4_5_vl_moe).

// configClass is a model_type's Hugging Face config class.
type configClass struct {
	// name is the class, which the notes name when a default is taken.
	name     string
	defaults map[string]any
	// shadows maps a key the class reads in place of one of hf's keys to that key: when the
	// config gives it, the default is left out, so that hf reports the key missing rather than
	// take the class default over the config's own value, which hf does not read.
	shadows map[string]string
	// nested, when set, is the model_type whose class builds a text_config that names no
	// model_type; the entry itself is what the wrapper builds when there is no text_config.
	nested string
	// wrapper, when set, is the class of a model_type that wraps a text model (the entry is
	// the text class it builds), and its two rules for the top-level keys: flatText, the text
	// model_type whose class it builds from that class's defaults alone when the config has no
	// text_config; topWins, the text keys whose top-level value it folds into text_config over
	// text_config's own.
	wrapper  string
	flatText string
	topWins  []string
	// headsDivide: the class's validate_architecture refuses a hidden_size that
	// num_attention_heads does not divide, whatever head_dim says (head_floor.go).
	headsDivide bool
	// v4RopeScaling: transformers v4.57 (59eba492) defaulted the class's rope_parameters object
	// as rope_scaling, with rope_theta a key of its own, so a reading without rope_parameters
	// (RuleRopeParameters "ignores") keeps it; other classes' default object is v5's alone.
	v4RopeScaling bool
}

// nullMeansNone are the keys whose explicit JSON null means the class's None rule (head_dim
// hidden_size // heads, KV heads = heads, GPT-J's rotary_dim the whole head), which is what
// hf does without the key, not the class's default number.
var nullMeansNone = []string{"head_dim", "num_key_value_heads", "rotary_dim"}

func headsDivide(c configClass) configClass {
	c.headsDivide = true
	return c
}

func v4Rope(c configClass) configClass {
	c.v4RopeScaling = true
	return c
}

// wrappedBy is text class c as wrapper class name builds it from a nested text_config: from
// that object alone (`self.text_config = <TextConfig>(**self.text_config)` in its __post_init__),
// the top-level keys left on the wrapper or dropped, so hf reads none of them (source.wrapper).
func wrappedBy(c configClass, name string) configClass {
	c.wrapper = name
	return c
}

// builtFromDefaults is text class c as wrapper class name builds it when the config has no
// text_config: `self.text_config = <TextConfig>()` in its __post_init__, no top-level key passed.
func builtFromDefaults(c configClass, name, textType string) configClass {
	c.wrapper, c.flatText = name, textType
	return c
}

func classOf(name string, kv ...any) configClass {
	c := configClass{name: name, defaults: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		c.defaults[kv[i].(string)] = kv[i+1]
	}
	return c
}

// Keys, to keep the table readable.
const (
	kHidden = "hidden_size"
	kHeads  = "num_attention_heads"
	kKV     = "num_key_value_heads"
	kHead   = "head_dim"
	kTheta  = "rope_theta"
	kMax    = "max_position_embeddings"
	kRope   = "qk_rope_head_dim"
	kLayers = "num_hidden_layers"
)

var (
	// LlamaConfig (configuration_llama.py); OlmoConfig, Olmo2Config, GraniteConfig,
	// GraniteMoeConfig, GraniteMoeSharedConfig, GraniteMoeHybridConfig (configuration_<type>.py)
	// have the same numbers.
	llamaLike = func(name string) configClass {
		return classOf(name, kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kMax, num("2048"))
	}
	// MistralConfig (configuration_mistral.py).
	mistralClass = classOf("MistralConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kMax, num("131072"))
	// Qwen2VLTextConfig (qwen2_vl/configuration_qwen2_vl.py), default_theta 1e6.
	qwen2VLText = classOf("Qwen2VLTextConfig", kLayers, num("80"), kHidden, num("8192"), kHeads, num("64"), kKV, num("8"),
		kMax, num("32768"), kTheta, num("1000000"))
	// Qwen2_5_VLTextConfig (qwen2_5_vl/configuration_qwen2_5_vl.py), default_theta 1e6.
	qwen25VLText = classOf("Qwen2_5_VLTextConfig", kLayers, num("80"), kHidden, num("8192"), kHeads, num("64"), kKV, num("8"),
		kMax, num("32768"), kTheta, num("1000000"))
	// Qwen3VLTextConfig (qwen3_vl/configuration_qwen3_vl.py), default_theta 500000 (5e6 in
	// transformers v4; published Qwen3-VL configs give rope_theta).
	qwen3VLText = classOf("Qwen3VLTextConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("32"),
		kHead, num("128"), kMax, num("128000"), kTheta, num("500000"))
	// Qwen3VLMoeTextConfig (qwen3_vl_moe/configuration_qwen3_vl_moe.py): head_dim None.
	qwen3VLMoeText = classOf("Qwen3VLMoeTextConfig", kLayers, num("24"), kHidden, num("2048"), kHeads, num("16"), kKV, num("16"),
		kMax, num("128000"), kTheta, num("500000"))
	// Gemma3TextConfig (gemma3/configuration_gemma3.py): families.go's gemma3 defaults.
	gemma3Text = headsDivide(classOf("Gemma3TextConfig"))
	// Gemma3nTextConfig (gemma3n/configuration_gemma3n.py): families.go's gemma3n defaults.
	gemma3nText = headsDivide(classOf("Gemma3nTextConfig"))
	// Llama4TextConfig (llama4/configuration_llama4.py), beside families.go's llama4 defaults.
	llama4Text = classOf("Llama4TextConfig", kHidden, num("5120"), kHeads, num("40"), kKV, num("8"))
	// Qwen3_5TextConfig and Qwen3_5MoeTextConfig (configuration_qwen3_5.py,
	// configuration_qwen3_5_moe.py), beside families.go's head_dim 256.
	qwen35Text    = classOf("Qwen3_5TextConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("16"), kKV, num("4"), kMax, num("32768"))
	qwen35MoeText = classOf("Qwen3_5MoeTextConfig", kLayers, num("40"), kHidden, num("2048"), kHeads, num("16"), kKV, num("2"), kMax, num("32768"))
	// Glm4vTextConfig (glm4v/configuration_glm4v.py): no head_dim field (hidden_size // heads).
	// It has no partial_rotary_factor default either, so Glm4vTextRotaryEmbedding would rotate
	// the whole head and could not split it by the default mrope_section [8, 12, 12]; the
	// family keeps the 0.5 of every published GLM-4.1V config and of Glm4Config.
	glm4vText = classOf("Glm4vTextConfig", kLayers, num("40"), kHidden, num("4096"), kHeads, num("32"), kKV, num("2"), kMax, num("32768"))
	// Glm4vMoeTextConfig (glm4v_moe/configuration_glm4v_moe.py): no head_dim field, and its
	// 4096 / 96 heads do not divide; published GLM-4.5V configs give head_dim.
	glm4vMoeText = classOf("Glm4vMoeTextConfig", kLayers, num("46"), kHidden, num("4096"), kHeads, num("96"), kKV, num("8"), kMax, num("65536"))
	// Gemma4TextConfig and Gemma4UnifiedTextConfig (configuration_gemma4.py,
	// configuration_gemma4_unified.py): families.go's gemma4 defaults.
	gemma4Text        = classOf("Gemma4TextConfig")
	gemma4UnifiedText = classOf("Gemma4UnifiedTextConfig")
	// Qwen3OmniMoeTextConfig (qwen3_omni_moe/configuration_qwen3_omni_moe.py), the thinker's
	// text model, default_theta 1e6; no head_dim field, and 2048 / 28 heads do not divide:
	// published Qwen3-Omni configs give head_dim.
	qwen3OmniText = classOf("Qwen3OmniMoeTextConfig", kLayers, num("28"), kHidden, num("2048"), kHeads, num("28"), kKV, num("4"),
		kMax, num("32768"), kTheta, num("1000000"))
	// Qwen3OmniMoeTalkerTextConfig (same file), the talker's text model (its wrapper,
	// Qwen3OmniMoeTalkerConfig, builds it from text_config): no default_theta, no head_dim field.
	qwen3OmniTalkerText = classOf("Qwen3OmniMoeTalkerTextConfig", kLayers, num("20"), kHidden, num("1024"), kHeads, num("16"), kKV, num("2"),
		kMax, num("32768"))
	// Qwen2_5OmniTextConfig (qwen2_5_omni/configuration_qwen2_5_omni.py), which
	// Qwen2_5OmniThinkerConfig builds, default_theta 1e6.
	qwen25OmniText = classOf("Qwen2_5OmniTextConfig", kLayers, num("28"), kHidden, num("3584"), kHeads, num("28"), kKV, num("4"),
		kMax, num("32768"), kTheta, num("1000000"))
	// DeepseekV3Config (deepseek_v3/configuration_deepseek_v3.py), which Kimi_K25Config builds
	// its text model with (kimi25).
	deepseekV3Class = classOf("DeepseekV3Config", kLayers, num("61"), kHidden, num("7168"), kHeads, num("128"), kKV, num("128"),
		kMax, num("4096"), kRope, num("64"))
	// GPTJConfig (gptj/configuration_gptj.py) and CodeGenConfig (codegen/configuration_codegen.py),
	// in their own key names (attribute_map: hidden_size is n_embd, and so on): rotary_dim 64,
	// and the base is fixed at 10000 (create_sinusoidal_positions).
	gptjLike = func(name string) configClass {
		return classOf(name, "n_layer", num("28"), "n_embd", num("4096"), "n_head", num("16"), "n_positions", num("2048"), "rotary_dim", num("64"))
	}
	// Ernie4_5_VLMoeTextConfig (ernie4_5_vl_moe/configuration_ernie4_5_vl_moe.py), default_theta
	// 500000; no head_dim field (2560 / 20 = 128).
	ernie45VLText = classOf("Ernie4_5_VLMoeTextConfig", kLayers, num("28"), kHidden, num("2560"), kHeads, num("20"), kKV, num("4"),
		kMax, num("131072"), kTheta, num("500000"))
	// HunYuanVLTextConfig (hunyuan_vl/configuration_hunyuan_vl.py): head_dim None.
	hunyuanVLText = classOf("HunYuanVLTextConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kMax, num("2048"))
	// HunYuanVLConfig.__post_init__ (same file) pops every top-level key that is a
	// HunYuanVLTextConfig field, and rope_scaling and rope_theta, and builds text_config from
	// {**text_config, **those}: the top level wins. HunYuanVLModel builds its language model
	// from that text_config (modeling_hunyuan_vl.py). These are the fields hf reads.
	hunyuanVL = func() configClass {
		c := hunyuanVLText
		c.wrapper = "HunYuanVLConfig"
		c.topWins = []string{kHidden, kHeads, kKV, kHead, kMax, "num_hidden_layers", "rope_parameters", "rope_scaling", kTheta}
		return c
	}()
)

// configClasses maps a model_type, as hf resolves the family (a nested text model's own
// model_type, else the top level's), to its config class. A wrapper's model_type maps to the
// text class it builds, for flat files that keep the text keys at the top.
var configClasses = map[string]configClass{
	"llama":   headsDivide(llamaLike("LlamaConfig")),
	"mistral": mistralClass,
	// MixtralConfig (configuration_mixtral.py), default_theta 1e6.
	"mixtral": classOf("MixtralConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kMax, num("131072"), kTheta, num("1000000")),
	// Qwen2Config (configuration_qwen2.py): no head_dim field.
	"qwen2": classOf("Qwen2Config", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("32"), kMax, num("32768")),
	// Qwen2MoeConfig (configuration_qwen2_moe.py).
	"qwen2_moe": classOf("Qwen2MoeConfig", kLayers, num("24"), kHidden, num("2048"), kHeads, num("16"), kKV, num("16"), kMax, num("32768")),
	// Qwen3Config (configuration_qwen3.py): head_dim a fixed 128, not hidden_size / heads.
	"qwen3": classOf("Qwen3Config", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("32"), kHead, num("128"), kMax, num("32768")),
	// Qwen3MoeConfig (configuration_qwen3_moe.py): no head_dim field.
	"qwen3_moe":         classOf("Qwen3MoeConfig", kLayers, num("24"), kHidden, num("2048"), kHeads, num("32"), kKV, num("4"), kMax, num("32768")),
	"qwen2_vl":          wrappedBy(qwen2VLText, "Qwen2VLConfig"),
	"qwen2_vl_text":     qwen2VLText,
	"qwen2_5_vl":        wrappedBy(qwen25VLText, "Qwen2_5_VLConfig"),
	"qwen2_5_vl_text":   qwen25VLText,
	"qwen3_vl":          builtFromDefaults(qwen3VLText, "Qwen3VLConfig", "qwen3_vl_text"),
	"qwen3_vl_text":     qwen3VLText,
	"qwen3_vl_moe":      builtFromDefaults(qwen3VLMoeText, "Qwen3VLMoeConfig", "qwen3_vl_moe_text"),
	"qwen3_vl_moe_text": qwen3VLMoeText,
	// GemmaConfig and Gemma2Config (configuration_gemma.py, configuration_gemma2.py): head_dim a
	// fixed 256.
	"gemma":        classOf("GemmaConfig", kLayers, num("28"), kHidden, num("3072"), kHeads, num("16"), kKV, num("16"), kHead, num("256"), kMax, num("8192")),
	"gemma2":       headsDivide(classOf("Gemma2Config", kLayers, num("26"), kHidden, num("2304"), kHeads, num("8"), kKV, num("4"), kHead, num("256"), kMax, num("8192"))),
	"gemma3":       builtFromDefaults(gemma3Text, "Gemma3Config", "gemma3_text"),
	"gemma3_text":  gemma3Text,
	"gemma3n":      builtFromDefaults(gemma3nText, "Gemma3nConfig", "gemma3n_text"),
	"gemma3n_text": gemma3nText,
	// Olmo3Config (configuration_olmo3.py), beside families.go's olmo3 defaults.
	"olmo3": classOf("Olmo3Config", kHidden, num("4096"), kHeads, num("32")),
	// Exaone4Config (configuration_exaone4.py): num_key_value_heads a fixed 32.
	"exaone4": classOf("Exaone4Config", kHidden, num("4096"), kHeads, num("32"), kKV, num("32")),
	// SmolLM3Config (configuration_smollm3.py), beside families.go's smollm3 defaults.
	"smollm3": classOf("SmolLM3Config", kHidden, num("2048"), kHeads, num("16"), kKV, num("4")),
	// PhiConfig (configuration_phi.py).
	"phi": classOf("PhiConfig", kLayers, num("24"), kHidden, num("2048"), kHeads, num("32"), kMax, num("2048")),
	// Phi3Config (configuration_phi3.py), beside families.go's original_max_position_embeddings.
	"phi3": classOf("Phi3Config", kLayers, num("32"), kHidden, num("3072"), kHeads, num("32"), kMax, num("4096")),
	// GPTNeoXConfig (configuration_gpt_neox.py): rotary_emb_base defaults to default_theta 10000.
	"gpt_neox": headsDivide(classOf("GPTNeoXConfig", kLayers, num("44"), kHidden, num("6144"), kHeads, num("64"), kMax, num("2048"))),
	// GptOssConfig (configuration_gpt_oss.py), default_theta 150000: head_dim a fixed 64 (2880 /
	// 64 heads is 45), and YaRN when the config has no rope_parameters; that object has no
	// rope_theta, so the config's wins.
	"gpt_oss": v4Rope(classOf("GptOssConfig", kLayers, num("36"), kHidden, num("2880"), kHeads, num("64"), kKV, num("8"), kHead, num("64"),
		kMax, num("131072"), kTheta, num("150000"), "rope_parameters", object{
			"rope_type": "yarn", "factor": num("32.0"), "beta_fast": num("32.0"), "beta_slow": num("1.0"),
			"truncate": false, "original_max_position_embeddings": num("4096"),
		})),
	"olmo":  llamaLike("OlmoConfig"),
	"olmo2": llamaLike("Olmo2Config"),
	// StableLmConfig (configuration_stablelm.py).
	"stablelm": classOf("StableLmConfig", kLayers, num("32"), kHidden, num("2560"), kHeads, num("32"), kKV, num("32"), kMax, num("4096")),
	// PersimmonConfig (configuration_persimmon.py): no default_theta in transformers v5
	// (v4's was 25000).
	"persimmon": classOf("PersimmonConfig", kLayers, num("36"), kHidden, num("4096"), kHeads, num("64"), kMax, num("16384")),
	// Starcoder2Config (configuration_starcoder2.py).
	"starcoder2": classOf("Starcoder2Config", kLayers, num("30"), kHidden, num("3072"), kHeads, num("24"), kKV, num("2"), kMax, num("4096")),
	// FalconConfig (configuration_falcon.py), beside families.go's max positions: head_dim is
	// always hidden_size // heads, and KV heads follow multi_query (kvHeads). Its __post_init__
	// takes the legacy n_embed over hidden_size, which hf does not read.
	"falcon": {name: "FalconConfig", defaults: map[string]any{kLayers: num("32"), kHidden: num("4544"), kHeads: num("71")},
		shadows: map[string]string{"n_embed": kHidden}},
	// Glm4MoeConfig (configuration_glm4_moe.py): no head_dim field, and 4096 / 96 heads do not
	// divide; published GLM-4.5 configs give head_dim.
	"glm4_moe":         classOf("Glm4MoeConfig", kLayers, num("46"), kHidden, num("4096"), kHeads, num("96"), kKV, num("8"), kMax, num("131072")),
	"granite":          llamaLike("GraniteConfig"),
	"granitemoe":       llamaLike("GraniteMoeConfig"),
	"granitemoeshared": llamaLike("GraniteMoeSharedConfig"),
	"granitemoehybrid": llamaLike("GraniteMoeHybridConfig"),
	// BambaConfig (configuration_bamba.py).
	"bamba": classOf("BambaConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kMax, num("262144")),
	// MinistralConfig (configuration_ministral.py): head_dim None.
	"ministral": classOf("MinistralConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kMax, num("131072")),
	// Ministral3Config (configuration_ministral3.py): head_dim a fixed 128, and YaRN with
	// llama_4_scaling_beta when the config has no rope_parameters, its rope_theta 1e6 winning
	// over the config's (as Mistral4Config's, families.go). The object's max_position_embeddings
	// (the config's) is left out: the class does not validate it and hf does not read it.
	"ministral3": classOf("Ministral3Config", kLayers, num("34"), kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kHead, num("128"),
		kMax, num("262144"), "rope_parameters", object{
			"type": "yarn", "rope_theta": num("1000000.0"), "factor": num("16.0"), "original_max_position_embeddings": num("16384"),
			"beta_fast": num("32.0"), "beta_slow": num("1.0"), "mscale_all_dim": num("1.0"), "mscale": num("1.0"),
			"llama_4_scaling_beta": num("0.1"),
		}),
	// Mistral3Config (configuration_mistral3.py) builds a text_config without model_type as
	// MistralConfig, and without text_config this fixed MistralConfig, whatever the top level says.
	"mistral3": {name: "Mistral3Config", nested: "mistral", wrapper: "Mistral3Config", flatText: "mistral", defaults: map[string]any{
		kLayers: num("40"), kHidden: num("5120"), kHeads: num("32"), kKV: num("8"), kHead: num("128"), kMax: num("131072"), kTheta: num("1000000000.0"),
	}},
	// PhimoeConfig (configuration_phimoe.py), default_theta 1e6.
	"phimoe": classOf("PhimoeConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kMax, num("131072"), kTheta, num("1000000")),
	// HunYuanDenseV1Config and HunYuanMoEV1Config (configuration_hunyuan_v1_dense.py,
	// configuration_hunyuan_v1_moe.py): head_dim None (their docstrings say 128).
	"hunyuan_v1_dense": llamaLike("HunYuanDenseV1Config"),
	"hunyuan_v1_moe":   llamaLike("HunYuanMoEV1Config"),
	"hunyuan_vl":       hunyuanVL,
	"hunyuan_vl_text":  hunyuanVLText,
	// SeedOssConfig (configuration_seed_oss.py): head_dim 128 (4096 / 80 heads do not divide).
	"seed_oss": classOf("SeedOssConfig", kLayers, num("64"), kHidden, num("4096"), kHeads, num("80"), kKV, num("8"), kHead, num("128"), kMax, num("524288")),
	// ApertusConfig (configuration_apertus.py), default_theta 1.2e7: llama3 scaling when the
	// config has no rope_parameters, with its own rope_theta winning over the config's.
	"apertus": v4Rope(classOf("ApertusConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kMax, num("65536"), kTheta, num("12000000"),
		"rope_parameters", object{
			"rope_type": "llama3", "rope_theta": num("12000000.0"), "factor": num("8.0"), "original_max_position_embeddings": num("8192"),
			"low_freq_factor": num("1.0"), "high_freq_factor": num("4.0"),
		})),
	// NemotronConfig (configuration_nemotron.py).
	"nemotron": classOf("NemotronConfig", kLayers, num("32"), kHidden, num("6144"), kHeads, num("48"), kMax, num("4096")),
	// Qwen3NextConfig (configuration_qwen3_next.py), beside families.go's head_dim 256.
	"qwen3_next":       classOf("Qwen3NextConfig", kLayers, num("48"), kHidden, num("2048"), kHeads, num("16"), kKV, num("2"), kMax, num("32768")),
	"qwen3_5":          builtFromDefaults(qwen35Text, "Qwen3_5Config", "qwen3_5_text"),
	"qwen3_5_text":     qwen35Text,
	"qwen3_5_moe":      builtFromDefaults(qwen35MoeText, "Qwen3_5MoeConfig", "qwen3_5_moe_text"),
	"qwen3_5_moe_text": qwen35MoeText,
	// MiniMaxConfig (minimax/configuration_minimax.py), default_theta 1e6: head_dim None. No
	// rotary_dim: the family's reading of the published one stays.
	"minimax": classOf("MiniMaxConfig", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kMax, num("131072"), kTheta, num("1000000")),
	// MiniMaxM2Config (minimax_m2/configuration_minimax_m2.py), default_theta 5e6: head_dim 128.
	"minimax_m2": classOf("MiniMaxM2Config", kLayers, num("62"), kHidden, num("3072"), kHeads, num("48"), kKV, num("8"), kHead, num("128"),
		kMax, num("196608"), kTheta, num("5000000")),
	"glm4v_moe":           wrappedBy(glm4vMoeText, "Glm4vMoeConfig"),
	"glm4v_moe_text":      glm4vMoeText,
	"gemma4":              builtFromDefaults(gemma4Text, "Gemma4Config", "gemma4_text"),
	"gemma4_text":         gemma4Text,
	"gemma4_unified":      builtFromDefaults(gemma4UnifiedText, "Gemma4UnifiedConfig", "gemma4_unified_text"),
	"gemma4_unified_text": gemma4UnifiedText,

	"qwen3_omni_moe":             builtFromDefaults(qwen3OmniText, "Qwen3OmniMoeConfig", "qwen3_omni_moe_text"),
	"qwen3_omni_moe_thinker":     builtFromDefaults(qwen3OmniText, "Qwen3OmniMoeThinkerConfig", "qwen3_omni_moe_text"),
	"qwen3_omni_moe_text":        qwen3OmniText,
	"qwen3_omni_moe_talker":      qwen3OmniTalkerText,
	"qwen3_omni_moe_talker_text": qwen3OmniTalkerText,
	"qwen2_5_omni":               builtFromDefaults(qwen25OmniText, "Qwen2_5OmniConfig", "qwen2_5_omni_text"),
	"qwen2_5_omni_thinker":       builtFromDefaults(qwen25OmniText, "Qwen2_5OmniThinkerConfig", "qwen2_5_omni_text"),
	"qwen2_5_omni_text":          qwen25OmniText,
	// Qwen2_5OmniTalkerConfig (same file), default_theta 1e6: head_dim 128.
	"qwen2_5_omni_talker": classOf("Qwen2_5OmniTalkerConfig", kLayers, num("28"), kHidden, num("3584"), kHeads, num("28"), kKV, num("4"),
		kHead, num("128"), kMax, num("32768"), kTheta, num("1000000")),

	"gptj":    gptjLike("GPTJConfig"),
	"codegen": gptjLike("CodeGenConfig"),
	// CohereConfig (configuration_cohere.py), default_theta 500000.
	"cohere": classOf("CohereConfig", kLayers, num("40"), kHidden, num("8192"), kHeads, num("64"), kMax, num("8192"), kTheta, num("500000")),
	// Cohere2Config (configuration_cohere2.py), beside families.go's cohere2 defaults.
	"cohere2": classOf("Cohere2Config", kHidden, num("8192"), kHeads, num("64")),
	// GlmConfig and Glm4Config (configuration_glm.py, configuration_glm4.py): head_dim 128.
	"glm":  classOf("GlmConfig", kLayers, num("40"), kHidden, num("4096"), kHeads, num("32"), kKV, num("2"), kHead, num("128"), kMax, num("131072")),
	"glm4": classOf("Glm4Config", kLayers, num("40"), kHidden, num("4096"), kHeads, num("32"), kKV, num("2"), kHead, num("128"), kMax, num("131072")),
	// DeepseekV2Config (configuration_deepseek_v2.py).
	"deepseek_v2": headsDivide(classOf("DeepseekV2Config", kLayers, num("32"), kHidden, num("4096"), kHeads, num("32"), kMax, num("2048"), kRope, num("64"))),
	"deepseek_v3": deepseekV3Class,
	"kimi_k2":     deepseekV3Class,
	// DeepseekV32Config (configuration_deepseek_v32.py): every model has the lightning indexer,
	// its head index_head_dim 128.
	"deepseek_v32": classOf("DeepseekV32Config", kLayers, num("61"), kHidden, num("7168"), kHeads, num("128"), kKV, num("128"),
		kMax, num("163840"), kRope, num("64"), "index_head_dim", num("128")),
	// Mistral4Config and DeepseekV4Config (configuration_mistral4.py,
	// configuration_deepseek_v4.py): families.go's defaults.
	"mistral4":    classOf("Mistral4Config"),
	"deepseek_v4": classOf("DeepseekV4Config"),
	"llama4":      builtFromDefaults(llama4Text, "Llama4Config", "llama4_text"),
	"llama4_text": llama4Text,
	"glm4v":       wrappedBy(glm4vText, "Glm4vConfig"),
	"glm4v_text":  glm4vText,
	// Ernie4_5Config (configuration_ernie4_5.py), default_theta 500000: head_dim 128.
	"ernie4_5": classOf("Ernie4_5Config", kLayers, num("18"), kHidden, num("1024"), kHeads, num("16"), kKV, num("2"), kHead, num("128"),
		kMax, num("131072"), kTheta, num("500000")),
	// Ernie4_5_MoeConfig (configuration_ernie4_5_moe.py), default_theta 500000.
	"ernie4_5_moe": classOf("Ernie4_5_MoeConfig", kLayers, num("28"), kHidden, num("2560"), kHeads, num("20"), kKV, num("4"),
		kMax, num("131072"), kTheta, num("500000")),
	"ernie4_5_vl_moe":      wrappedBy(ernie45VLText, "Ernie4_5_VLMoeConfig"),
	"ernie4_5_vl_moe_text": ernie45VLText,

	// Families families.go dates after decba1d2, each read at the commit its family entry names.
	"glm_moe_dsa": classOf("GlmMoeDsaConfig", kLayers, num("78"), kHidden, num("6144"), kHeads, num("64"), kKV, num("64"), kMax, num("202752"),
		kRope, num("64"), "index_head_dim", num("128")),
	"glm4_moe_lite": classOf("Glm4MoeLiteConfig", kLayers, num("47"), kHidden, num("2048"), kHeads, num("20"), kKV, num("20"), kMax, num("202752"),
		kRope, num("64")),
	"longcat_flash": classOf("LongcatFlashConfig", kHidden, num("6144"), kHeads, num("64"), kMax, num("131072"),
		kRope, num("64"), kTheta, num("10000000.0")),
	"hy_v4": classOf("HYV4Config", kHidden, num("2816"), kHeads, num("32"), kKV, num("32"), kMax, num("262144"),
		kRope, num("64")),
	"helium": classOf("HeliumConfig", kLayers, num("24"), kHidden, num("2560"), kHeads, num("20"), kKV, num("20"), kHead, num("128"),
		kMax, num("4096"), kTheta, num("100000.0")),
	"kolibri1": classOf("Kolibri1Config", kLayers, num("50"), kHidden, num("2560"), kHeads, num("48"), kKV, num("4"), kHead, num("128"),
		kMax, num("262144")),
	"glm_ocr":      wrappedBy(glmOCRText, "GlmOcrConfig"),
	"glm_ocr_text": glmOCRText,
	"jetmoe": classOf("JetMoeConfig", kLayers, num("12"), kHidden, num("2048"), kKV, num("16"), "kv_channels", num("128"),
		"num_experts_per_tok", num("2"), kMax, num("4096")),
	"zamba2": classOf("Zamba2Config", kLayers, num("54"), kHidden, num("2560"), kHeads, num("32"), kMax, num("4096")),
	"zgcm": classOf("ZgcmConfig", kHidden, num("4096"), kHeads, num("32"), kKV, num("8"), kHead, num("128"),
		kMax, num("262144"), kTheta, num("10000000.0")),
	"zaya": classOf("ZayaConfig", kLayers, num("40"), kHidden, num("2048"), kHeads, num("8"), kKV, num("2"), kHead, num("128"),
		kMax, num("131072"), "rope_parameters", object{
			"hybrid":         object{"rope_type": "default", "rope_theta": num("5000000.0"), "partial_rotary_factor": num("0.5")},
			"hybrid_sliding": object{"rope_type": "default", "rope_theta": num("10000.0"), "partial_rotary_factor": num("0.5")},
		}),
	// MellumConfig (mellum/configuration_mellum.py, decba1d2): head_dim 128 (2304 / 32 heads
	// would give 72), no default_theta.
	"mellum": classOf("MellumConfig", kLayers, num("28"), kHidden, num("2304"), kHeads, num("32"), kKV, num("4"), kHead, num("128"),
		kMax, num("131072"), "rope_parameters", object{
			rope.FullAttention:    object{"rope_type": "default", "rope_theta": num("500000.0")},
			rope.SlidingAttention: object{"rope_type": "default", "rope_theta": num("10000.0")},
		}),
	// DbrxConfig's attn_config defaults kv_n_heads to 1 and (v4) rope_theta to 10000.
	"dbrx":      classOf("DbrxConfig", kLayers, num("24"), kHidden, num("2048"), kHeads, num("16"), kKV, num("1"), kMax, num("2048")),
	"moonshine": classOf("MoonshineConfig", kLayers, num("6"), kHidden, num("288"), kHeads, num("8"), kMax, num("512")),
	// Qwen4ExpConfig.__post_init__ (configuration_qwen4_exp.py @626859fc, and @075d0aed):
	// Qwen4ExpTextConfig(**text_config), or Qwen4ExpTextConfig() without one.
	"qwen4_exp":      builtFromDefaults(qwen4ExpText, "Qwen4ExpConfig", "qwen4_exp_text"),
	"qwen4_exp_text": qwen4ExpText,
	"kimi_k25":       kimi25,
	// MiniMaxM3VLConfig.__post_init__ (configuration_minimax_m3_vl.py, decba1d2) pops
	// text_config's model_type and builds MiniMaxM3VLTextConfig(**text_config), or
	// MiniMaxM3VLTextConfig() without one.
	"minimax_m3_vl":      builtFromDefaults(minimaxM3VLText, "MiniMaxM3VLConfig", "minimax_m3_vl_text"),
	"minimax_m3_vl_text": minimaxM3VLText,
	// DiffusionGemmaTextConfig (configuration_diffusion_gemma.py @008e574) has Gemma 4's
	// defaults, which the gemma4 family carries.
	"diffusion_gemma":      builtFromDefaults(classOf("DiffusionGemmaTextConfig"), "DiffusionGemmaConfig", "diffusion_gemma_text"),
	"diffusion_gemma_text": classOf("DiffusionGemmaTextConfig"),
}

var (
	// GlmOcrTextConfig (configuration_glm_ocr.py): no head_dim field (1024 / 16).
	glmOCRText = classOf("GlmOcrTextConfig", kLayers, num("16"), kHidden, num("1024"), kHeads, num("16"), kKV, num("8"), kMax, num("131072"))
	// Kimi_K25Config.__post_init__ (kimi_k25/configuration_kimi_k25.py, transformers decba1d2)
	// builds text_config with CONFIG_MAPPING[its model_type](**text_config), the model_type
	// deepseek_v3 when absent and kimi_k2 read as deepseek_v3, or DeepseekV3Config() without
	// one; Kimi_K25Model builds its language model from that text_config alone
	// (AutoModel.from_config, modeling_kimi_k25.py).
	kimi25 = builtFromDefaults(deepseekV3Class, "Kimi_K25Config", "deepseek_v3")
	// MiniMaxM3VLTextConfig (configuration_minimax_m3_vl.py, decba1d2), default_theta 5e6:
	// head_dim 128.
	minimaxM3VLText = classOf("MiniMaxM3VLTextConfig", kLayers, num("60"), kHidden, num("6144"), kHeads, num("64"), kKV, num("4"),
		kHead, num("128"), kMax, num("524288"), kTheta, num("5000000.0"))
	// Qwen4ExpTextConfig (configuration_qwen4_exp.py @626859fc).
	qwen4ExpText = classOf("Qwen4ExpTextConfig", kHidden, num("2048"), kHeads, num("16"), kKV, num("2"), kHead, num("256"),
		kMax, num("32768"))
)

// addClassDefaults puts the config class's defaults of the family s was resolved by under the
// family's own (families.go), which win where both give a key, and names the class in the
// notes. nested says the config has a text_config; noRopeParameters that the reading ignores
// transformers v5's rope_parameters.
func (s *source) addClassDefaults(nested, noRopeParameters bool) {
	c, ok := configClasses[s.famName]
	if !ok {
		return
	}
	if nested && c.nested != "" {
		c = configClasses[c.nested]
	}
	merged := maps.Clone(c.defaults)
	if ro, ok := merged["rope_parameters"].(object); ok && noRopeParameters {
		if c.v4RopeScaling {
			ro = maps.Clone(ro)
			delete(ro, kTheta)
			merged["rope_parameters"] = ro
		} else {
			delete(merged, "rope_parameters")
			s.note("%s's default rope_parameters not used: transformers v5's, which this reading predates", c.name)
		}
	}
	maps.Copy(merged, s.defaults)
	for _, k := range nullMeansNone {
		if s.null(k) {
			delete(merged, k)
		}
	}
	for alias, k := range c.shadows {
		if _, ok := s.raw(alias); ok {
			delete(merged, k)
		}
	}
	// transformers takes a fixed KV default whatever the head count, and cannot build the
	// attention (num_key_value_groups = heads // kv) when it does not divide the config's heads:
	// that default is no reading of the model, so hf's own (the head count) stands.
	if heads, kv, ok := s.defaultKV(merged); ok && heads%kv != 0 {
		delete(merged, kKV)
		s.note("num_key_value_heads absent: %s's default %d does not divide the %d attention heads, so it is not taken", c.name, kv, heads)
	}
	s.defaults, s.famName, s.headsDivide = merged, c.name, c.headsDivide

	// A class that fills rope_parameters when the config has none takes rope_theta from that
	// object (convert_rope_params_to_dict only setdefaults the config's), so a bare rope_theta
	// is not read: say so, since nothing else would.
	_, bareTheta := s.raw(kTheta)
	_, rope := s.raw("rope_parameters", "rope_scaling")
	if ro, ok := merged["rope_parameters"].(object); ok && ro[kTheta] != nil && bareTheta && !rope {
		s.note("rope_theta not read: %s fills rope_parameters when the config has none, and its rope_theta %v wins", c.name, ro[kTheta])
	}
}

// defaultKV is the config's head count and the default KV head count when the config gives
// the one and not the other.
func (s *source) defaultKV(defaults map[string]any) (heads, kv int, ok bool) {
	if _, given := s.raw(kKV); given || defaults[kKV] == nil {
		return 0, 0, false
	}
	v, given := s.raw(kHeads, "n_head", "num_heads")
	if !given {
		return 0, 0, false
	}
	heads, herr := asInt("", v)
	kv, kerr := asInt("", defaults[kKV])
	return heads, kv, herr == nil && kerr == nil && heads > 0 && kv > 0
}

// raw is the first of keys the config gives (not null), in the text model, then, for a
// nested config, at the top level, as source.given looks, without counting it as read.
func (s *source) raw(keys ...string) (any, bool) {
	for _, n := range s.levels(keys[0]) {
		if n == nil {
			continue
		}
		for _, k := range keys {
			if v := n.m[k]; v != nil {
				return v, true
			}
		}
	}
	return nil, false
}

// ignoresRopeParameters reports whether o reads config.json without transformers v5's
// rope_parameters (RuleRopeParameters "ignores").
func (o ParseOptions) ignoresRopeParameters() bool {
	c, err := o.choices()
	return err == nil && c[RuleRopeParameters] == "ignores"
}
