package hf

import (
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// classWant is what transformers builds from a config that gives only model_type (and extra):
// the config class's defaults, as configuration_<type>.py at transformers main (mirror
// zucchini-nlp/transformers decba1d2) sets them, carried through the class's rules by hand.
type classWant struct {
	extra     string // keys the class cannot do without, JSON object members
	heads, kv int
	head, rot int
	base      float64
	maxPos    int
	style     rope.Style
	scaling   rope.ScalingType
	class     string // the class the notes name
}

// The spec is the model's own (full_attention layers for per-layer families). Values are
// written out from the classes, not from configClasses.
var classWants = map[string]classWant{
	"llama":     {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "LlamaConfig"},
	"mistral":   {heads: 32, kv: 8, head: 128, rot: 128, base: 10000, maxPos: 131072, class: "MistralConfig"},
	"mixtral":   {heads: 32, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 131072, class: "MixtralConfig"},
	"qwen2":     {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 32768, class: "Qwen2Config"},
	"qwen2_moe": {heads: 16, kv: 16, head: 128, rot: 128, base: 10000, maxPos: 32768, class: "Qwen2MoeConfig"},
	"qwen3":     {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 32768, class: "Qwen3Config"},
	// Qwen3MoeConfig has no head_dim field: 2048 / 32.
	"qwen3_moe":         {heads: 32, kv: 4, head: 64, rot: 64, base: 10000, maxPos: 32768, class: "Qwen3MoeConfig"},
	"qwen2_vl":          {heads: 64, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2VLTextConfig"},
	"qwen2_vl_text":     {heads: 64, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2VLTextConfig"},
	"qwen2_5_vl":        {heads: 64, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2_5_VLTextConfig"},
	"qwen2_5_vl_text":   {heads: 64, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2_5_VLTextConfig"},
	"qwen3_vl":          {heads: 32, kv: 32, head: 128, rot: 128, base: 500000, maxPos: 128000, class: "Qwen3VLTextConfig"},
	"qwen3_vl_text":     {heads: 32, kv: 32, head: 128, rot: 128, base: 500000, maxPos: 128000, class: "Qwen3VLTextConfig"},
	"qwen3_vl_moe":      {heads: 16, kv: 16, head: 128, rot: 128, base: 500000, maxPos: 128000, class: "Qwen3VLMoeTextConfig"},
	"qwen3_vl_moe_text": {heads: 16, kv: 16, head: 128, rot: 128, base: 500000, maxPos: 128000, class: "Qwen3VLMoeTextConfig"},
	"gemma":             {heads: 16, kv: 16, head: 256, rot: 256, base: 10000, maxPos: 8192, class: "GemmaConfig"},
	"gemma2":            {heads: 8, kv: 4, head: 256, rot: 256, base: 10000, maxPos: 8192, class: "Gemma2Config"},
	"gemma3":            {heads: 8, kv: 4, head: 256, rot: 256, base: 1e6, maxPos: 131072, class: "Gemma3TextConfig"},
	"gemma3_text":       {heads: 8, kv: 4, head: 256, rot: 256, base: 1e6, maxPos: 131072, class: "Gemma3TextConfig"},
	"gemma3n":           {heads: 8, kv: 2, head: 256, rot: 256, base: 1e6, maxPos: 32768, class: "Gemma3nTextConfig"},
	"gemma3n_text":      {heads: 8, kv: 2, head: 256, rot: 256, base: 1e6, maxPos: 32768, class: "Gemma3nTextConfig"},
	"olmo3":             {heads: 32, kv: 32, head: 128, rot: 128, base: 500000, maxPos: 2048, class: "Olmo3Config"},
	"exaone4":           {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "Exaone4Config"},
	"smollm3":           {heads: 16, kv: 4, head: 128, rot: 128, base: 2e6, maxPos: 32768, class: "SmolLM3Config"},
	"phi":               {heads: 32, kv: 32, head: 64, rot: 32, base: 10000, maxPos: 2048, class: "PhiConfig"},
	"phi3":              {heads: 32, kv: 32, head: 96, rot: 96, base: 10000, maxPos: 4096, class: "Phi3Config"},
	"gpt_neox":          {heads: 64, kv: 64, head: 96, rot: 24, base: 10000, maxPos: 2048, class: "GPTNeoXConfig"},
	"gpt_oss": {heads: 64, kv: 8, head: 64, rot: 64, base: 150000, maxPos: 131072, scaling: rope.ScalingYaRN,
		class: "GptOssConfig"},
	"olmo":       {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "OlmoConfig"},
	"olmo2":      {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "Olmo2Config"},
	"stablelm":   {heads: 32, kv: 32, head: 80, rot: 20, base: 10000, maxPos: 4096, class: "StableLmConfig"},
	"persimmon":  {heads: 64, kv: 64, head: 64, rot: 32, base: 10000, maxPos: 16384, class: "PersimmonConfig"},
	"starcoder2": {heads: 24, kv: 2, head: 128, rot: 128, base: 10000, maxPos: 4096, class: "Starcoder2Config"},
	// multi_query true by default: one KV head.
	"falcon": {heads: 71, kv: 1, head: 64, rot: 64, base: 10000, maxPos: 2048, class: "FalconConfig"},
	// Glm4MoeConfig's 4096 / 96 heads do not divide: a published head_dim.
	"glm4_moe":         {extra: `"head_dim": 128`, heads: 96, kv: 8, head: 128, rot: 64, base: 10000, maxPos: 131072, class: "Glm4MoeConfig"},
	"granite":          {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "GraniteConfig"},
	"granitemoe":       {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "GraniteMoeConfig"},
	"granitemoeshared": {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "GraniteMoeSharedConfig"},
	// position_embedding_type defaults to None, which builds no rotary embedding.
	"granitemoehybrid": {extra: `"position_embedding_type": "rope"`, heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048,
		class: "GraniteMoeHybridConfig"},
	"bamba":     {heads: 32, kv: 8, head: 128, rot: 64, base: 10000, maxPos: 262144, class: "BambaConfig"},
	"ministral": {heads: 32, kv: 8, head: 128, rot: 128, base: 10000, maxPos: 131072, class: "MinistralConfig"},
	"ministral3": {heads: 32, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 262144, scaling: rope.ScalingYaRN,
		class: "Ministral3Config"},
	// Without text_config, Mistral3Config's fixed MistralConfig.
	"mistral3":         {heads: 32, kv: 8, head: 128, rot: 128, base: 1e9, maxPos: 131072, class: "Mistral3Config"},
	"phimoe":           {heads: 32, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 131072, class: "PhimoeConfig"},
	"hunyuan_v1_dense": {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "HunYuanDenseV1Config"},
	"hunyuan_v1_moe":   {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "HunYuanMoEV1Config"},
	"hunyuan_vl":       {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "HunYuanVLTextConfig"},
	"hunyuan_vl_text":  {heads: 32, kv: 32, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "HunYuanVLTextConfig"},
	"seed_oss":         {heads: 80, kv: 8, head: 128, rot: 128, base: 10000, maxPos: 524288, class: "SeedOssConfig"},
	"apertus": {heads: 32, kv: 32, head: 128, rot: 128, base: 1.2e7, maxPos: 65536, scaling: rope.ScalingLlama3,
		class: "ApertusConfig"},
	"nemotron":         {heads: 48, kv: 48, head: 128, rot: 64, base: 10000, maxPos: 4096, class: "NemotronConfig"},
	"qwen3_next":       {heads: 16, kv: 2, head: 256, rot: 64, base: 10000, maxPos: 32768, class: "Qwen3NextConfig"},
	"qwen3_5":          {heads: 16, kv: 4, head: 256, rot: 64, base: 10000, maxPos: 32768, class: "Qwen3_5TextConfig"},
	"qwen3_5_text":     {heads: 16, kv: 4, head: 256, rot: 64, base: 10000, maxPos: 32768, class: "Qwen3_5TextConfig"},
	"qwen3_5_moe":      {heads: 16, kv: 2, head: 256, rot: 64, base: 10000, maxPos: 32768, class: "Qwen3_5MoeTextConfig"},
	"qwen3_5_moe_text": {heads: 16, kv: 2, head: 256, rot: 64, base: 10000, maxPos: 32768, class: "Qwen3_5MoeTextConfig"},
	"minimax":          {heads: 32, kv: 8, head: 128, rot: 128, base: 1e6, maxPos: 131072, class: "MiniMaxConfig"},
	"minimax_m2":       {heads: 48, kv: 8, head: 128, rot: 128, base: 5e6, maxPos: 196608, class: "MiniMaxM2Config"},
	// 4096 / 96 heads do not divide: a published head_dim.
	"glm4v_moe":      {extra: `"head_dim": 128`, heads: 96, kv: 8, head: 128, rot: 64, base: 10000, maxPos: 65536, class: "Glm4vMoeTextConfig"},
	"glm4v_moe_text": {extra: `"head_dim": 128`, heads: 96, kv: 8, head: 128, rot: 64, base: 10000, maxPos: 65536, class: "Glm4vMoeTextConfig"},
	// Full layers: global_head_dim 512, proportional RoPE at 1e6.
	"gemma4": {heads: 8, kv: 4, head: 512, rot: 512, base: 1e6, maxPos: 131072, scaling: rope.ScalingProportional,
		class: "Gemma4TextConfig"},
	"gemma4_text": {heads: 8, kv: 4, head: 512, rot: 512, base: 1e6, maxPos: 131072, scaling: rope.ScalingProportional,
		class: "Gemma4TextConfig"},
	"gemma4_unified": {heads: 8, kv: 4, head: 512, rot: 512, base: 1e6, maxPos: 262144, scaling: rope.ScalingProportional,
		class: "Gemma4UnifiedTextConfig"},
	"gemma4_unified_text": {heads: 8, kv: 4, head: 512, rot: 512, base: 1e6, maxPos: 262144, scaling: rope.ScalingProportional,
		class: "Gemma4UnifiedTextConfig"},
	// 2048 / 28 heads do not divide: a published head_dim, under text_config for the wrappers,
	// which build the text model from defaults without one.
	"qwen3_omni_moe":         {extra: `"text_config": {"head_dim": 128}`, heads: 28, kv: 4, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen3OmniMoeTextConfig"},
	"qwen3_omni_moe_thinker": {extra: `"text_config": {"head_dim": 128}`, heads: 28, kv: 4, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen3OmniMoeTextConfig"},
	"qwen3_omni_moe_text":    {extra: `"head_dim": 128`, heads: 28, kv: 4, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen3OmniMoeTextConfig"},
	// 1024 / 16 = 64 cannot hold the default mrope_section [24, 20, 20]: a published head_dim.
	"qwen3_omni_moe_talker":      {extra: `"head_dim": 128`, heads: 16, kv: 2, head: 128, rot: 128, base: 10000, maxPos: 32768, class: "Qwen3OmniMoeTalkerTextConfig"},
	"qwen3_omni_moe_talker_text": {extra: `"head_dim": 128`, heads: 16, kv: 2, head: 128, rot: 128, base: 10000, maxPos: 32768, class: "Qwen3OmniMoeTalkerTextConfig"},
	"qwen2_5_omni":               {heads: 28, kv: 4, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2_5OmniTextConfig"},
	"qwen2_5_omni_thinker":       {heads: 28, kv: 4, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2_5OmniTextConfig"},
	"qwen2_5_omni_text":          {heads: 28, kv: 4, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2_5OmniTextConfig"},
	"qwen2_5_omni_talker":        {heads: 28, kv: 4, head: 128, rot: 128, base: 1e6, maxPos: 32768, class: "Qwen2_5OmniTalkerConfig"},
	// GPTJConfig / CodeGenConfig: n_embd 4096 / n_head 16, rotary_dim 64.
	"gptj":    {heads: 16, kv: 16, head: 256, rot: 64, base: 10000, maxPos: 2048, style: rope.GPTJ, class: "GPTJConfig"},
	"codegen": {heads: 16, kv: 16, head: 256, rot: 64, base: 10000, maxPos: 2048, style: rope.GPTJ, class: "CodeGenConfig"},
	"cohere":  {heads: 64, kv: 64, head: 128, rot: 128, base: 500000, maxPos: 8192, style: rope.GPTJ, class: "CohereConfig"},
	"cohere2": {heads: 64, kv: 64, head: 128, rot: 128, base: 10000, maxPos: 8192, style: rope.GPTJ, class: "Cohere2Config"},
	"glm":     {heads: 32, kv: 2, head: 128, rot: 64, base: 10000, maxPos: 131072, style: rope.GPTJ, class: "GlmConfig"},
	"glm4":    {heads: 32, kv: 2, head: 128, rot: 64, base: 10000, maxPos: 131072, style: rope.GPTJ, class: "Glm4Config"},
	// MLA: the spec is the qk_rope_head_dim part.
	"deepseek_v2":  {heads: 32, kv: 32, head: 64, rot: 64, base: 10000, maxPos: 2048, style: rope.GPTJ, class: "DeepseekV2Config"},
	"deepseek_v3":  {heads: 128, kv: 128, head: 64, rot: 64, base: 10000, maxPos: 4096, style: rope.GPTJ, class: "DeepseekV3Config"},
	"kimi_k2":      {heads: 128, kv: 128, head: 64, rot: 64, base: 10000, maxPos: 4096, style: rope.GPTJ, class: "DeepseekV3Config"},
	"kimi_k25":     {heads: 128, kv: 128, head: 64, rot: 64, base: 10000, maxPos: 4096, style: rope.GPTJ, class: "DeepseekV3Config"},
	"deepseek_v32": {heads: 128, kv: 128, head: 64, rot: 64, base: 10000, maxPos: 163840, style: rope.GPTJ, class: "DeepseekV32Config"},
	"mistral4": {heads: 32, kv: 32, head: 64, rot: 64, base: 10000, maxPos: 1048576, style: rope.GPTJ, scaling: rope.ScalingYaRN,
		class: "Mistral4Config"},
	// The rope slice of the 512-wide head (64/512), main RoPE at rope_theta.
	"deepseek_v4": {heads: 64, kv: 1, head: 64, rot: 64, base: 10000, maxPos: 1048576, style: rope.GPTJ, class: "DeepseekV4Config"},
	"llama4":      {heads: 40, kv: 8, head: 128, rot: 128, base: 500000, maxPos: 131072, style: rope.GPTJ, class: "Llama4TextConfig"},
	"llama4_text": {heads: 40, kv: 8, head: 128, rot: 128, base: 500000, maxPos: 131072, style: rope.GPTJ, class: "Llama4TextConfig"},
	// Glm4vTextConfig: no head_dim (4096 / 32); half the head, as the family reads it.
	"glm4v":      {heads: 32, kv: 2, head: 128, rot: 64, base: 10000, maxPos: 32768, style: rope.GPTJ, class: "Glm4vTextConfig"},
	"glm4v_text": {heads: 32, kv: 2, head: 128, rot: 64, base: 10000, maxPos: 32768, style: rope.GPTJ, class: "Glm4vTextConfig"},
	"ernie4_5":   {heads: 16, kv: 2, head: 128, rot: 128, base: 500000, maxPos: 131072, style: rope.GPTJ, class: "Ernie4_5Config"},
	"ernie4_5_moe": {heads: 20, kv: 4, head: 128, rot: 128, base: 500000, maxPos: 131072, style: rope.GPTJ,
		class: "Ernie4_5_MoeConfig"},
	"ernie4_5_vl_moe": {heads: 20, kv: 4, head: 128, rot: 128, base: 500000, maxPos: 131072, style: rope.GPTJ,
		class: "Ernie4_5_VLMoeTextConfig"},
	"ernie4_5_vl_moe_text": {heads: 20, kv: 4, head: 128, rot: 128, base: 500000, maxPos: 131072, style: rope.GPTJ,
		class: "Ernie4_5_VLMoeTextConfig"},

	"glm_moe_dsa":   {heads: 64, kv: 64, head: 64, rot: 64, base: 10000, maxPos: 202752, style: rope.GPTJ, class: "GlmMoeDsaConfig"},
	"glm4_moe_lite": {heads: 20, kv: 20, head: 64, rot: 64, base: 10000, maxPos: 202752, style: rope.GPTJ, class: "Glm4MoeLiteConfig"},
	"longcat_flash": {heads: 64, kv: 64, head: 64, rot: 64, base: 1e7, maxPos: 131072, style: rope.GPTJ, class: "LongcatFlashConfig"},
	// HY-V4 pairs its MLA rope part rotate_half-wise.
	"hy_v4":    {heads: 32, kv: 32, head: 64, rot: 64, base: 10000, maxPos: 262144, class: "HYV4Config"},
	"helium":   {heads: 20, kv: 20, head: 128, rot: 128, base: 1e5, maxPos: 4096, style: rope.GPTJ, class: "HeliumConfig"},
	"kolibri1": {heads: 48, kv: 4, head: 128, rot: 128, base: 10000, maxPos: 262144, class: "Kolibri1Config"},
	// GlmOcrTextConfig: 1024 / 16, the whole head.
	"glm_ocr":      {heads: 16, kv: 8, head: 64, rot: 64, base: 10000, maxPos: 131072, style: rope.GPTJ, class: "GlmOcrTextConfig"},
	"glm_ocr_text": {heads: 16, kv: 8, head: 64, rot: 64, base: 10000, maxPos: 131072, style: rope.GPTJ, class: "GlmOcrTextConfig"},
	// JetMoeConfig: 16 KV heads × 2 experts per token, head kv_channels.
	"jetmoe": {heads: 32, kv: 16, head: 128, rot: 128, base: 10000, maxPos: 4096, class: "JetMoeConfig"},
	// Zamba2Config: 2 × 2560 / 32; RoPE only with use_mem_rope.
	"zamba2": {extra: `"use_mem_rope": true`, heads: 32, kv: 32, head: 160, rot: 160, base: 10000, maxPos: 4096, class: "Zamba2Config"},
	// ZgcmConfig: int(128 × 0.334) = 42.
	"zgcm": {heads: 32, kv: 8, head: 128, rot: 42, base: 1e7, maxPos: 262144, class: "ZgcmConfig"},
	// ZayaConfig: every layer "hybrid", 5e6 over half the 128-wide head.
	"zaya": {heads: 8, kv: 2, head: 128, rot: 64, base: 5e6, maxPos: 131072, class: "ZayaConfig"},
	// DbrxConfig: 2048 / 16, one KV head (attn_config.kv_n_heads).
	"dbrx": {heads: 16, kv: 1, head: 128, rot: 128, base: 10000, maxPos: 2048, class: "DbrxConfig"},
	// MoonshineConfig: 288 / 8 = 36, int(36 × 0.9) = 32, GLM's pairs.
	"moonshine":      {heads: 8, kv: 8, head: 36, rot: 32, base: 10000, maxPos: 512, style: rope.GPTJ, class: "MoonshineConfig"},
	"qwen4_exp":      {heads: 16, kv: 2, head: 256, rot: 64, base: 10000, maxPos: 32768, class: "Qwen4ExpTextConfig"},
	"qwen4_exp_text": {heads: 16, kv: 2, head: 256, rot: 64, base: 10000, maxPos: 32768, class: "Qwen4ExpTextConfig"},
	"diffusion_gemma": {heads: 8, kv: 4, head: 512, rot: 512, base: 1e6, maxPos: 131072, scaling: rope.ScalingProportional,
		class: "DiffusionGemmaTextConfig"},
	"diffusion_gemma_text": {heads: 8, kv: 4, head: 512, rot: 512, base: 1e6, maxPos: 131072, scaling: rope.ScalingProportional,
		class: "DiffusionGemmaTextConfig"},
	// MellumConfig: every layer full_attention, its entry at 500000 over the whole head.
	"mellum": {heads: 32, kv: 4, head: 128, rot: 128, base: 5e5, maxPos: 131072, class: "MellumConfig"},
	// MiniMaxM3VLTextConfig: default_theta 5e6; its rotary_dim 64 is not read, and
	// rope_parameters has no partial_rotary_factor: the whole head.
	"minimax_m3_vl":      {heads: 64, kv: 4, head: 128, rot: 128, base: 5e6, maxPos: 524288, class: "MiniMaxM3VLTextConfig"},
	"minimax_m3_vl_text": {heads: 64, kv: 4, head: 128, rot: 128, base: 5e6, maxPos: 524288, class: "MiniMaxM3VLTextConfig"},
}

// noClass are the families whose model_type has no config class in transformers main, with
// the keys hf needs for them.
var noClass = map[string]string{
	"internlm2":       `"hidden_size": 4096, "num_attention_heads": 32`,
	"internlm3":       `"hidden_size": 4096, "num_attention_heads": 32`,
	"chatglm":         `"hidden_size": 4096, "num_attention_heads": 32`,
	"RefinedWeb":      `"hidden_size": 8192, "num_attention_heads": 128`,
	"RefinedWebModel": `"hidden_size": 4544, "num_attention_heads": 71`,
	"minimax_text_01": `"hidden_size": 6144, "num_attention_heads": 64`,
	"ernie4_5_moe_vl": `"hidden_size": 2560, "num_attention_heads": 20`,
}

func classConfig(modelType, extra string) string {
	cfg := `{"model_type": "` + modelType + `"`
	if extra != "" {
		cfg += ", " + extra
	}
	return cfg + "}"
}

// TestClassDefaults: a config that gives only model_type reads as its Hugging Face config class
// builds it, and the notes name the class.
func TestClassDefaults(t *testing.T) {
	for _, mt := range KnownModelTypes() {
		extra, skip := noClass[mt]
		w, ok := classWants[mt]
		if !ok && !skip {
			t.Errorf("%s: neither an expected config class nor in noClass", mt)
			continue
		}
		if ok && skip {
			t.Errorf("%s: both expected and in noClass", mt)
		}
		if ok {
			extra = w.extra
		}
		m, err := Parse([]byte(classConfig(mt, extra)))
		if err != nil {
			t.Errorf("%s: %v", mt, err)
			continue
		}
		if !ok {
			continue
		}
		if w.scaling == "" {
			w.scaling = rope.ScalingDefault
		}
		s := m.Spec
		got := classWant{heads: m.NumHeads, kv: m.NumKVHeads, head: s.HeadSize, rot: s.RotaryDim, base: s.Base,
			maxPos: s.MaxPositions, style: s.Style, scaling: s.Scaling.Type}
		w.extra, w.class = "", ""
		if got != w {
			t.Errorf("%s: got %+v\nwant %+v", mt, got, w)
		}
		if len(m.Unread) > 0 {
			t.Errorf("%s: the defaults leave keys unread: %v", mt, m.Unread)
		}
		if c := classWants[mt].class; !slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "using the "+c+" default") }) {
			t.Errorf("%s: no note names %s's defaults: %q", mt, c, m.Notes)
		}
	}
	for mt := range classWants {
		if _, ok := families[mt]; !ok {
			t.Errorf("%s: expected, but not a family", mt)
		}
	}
	for mt := range configClasses {
		if _, ok := families[mt]; !ok {
			t.Errorf("configClasses: %s is not a family", mt)
		}
		if _, ok := noClass[mt]; ok {
			t.Errorf("configClasses: %s has no config class in transformers", mt)
		}
	}
}

// TestQwen3HeadDimDefault: Qwen3Config's head_dim is a fixed 128, not hidden_size / heads
// (5120 / 64 = 80), as in Qwen3-32B-shaped configs that leave it out.
func TestQwen3HeadDimDefault(t *testing.T) {
	m := mustParse(t, `{"model_type": "qwen3", "hidden_size": 5120, "num_attention_heads": 64, "num_key_value_heads": 8}`)
	if m.HeadSize != 128 || m.Spec.RotaryDim != 128 {
		t.Errorf("head %d rotary %d, want Qwen3Config's head_dim 128", m.HeadSize, m.Spec.RotaryDim)
	}
	if !hasNote(m, "head_dim absent: using the Qwen3Config default 128") {
		t.Errorf("notes %q do not name Qwen3Config's head_dim default", m.Notes)
	}
}

// TestClassDefaultRules: the class rules beyond plain defaults that hf applies.
func TestClassDefaultRules(t *testing.T) {
	cases := []struct {
		name, cfg     string
		head, rot, kv int
		base          float64
		scaling       rope.ScalingType
		note, notNote string
		missing       bool // the parse fails naming hidden_size as missing
	}{
		// A null head_dim, num_key_value_heads or rotary_dim is the class's None rule
		// (hidden_size // heads, heads, the whole head), not its default number.
		{name: "qwen3 head_dim null", cfg: `{"model_type": "qwen3", "hidden_size": 5120, "num_attention_heads": 64, "head_dim": null}`,
			head: 80, rot: 80, kv: 32, base: 10000, scaling: rope.ScalingDefault, notNote: "head_dim absent: using"},
		{name: "llama4 head_dim null", cfg: `{"model_type": "llama4_text", "hidden_size": 4096, "num_attention_heads": 64, "head_dim": null}`,
			head: 64, rot: 64, kv: 8, base: 500000, scaling: rope.ScalingDefault},
		{name: "mistral kv null", cfg: `{"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": null}`,
			head: 128, rot: 128, kv: 32, base: 10000, scaling: rope.ScalingDefault},
		{name: "gptj rotary_dim null", cfg: `{"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": null}`,
			head: 256, rot: 256, kv: 16, base: 10000, scaling: rope.ScalingDefault},
		{name: "gptj rotary_dim absent", cfg: `{"model_type": "gptj", "n_embd": 4096, "n_head": 16}`,
			head: 256, rot: 64, kv: 16, base: 10000, scaling: rope.ScalingDefault, note: "rotary_dim absent: using the GPTJConfig default 64"},
		// A fixed KV default is taken where transformers can build the attention with it, and
		// left for the head count where it does not divide the heads.
		{name: "qwen2 kv default", cfg: `{"model_type": "qwen2", "hidden_size": 8192, "num_attention_heads": 64}`,
			head: 128, rot: 128, kv: 32, base: 10000, scaling: rope.ScalingDefault, note: "num_key_value_heads absent: using the Qwen2Config default 32"},
		{name: "qwen2 kv default not a divisor", cfg: `{"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28}`,
			head: 128, rot: 128, kv: 28, base: 10000, scaling: rope.ScalingDefault, note: "Qwen2Config's default 32 does not divide the 28 attention heads"},
		{name: "qwen2 kv given", cfg: `{"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4}`,
			head: 128, rot: 128, kv: 4, base: 10000, scaling: rope.ScalingDefault, notNote: "num_key_value_heads absent"},
		// A class that fills rope_parameters takes its rope_theta over a bare one.
		{name: "apertus bare rope_theta", cfg: `{"model_type": "apertus", "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 500000}`,
			head: 128, rot: 128, kv: 32, base: 1.2e7, scaling: rope.ScalingLlama3, note: "rope_theta not read: ApertusConfig"},
		{name: "ministral3 bare rope_theta", cfg: `{"model_type": "ministral3", "rope_theta": 500000}`,
			head: 128, rot: 128, kv: 8, base: 1e6, scaling: rope.ScalingYaRN, note: "rope_theta not read: Ministral3Config"},
		// GptOssConfig's YaRN object has no rope_theta: the config's stays.
		{name: "gpt_oss rope_theta", cfg: `{"model_type": "gpt_oss", "rope_theta": 500000}`,
			head: 64, rot: 64, kv: 8, base: 500000, scaling: rope.ScalingYaRN, notNote: "rope_theta not read"},
		// A legacy rope_scaling replaces the class's rope_parameters, and default_theta fills
		// its rope_theta.
		{name: "apertus rope_scaling without theta", cfg: `{"model_type": "apertus", "rope_scaling": {"rope_type": "linear", "factor": 2}}`,
			head: 128, rot: 128, kv: 32, base: 1.2e7, scaling: rope.ScalingLinear, note: "rope_theta absent: using the ApertusConfig default 12000000"},
		// Mistral3Config builds a text_config without model_type as MistralConfig.
		{name: "mistral3 untyped text_config", cfg: `{"model_type": "mistral3", "text_config": {"num_key_value_heads": 8}}`,
			head: 128, rot: 128, kv: 8, base: 10000, scaling: rope.ScalingDefault, note: "using the MistralConfig default"},
		// FalconConfig reads the legacy n_embed over hidden_size; hf does not, so it must not
		// take the class's 4544 for it.
		{name: "falcon n_embed", cfg: `{"model_type": "falcon", "n_embed": 8192, "num_attention_heads": 128}`, missing: true},
	}
	for _, c := range cases {
		m, err := Parse([]byte(c.cfg))
		if c.missing {
			if err == nil || !strings.Contains(err.Error(), "hidden_size: missing") {
				t.Errorf("%s: %v, want hidden_size missing", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		s := m.Spec
		if s.HeadSize != c.head || s.RotaryDim != c.rot || m.NumKVHeads != c.kv || s.Base != c.base || s.Scaling.Type != c.scaling {
			t.Errorf("%s: head %d rot %d kv %d base %v %s, want %d %d %d %v %s", c.name, s.HeadSize, s.RotaryDim, m.NumKVHeads, s.Base,
				s.Scaling.Type, c.head, c.rot, c.kv, c.base, c.scaling)
		}
		if c.note != "" && !hasNote(m, c.note) {
			t.Errorf("%s: notes %q lack %q", c.name, m.Notes, c.note)
		}
		if c.notNote != "" && hasNote(m, c.notNote) {
			t.Errorf("%s: notes %q have %q", c.name, m.Notes, c.notNote)
		}
	}
}

// TestClassDefaultsNested: a nested text model takes its own class's defaults, and so does the
// wrapper's model_type when text_config names none.
func TestClassDefaultsNested(t *testing.T) {
	for _, c := range []struct {
		cfg        string
		head, kv   int
		base       float64
		max        int
		classNoted string
	}{
		{`{"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 2560}}`, 128, 32, 500000, 128000, "Qwen3VLTextConfig"},
		{`{"model_type": "qwen2_vl", "text_config": {"hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4}}`, 128, 4, 1e6, 32768, "Qwen2VLTextConfig"},
		{`{"model_type": "qwen2_5_omni", "thinker_config": {"text_config": {"model_type": "qwen2_5_omni_text"}}}`, 128, 4, 1e6, 32768, "Qwen2_5OmniTextConfig"},
		{`{"model_type": "llama4", "text_config": {"model_type": "llama4_text"}}`, 128, 8, 500000, 131072, "Llama4TextConfig"},
	} {
		m := mustParse(t, c.cfg)
		if m.HeadSize != c.head || m.NumKVHeads != c.kv || m.Spec.Base != c.base || m.Spec.MaxPositions != c.max {
			t.Errorf("%s: head %d kv %d base %v max %d, want %d %d %v %d", c.cfg, m.HeadSize, m.NumKVHeads, m.Spec.Base, m.Spec.MaxPositions,
				c.head, c.kv, c.base, c.max)
		}
		if !hasNote(m, "using the "+c.classNoted+" default") {
			t.Errorf("%s: notes %q do not name %s", c.cfg, m.Notes, c.classNoted)
		}
	}
}

// TestDeepseekV32IndexerDefault: DeepseekV32Config's index_head_dim 128 gives every model its
// lightning indexer.
func TestDeepseekV32IndexerDefault(t *testing.T) {
	m := mustParse(t, `{"model_type": "deepseek_v32"}`)
	if m.Indexer == nil || m.Indexer.HeadSize != 128 || m.Indexer.RotaryDim != 64 || m.Indexer.Style != rope.NeoX {
		t.Errorf("indexer %+v, want a 128-wide NeoX head rotating 64 dims", m.Indexer)
	}
}

// TestClassDefaultsWithoutRopeParameters: a reading that predates transformers v5's
// rope_parameters (hf-4.57, vllm-0.11) has no default rope_parameters object either, except where
// v4.57's class defaulted the same object as rope_scaling (GptOssConfig, ApertusConfig, at
// 59eba492), with rope_theta a key of its own there.
func TestClassDefaultsWithoutRopeParameters(t *testing.T) {
	for _, c := range []struct {
		cfg     string
		base    float64
		scaling rope.ScalingType
		note    string
	}{
		{`{"model_type": "ministral3"}`, 10000, rope.ScalingDefault, "Ministral3Config's default rope_parameters not used"},
		{`{"model_type": "gpt_oss"}`, 150000, rope.ScalingYaRN, "rope_parameters absent: using the GptOssConfig default"},
		{`{"model_type": "apertus"}`, 1.2e7, rope.ScalingLlama3, "rope_theta absent: using the ApertusConfig default 12000000"},
		{`{"model_type": "apertus", "rope_theta": 500000}`, 500000, rope.ScalingLlama3, "rope_parameters absent: using the ApertusConfig default"},
	} {
		for _, d := range []Dialect{DialectHF457, DialectVLLM011} {
			m, err := ParseOptions{Dialect: d}.Parse([]byte(c.cfg))
			if err != nil {
				t.Errorf("%s %s: %v", d, c.cfg, err)
				continue
			}
			if m.Spec.Base != c.base || m.Spec.Scaling.Type != c.scaling {
				t.Errorf("%s %s: base %v %s, want %v %s", d, c.cfg, m.Spec.Base, m.Spec.Scaling.Type, c.base, c.scaling)
			}
			if !hasNote(m, c.note) {
				t.Errorf("%s %s: notes %q lack %q", d, c.cfg, m.Notes, c.note)
			}
		}
	}
}
