package hf

// floorHeads are the model types whose transformers attention takes head_dim, when the config
// has none, as hidden_size // num_attention_heads with no check that it divides: the modeling
// code's getattr(config, "head_dim", config.hidden_size // config.num_attention_heads) (or the
// "or" form), in a config class without validate_architecture's divisibility check (both read
// at transformers decba1d2, models/<type>/modeling_<type>.py and configuration_<type>.py). hf
// takes the floor for them, with a note; for every other family (LlamaConfig, the Gemma 2/3/3n
// classes, GPTNeoXConfig and DeepseekV2Config refuse such a config; FalconAttention,
// PersimmonAttention, StableLmAttention, GPTJAttention and the Qwen2-VL / Qwen2.5-VL text
// attention raise), for remote-code families and for unknown ones it refuses.
var floorHeads = map[string]bool{
	"apertus": true, "bamba": true, "cohere": true, "exaone4": true, "moonshine": true,
	"ernie4_5_moe": true, "ernie4_5_vl_moe": true, "ernie4_5_vl_moe_text": true,
	"glm4_moe": true, "glm4v_moe": true, "glm4v_moe_text": true, "glm_ocr": true, "glm_ocr_text": true,
	"granite": true, "granitemoe": true, "granitemoehybrid": true, "granitemoeshared": true,
	"olmo": true, "olmo2": true, "olmo3": true, "phi": true, "phi3": true, "phimoe": true,
	"qwen2": true, "qwen2_moe": true, "qwen3_moe": true, "qwen3_vl_moe": true, "qwen3_vl_moe_text": true,
	"smollm3": true, "starcoder2": true, "mistral": true, "mixtral": true, "minimax": true, "ministral": true,
	"hunyuan_v1_dense": true, "hunyuan_v1_moe": true, "hunyuan_vl": true, "hunyuan_vl_text": true,
}

// floorsHead reports whether the parsed model's family takes hidden_size // heads unchecked.
func (p *parser) floorsHead() bool {
	return !p.unknown && (floorHeads[p.m.ModelType] || floorHeads[p.m.TopModelType] && !floorsNot(p.m.ModelType))
}

// floorsNot reports whether modelType is a family that refuses (one in families, not in
// floorHeads), so that a wrapper's rule does not override its text model's.
func floorsNot(modelType string) bool {
	_, known := families[modelType]
	return known && !floorHeads[modelType]
}

// headsDivideHidden refuses a config whose hidden_size the attention heads do not divide when
// its config class's validate_architecture does, head_dim or not: LlamaConfig, Gemma2Config,
// Gemma3TextConfig, Gemma3nTextConfig, GPTNeoXConfig and DeepseekV2Config raise "The hidden size
// (…) is not a multiple of the number of attention heads" (models/<type>/configuration_<type>.py
// at transformers decba1d2, run by @strict when the config is built), so transformers builds no
// model from it. hidden_size may be the class default. ReadRaw's lenient reading takes the
// config as it is.
func (p *parser) headsDivideHidden() error {
	if !p.src.headsDivide || p.src.lenient {
		return nil
	}
	hidden, path, ok, err := p.src.positive("hidden_size", "n_embd", "d_model")
	if err != nil || !ok || hidden%p.m.NumHeads == 0 {
		return err
	}
	return configErr("%s: %d is not divisible by the %d attention heads: %s.validate_architecture refuses it, head_dim or not, so transformers builds no model from this config",
		path, hidden, p.m.NumHeads, p.src.famName)
}
