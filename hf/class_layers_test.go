package hf

import (
	"fmt"
	"testing"
)

// classLayers is each config class's num_hidden_layers default (n_layer for GPTJConfig and
// CodeGenConfig, n_layers for DbrxConfig, decoder_num_hidden_layers for MoonshineConfig), read
// in models/<type>/configuration_<type>.py at transformers main (mirror zucchini-nlp/transformers
// decba1d2), except Kolibri1Config (@bdd66176). Mistral3Config's is the fixed MistralConfig
// its __post_init__ builds without text_config. Left out: LongcatFlashConfig (num_layers 28
// decoder layers of two attention blocks each, num_hidden_layers 56, one RoPE for all) and the
// classes hf reads at commits after decba1d2 (HYV4Config, ZgcmConfig, Qwen4ExpTextConfig).
var classLayers = map[string]int{
	"ApertusConfig": 32, "BambaConfig": 32, "CodeGenConfig": 28, "Cohere2Config": 40, "CohereConfig": 40,
	"DbrxConfig": 24, "DeepseekV2Config": 32, "DeepseekV32Config": 61, "DeepseekV3Config": 61, "DeepseekV4Config": 43,
	"DiffusionGemmaTextConfig": 30, "Ernie4_5Config": 18, "Ernie4_5_MoeConfig": 28, "Ernie4_5_VLMoeTextConfig": 28,
	"Exaone4Config": 32, "FalconConfig": 32, "GPTJConfig": 28, "GPTNeoXConfig": 44, "Gemma2Config": 26,
	"Gemma3TextConfig": 26, "Gemma3nTextConfig": 35, "Gemma4TextConfig": 30, "Gemma4UnifiedTextConfig": 30,
	"GemmaConfig": 28, "Glm4Config": 40, "Glm4MoeConfig": 46, "Glm4MoeLiteConfig": 47, "Glm4vMoeTextConfig": 46,
	"Glm4vTextConfig": 40, "GlmConfig": 40, "GlmMoeDsaConfig": 78, "GlmOcrTextConfig": 16, "GptOssConfig": 36,
	"GraniteConfig": 32, "GraniteMoeConfig": 32, "GraniteMoeHybridConfig": 32, "GraniteMoeSharedConfig": 32,
	"HeliumConfig": 24, "HunYuanDenseV1Config": 32, "HunYuanMoEV1Config": 32, "HunYuanVLTextConfig": 32,
	"JetMoeConfig": 12, "Kolibri1Config": 50, "Llama4TextConfig": 48, "LlamaConfig": 32, "MiniMaxConfig": 32,
	"MiniMaxM2Config": 62, "Ministral3Config": 34, "MinistralConfig": 32, "Mistral3Config": 40, "Mistral4Config": 36,
	"MistralConfig": 32, "MixtralConfig": 32, "MoonshineConfig": 6, "NemotronConfig": 32, "Olmo2Config": 32,
	"Olmo3Config": 32, "OlmoConfig": 32, "PersimmonConfig": 36, "Phi3Config": 32, "PhiConfig": 24, "PhimoeConfig": 32,
	"Qwen2Config": 32, "Qwen2MoeConfig": 24, "Qwen2VLTextConfig": 80, "Qwen2_5OmniTalkerConfig": 28,
	"Qwen2_5OmniTextConfig": 28, "Qwen2_5_VLTextConfig": 80, "Qwen3Config": 32, "Qwen3MoeConfig": 24,
	"Qwen3NextConfig": 48, "Qwen3OmniMoeTalkerTextConfig": 20, "Qwen3OmniMoeTextConfig": 28,
	"Qwen3VLMoeTextConfig": 24, "Qwen3VLTextConfig": 32, "Qwen3_5MoeTextConfig": 40, "Qwen3_5TextConfig": 32,
	"SeedOssConfig": 64, "SmolLM3Config": 36, "StableLmConfig": 32, "Starcoder2Config": 30, "Zamba2Config": 54,
	"ZayaConfig": 40,
}

// TestClassLayers: a config without num_hidden_layers takes its class's default, with a note,
// so that the per-layer rules, --layer's bounds and the layer types derived from a pattern cover
// the layers transformers builds.
func TestClassLayers(t *testing.T) {
	for mt, w := range classWants {
		want, ok := classLayers[w.class]
		if !ok {
			continue
		}
		m, err := Parse([]byte(classConfig(mt, w.extra)))
		if err != nil {
			t.Errorf("%s: %v", mt, err)
			continue
		}
		if m.NumLayers != want || !hasNote(m, fmt.Sprintf("default %d", want)) {
			t.Errorf("%s: %d layers, notes %q: want %s's %d, noted", mt, m.NumLayers, m.Notes, w.class, want)
		}
	}
}
