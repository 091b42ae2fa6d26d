package hf

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// Dialect names a framework whose reading of config.json ParseOptions.Dialect reproduces. The
// zero value is the reference reading (Parse's): Hugging Face transformers main, except where it
// departs from the checkpoint authors' code (MiniMax's rotary_dim, PhiMoE's long factors), and
// with dynamic NTK's static length rule.
//
// A dialect changes which keys are read and which rules derive the spec, never the precision:
// the spec it gives is still evaluated in float64. Each rule a dialect applies was read in the
// framework's source (Rules cites it); a rule not verified for a dialect is read the reference
// way and is left out of the dialect's table.
type Dialect string

// The dialects.
const (
	// DialectReference is Parse's reading.
	DialectReference Dialect = ""
	// DialectHF is transformers main (checked at zucchini-nlp/transformers decba1d2, 2026-08),
	// including its readings of MiniMax (the whole head rotated) and PhiMoE (short factors only).
	DialectHF Dialect = "hf"
	// DialectHF457 is transformers v4.57 (main before the v5 RoPE refactor, checked at 59eba492,
	// 2025-10-03): no rope_parameters, LongRoPE's original length from the top level only.
	DialectHF457 Dialect = "hf-4.57"
	// DialectVLLM is vLLM main after PR #41277 and the YaRN attention-factor fix (checked at
	// vllm-project/vllm 0cd57848, with the Phi-3 LongRoPE rule of PR #27431).
	DialectVLLM Dialect = "vllm"
	// DialectVLLM011 is vLLM v0.11 (main at 0e93ac0b, 2025-10-03), before PR #41277's
	// dynamic-NTK rule, #28244's YaRN truncate and rope_parameters.
	DialectVLLM011 Dialect = "vllm-0.11"
	// DialectSGLang is SGLang main's rotary_embedding package (factory.py eb047c16, yarn.py
	// 8448045c, rope_variant.py 6170d975).
	DialectSGLang Dialect = "sglang"
	// DialectLlamaCpp is a config converted by llama.cpp's converter and run by ggml (checked at
	// 82bb48500, 2026-08-07: conversion/base.py, ggml/src/ggml.c, src/llama-model.cpp): only the
	// rules read in those sources are in its table (the converter's per-architecture classes,
	// which write LongRoPE's and YaRN's attention factors, were not).
	DialectLlamaCpp Dialect = "llama.cpp"
)

// Dialects lists the named dialects in a stable order.
func Dialects() []Dialect {
	return []Dialect{DialectHF, DialectHF457, DialectVLLM, DialectVLLM011, DialectSGLang, DialectLlamaCpp}
}

// ParseDialect reads a dialect name; "" and "reference" name the reference reading.
func ParseDialect(s string) (Dialect, error) {
	if s == "" || s == "reference" {
		return DialectReference, nil
	}
	d := Dialect(s)
	if slices.Contains(Dialects(), d) {
		return d, nil
	}
	names := make([]string, 0, 7)
	for _, d := range Dialects() {
		names = append(names, string(d))
	}
	return DialectReference, fmt.Errorf("dialect %q: want one of %s (or reference)", s, strings.Join(names, ", "))
}

func (d Dialect) String() string {
	if d == DialectReference {
		return "reference"
	}
	return string(d)
}

// Rule names one point on which frameworks read the same config differently.
type Rule string

// The rules, and the readings each can take.
const (
	// RuleRopeParameters: whether transformers v5's rope_parameters key is read ("reads", and
	// with a legacy rope_scaling beside it the config class's choice, rope_scaling's in
	// general), read first ("first": rope_parameters, else rope_scaling) or not ("ignores":
	// rope_theta, rope_scaling and the config class's defaults only, so a v5-only config loses
	// its theta and scaling).
	RuleRopeParameters Rule = "rope_parameters"
	// RuleYaRNAttention: YaRN's attention factor from the config's attention_factor, else
	// mscale/mscale_all_dim ("config"), or always 0.1·ln(factor) + 1 on the plain yarn path
	// ("computed"; DeepSeek's MLA models take their deepseek_yarn path, which reads mscale and
	// mscale_all_dim but not attention_factor: RuleDeepSeekYaRN says how).
	RuleYaRNAttention Rule = "yarn_attention_factor"
	// RuleYaRNTruncate: YaRN's truncate key honoured ("honoured") or the correction range
	// always floored and ceiled ("ignored").
	RuleYaRNTruncate Rule = "yarn_truncate"
	// RuleDeepSeekYaRN: YaRN's attention factor on DeepSeek's MLA path (the DeepSeek-V2/V3/V3.2,
	// Kimi-K2 and GLM-5 model types, or any rope_type deepseek_yarn): "config" (as
	// RuleYaRNAttention's: attention_factor, else the mscale / mscale_all_dim ratio when both are
	// given, else 0.1·ln(factor) + 1) or "mscale-defaults" (mscale(factor, mscale) /
	// mscale(factor, mscale_all_dim) · attn_factor with absent keys 1, 0 and 1, attention_factor
	// not read).
	RuleDeepSeekYaRN Rule = "deepseek_yarn_attention"
	// RuleDynamicLength: the length dynamic NTK stretches by: "static", "per-call" or
	// "max-trained" (rope.DynamicLength), or "ignored": the factor is not applied (plain RoPE).
	RuleDynamicLength Rule = "dynamic_ntk_length"
	// RuleLongRoPEAttention: LongRoPE's attention factor from the config's factor
	// ("config-factor"), from max / original, ignoring attention_factor ("lengths"), or from
	// max / original when the original length is a top-level key ("lengths-if-top-level").
	RuleLongRoPEAttention Rule = "longrope_attention_factor"
	// RuleLongRoPEOriginal: LongRoPE's original length from the config or its rope object
	// ("config-or-rope"), or from the top-level key only, max_position_embeddings otherwise
	// ("top-level").
	RuleLongRoPEOriginal Rule = "longrope_original"
	// RuleLongRoPETables: when the long factors apply: "per-call" (a call reaching the
	// original length), "long-past-original" (a call past it, one position later), or
	// "long-if-extended" (every position, once the served length passes the original: the
	// length max_position_embeddings, which vLLM serves when launched with --max-model-len past
	// the original).
	RuleLongRoPETables Rule = "longrope_tables"
	// RulePartialRotary: a config's partial_rotary_factor (or rotary_pct) for the model types
	// whose HF config class and rotary embedding never read it (Llama's, Qwen2's and the others
	// of partialIgnoredTypes): "honoured" (that
	// fraction of the head rotated) or "ignored": the whole head for rope_type default, and the
	// factor kept for a scaled type, whose tables HF main sizes by it and then cannot apply (a
	// note says so). MiniMax-Text-01's is RuleMiniMaxRotaryDim's.
	RulePartialRotary Rule = "partial_rotary_factor"
	// RulePartialRotarySource: where the rotary fraction comes from when the config object has
	// one both in its rope object and as its partial_rotary_factor attribute (the top-level key,
	// or the default its config class sets among its kwargs) and they differ:
	// "object-unless-scaled" (the rope object's for rope_type default, the attribute for every
	// other type, whose init writes it over the object's), "attribute" (the attribute,
	// whatever the type) or "attribute-only" (the attribute, else none: the rope object's is
	// never read, even when the config object has no attribute). Entries of a rope object keyed
	// by layer type take the attribute only where standardize_rope_params writes it there
	// (partial_types.go).
	RulePartialRotarySource Rule = "partial_rotary_source"
	// RuleRotaryPct: which config classes take rotary_pct (and rotary_emb_fraction) as the
	// rotary fraction. "gpt-neox": rotary_pct only where the config class reads it
	// (GPTNeoXConfig, and a model type outside the family table, read as a generic decoder),
	// rotary_emb_fraction nowhere; every other class keeps them as attributes nothing reads.
	// "aliases": besides, where the config object has no partial_rotary_factor attribute (the
	// config gives none and its class sets none among its kwargs), rotary_pct and then
	// rotary_emb_fraction are that attribute (GPTNeoXConfig pops rotary_pct, so only
	// rotary_emb_fraction there), which RulePartialRotarySource then weighs as any attribute.
	RuleRotaryPct Rule = "rotary_pct"
	// RuleMiniMaxRotaryDim: MiniMax's rotary_dim "honoured" (for MiniMax-M2 only where the
	// config gives no partial_rotary_factor, which every reading takes first) or "ignored" (the
	// whole head: for MiniMax-Text-01 partial_rotary_factor is not read either, as
	// RulePartialRotary's "ignored"), or ignored for MiniMax-Text-01 only ("ignored-text-01").
	RuleMiniMaxRotaryDim Rule = "minimax_rotary_dim"
	// RulePhiMoELongFactors: PhiMoE's long factors "used" as for Phi-3, or "never".
	RulePhiMoELongFactors Rule = "phimoe_long_factors"
	// RuleMRoPEDefault: a Qwen-VL config without mrope_section gets the model's default
	// sections ("family-default") or plain RoPE ("none").
	RuleMRoPEDefault Rule = "mrope_default_sections"
	// RuleMRoPEInterleavedDefault: a config with mrope_section but no mrope_interleaved gets the
	// family's layout ("family": Qwen3-VL's and Qwen3.5's interleaved) or chunked sections
	// ("chunked": the key's default false).
	RuleMRoPEInterleavedDefault Rule = "mrope_interleaved_default"
	// RuleRopeIndex: the Qwen-VL families' get_rope_index version ("v4.57", or "unified":
	// transformers main after PR #43972, multimodal.IndexUnified). It changes the positions,
	// not the spec: ParseOptions accepts it and derives the same spec either way.
	RuleRopeIndex Rule = "rope_index"
	// RuleIndexerPairing: how DeepSeek-V3.2's lightning indexer pairs its rotated dims (Model.
	// Indexer): "neox" (rotate_half, as DeepSeek's fixed reference code), or "interleaved":
	// the MLA's GPT-J pairing, the indexer handed the MLA's rotary embedding.
	RuleIndexerPairing Rule = "indexer_pairing"
)

// Rules lists every rule in a stable order.
func Rules() []Rule {
	return []Rule{RuleRopeParameters, RuleYaRNAttention, RuleYaRNTruncate, RuleDeepSeekYaRN,
		RuleDynamicLength, RuleLongRoPEAttention, RuleLongRoPEOriginal, RuleLongRoPETables,
		RulePartialRotary, RulePartialRotarySource, RuleRotaryPct, RuleMiniMaxRotaryDim, RulePhiMoELongFactors,
		RuleMRoPEDefault, RuleMRoPEInterleavedDefault, RuleRopeIndex, RuleIndexerPairing}
}

// Reading is how one dialect reads one rule, and the upstream code it follows.
type Reading struct {
	Rule    Rule   `json:"rule"`
	Choice  string `json:"choice"`
	Follows string `json:"follows"`
}

// The reference reading of every rule: what Parse does.
var referenceReadings = map[Rule]Reading{
	RuleRopeParameters:          {Choice: "reads", Follows: "transformers modeling_rope_utils.py RotaryEmbeddingConfigMixin.standardize_rope_params"},
	RuleYaRNAttention:           {Choice: "config", Follows: "transformers modeling_rope_utils.py _compute_yarn_parameters"},
	RuleYaRNTruncate:            {Choice: "honoured", Follows: "transformers modeling_rope_utils.py _compute_yarn_parameters (find_correction_range)"},
	RuleDeepSeekYaRN:            {Choice: "config", Follows: "transformers modeling_rope_utils.py _compute_yarn_parameters, which DeepSeek's MLA models run as every YaRN model"},
	RulePartialRotary:           {Choice: "honoured", Follows: "vLLM rotary_embedding/__init__.py get_rope: rotary_dim = int(head_size · partial_rotary_factor), as the code of every model that reads the key; transformers main's Llama has no partial rotary at all (LlamaRotaryEmbedding, apply_rotary_pos_emb), so a fraction in a llama config is the checkpoint's, which HF main does not follow"},
	RulePartialRotarySource:     {Choice: "object-unless-scaled", Follows: "transformers modeling_rope_utils.py RotaryEmbeddingConfigMixin.convert_rope_params_to_dict (setdefault into rope_parameters) and standardize_rope_params, which every ROPE_INIT_FUNCTIONS entry calls again once PreTrainedConfig.__post_init__ has set the attribute"},
	RuleRotaryPct:               {Choice: "gpt-neox", Follows: "transformers main (decba1d2) models/gpt_neox/configuration_gpt_neox.py and models/gpt_neox_japanese/configuration_gpt_neox_japanese.py convert_rope_params_to_dict: rope_parameters.setdefault(\"partial_rotary_factor\", kwargs.pop(\"rotary_pct\", …)), the only readers of rotary_pct; no class reads rotary_emb_fraction"},
	RuleDynamicLength:           {Choice: "static", Follows: "vLLM ≤ 0.21 dynamic_ntk_scaling_rope.py DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache: one cache for every call"},
	RuleLongRoPEAttention:       {Choice: "config-factor", Follows: "transformers modeling_rope_utils.py _compute_longrope_parameters"},
	RuleLongRoPEOriginal:        {Choice: "config-or-rope", Follows: "transformers modeling_rope_utils.py standardize_rope_params"},
	RuleLongRoPETables:          {Choice: "per-call", Follows: "transformers modeling_rope_utils.py dynamic_rope_update (longrope_frequency_update)"},
	RuleMiniMaxRotaryDim:        {Choice: "honoured", Follows: "MiniMax's modeling code; vLLM models/minimax_m2.py MiniMaxM2Attention.__init__ (01d99586): rotary_dim / head_dim as rope_parameters' partial_rotary_factor where it has none, which wins as in transformers main's MiniMaxM2RotaryEmbedding"},
	RulePhiMoELongFactors:       {Choice: "used", Follows: "Microsoft's Phi-3.5-MoE code; vLLM phi3_long_rope_scaled_rope.py"},
	RuleMRoPEDefault:            {Choice: "family-default", Follows: "transformers models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.__init__ (mrope_section default [24, 20, 20])"},
	RuleMRoPEInterleavedDefault: {Choice: "family", Follows: "transformers models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.forward: apply_interleaved_mrope whatever the config says"},
	RuleRopeIndex:               {Choice: "v4.57", Follows: "vLLM models/qwen2_vl.py and qwen2_5_vl.py get_mrope_input_positions: st_idx = llm_pos_ids_list[-1].max() + 1, as transformers v4.57's get_rope_index"},
	RuleIndexerPairing:          {Choice: "neox", Follows: "transformers models/deepseek_v32/modeling_deepseek_v32.py DeepseekV32Indexer.forward: apply_rotary_pos_emb (rotate_half) on the indexer's rope dims, apply_rotary_pos_emb_interleave for the MLA's"},
}

// dialectReadings are the rules each dialect reads differently from the reference, or alike but
// verified; a rule missing from a dialect's table was not verified in its source.
var dialectReadings = map[Dialect]map[Rule]Reading{
	DialectHF: {
		RuleRopeParameters:          {Choice: "reads", Follows: "transformers main modeling_rope_utils.py RotaryEmbeddingConfigMixin.standardize_rope_params"},
		RuleYaRNAttention:           {Choice: "config", Follows: "transformers main modeling_rope_utils.py _compute_yarn_parameters: attention_factor, else get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)"},
		RuleYaRNTruncate:            {Choice: "honoured", Follows: "transformers main modeling_rope_utils.py _compute_yarn_parameters: truncate = rope_parameters.get(\"truncate\", True)"},
		RuleDeepSeekYaRN:            {Choice: "config", Follows: "transformers main models/deepseek_v3/modeling_deepseek_v3.py DeepseekV3RotaryEmbedding.__init__ (and deepseek_v2's): ROPE_INIT_FUNCTIONS[rope_type], so modeling_rope_utils.py _compute_yarn_parameters: attention_factor, else get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim) when both are given, else get_mscale(factor)"},
		RulePartialRotary:           {Choice: "ignored", Follows: "transformers main (decba1d2) models/llama/configuration_llama.py LlamaConfig: no partial_rotary_factor field (convert_rope_params_to_dict only setdefaults it into rope_parameters); models/llama/modeling_llama.py LlamaRotaryEmbedding.compute_default_rope_parameters: dim = head_dim, the key never read; apply_rotary_pos_emb multiplies cos/sin into the whole head, so a scaled type's tables, sized by the factor, cannot be applied; the same in every class partialIgnoredTypes lists (models/<type>/modeling_<type>.py compute_default_rope_parameters)"},
		RulePartialRotarySource:     {Choice: "object-unless-scaled", Follows: "transformers main (decba1d2) configuration_utils.py PreTrainedConfig.__post_init__: convert_rope_params_to_dict kwargs.get()s partial_rotary_factor and setdefaults it into rope_parameters, then the leftover kwarg is setattr()ed; rope_type default runs the family's compute_default_rope_parameters on rope_parameters; modeling_rope_utils.py _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters, _compute_yarn_parameters, _compute_longrope_parameters, _compute_llama3_parameters call standardize_rope_params first, which assigns the attribute over rope_parameters[\"partial_rotary_factor\"]"},
		RuleRotaryPct:               {Choice: "gpt-neox", Follows: "transformers main (decba1d2) models/gpt_neox/configuration_gpt_neox.py and models/gpt_neox_japanese/configuration_gpt_neox_japanese.py convert_rope_params_to_dict: kwargs.pop(\"rotary_pct\", …) into rope_parameters[\"partial_rotary_factor\"]; every other class leaves it a leftover kwarg that PreTrainedConfig.__post_init__ setattr()s and nothing reads (models/stablelm/configuration_stablelm.py StableLmConfig.__post_init__: kwargs.setdefault(\"partial_rotary_factor\", 0.25)); rotary_emb_fraction is read nowhere"},
		RuleDynamicLength:           {Choice: "per-call", Follows: "transformers main modeling_rope_utils.py _compute_dynamic_ntk_parameters with dynamic_rope_update: seq_len = max(position)+1 over max_position_embeddings"},
		RuleLongRoPEAttention:       {Choice: "config-factor", Follows: "transformers main modeling_rope_utils.py _compute_longrope_parameters: factor from rope_parameters, max / original only when absent"},
		RuleLongRoPEOriginal:        {Choice: "config-or-rope", Follows: "transformers main modeling_rope_utils.py standardize_rope_params (config-level original_max_position_embeddings wins)"},
		RuleLongRoPETables:          {Choice: "per-call", Follows: "transformers main modeling_rope_utils.py dynamic_rope_update → longrope_frequency_update: long factors when seq_len > original"},
		RuleMiniMaxRotaryDim:        {Choice: "ignored", Follows: "transformers main models/minimax_m2/configuration_minimax_m2.py MiniMaxM2Config and models/minimax/configuration_minimax.py MiniMaxConfig: no rotary_dim; modeling_minimax_m2.py MiniMaxM2RotaryEmbedding (Glm4MoeRotaryEmbedding) sizes the rotary part by rope_parameters' partial_rotary_factor alone, the whole head_dim without one"},
		RulePhiMoELongFactors:       {Choice: "never", Follows: "transformers main models/phimoe/modeling_phimoe.py PhimoeRotaryEmbedding.forward: rope_init_fn(self.config) without seq_len, so short factors at every length"},
		RuleMRoPEDefault:            {Choice: "family-default", Follows: "transformers main models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.__init__: rope_parameters.get(\"mrope_section\", [24, 20, 20])"},
		RuleMRoPEInterleavedDefault: {Choice: "family", Follows: "transformers main models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.forward and models/qwen3_5/modeling_qwen3_5.py Qwen3_5TextRotaryEmbedding.forward: apply_interleaved_mrope unconditionally"},
		RuleIndexerPairing:          {Choice: "neox", Follows: "transformers main models/deepseek_v32/modeling_deepseek_v32.py DeepseekV32Indexer.forward: apply_rotary_pos_emb (rotate_half), the MLA's DeepseekV32Attention apply_rotary_pos_emb_interleave"},
		RuleRopeIndex:               {Choice: "unified", Follows: "transformers main models/qwen2_vl/modeling_qwen2_vl.py Qwen2VLModel.get_rope_index (and qwen2_5_vl, qwen3_vl, qwen3_5's) after #43972 (c281a2de): current_pos += max(h, w) // spatial_merge_size, position_ids = torch.zeros, rope_delta over len(current_input_ids); Qwen2.5-VL's time_interval = tokens_per_second · int(second_per_grid_t)"},
	},
	DialectHF457: {
		RuleRopeParameters:          {Choice: "ignores", Follows: "transformers v4.57 modeling_rope_utils.py (59eba492): every _compute_*_parameters reads config.rope_theta and config.rope_scaling; rope_parameters arrived with #39847 (2025-10-17)"},
		RuleYaRNAttention:           {Choice: "config", Follows: "transformers v4.57 modeling_rope_utils.py _compute_yarn_parameters: attention_factor, else mscale / mscale_all_dim"},
		RuleYaRNTruncate:            {Choice: "honoured", Follows: "transformers v4.57 modeling_rope_utils.py _compute_yarn_parameters: truncate = rope_scaling.get(\"truncate\", True)"},
		RuleDeepSeekYaRN:            {Choice: "config", Follows: "transformers v4.57 models/deepseek_v3/modeling_deepseek_v3.py DeepseekV3RotaryEmbedding.__init__: ROPE_INIT_FUNCTIONS[rope_type]; modeling_rope_utils.py _compute_yarn_parameters: the ratio only if mscale and mscale_all_dim"},
		RuleDynamicLength:           {Choice: "per-call", Follows: "transformers v4.57 modeling_rope_utils.py _compute_dynamic_ntk_parameters: seq_len = max(seq_len, max_position_embeddings)"},
		RulePartialRotarySource:     {Choice: "attribute-only", Follows: "transformers v4.57 modeling_rope_utils.py (59eba492) _compute_default_rope_parameters, _compute_dynamic_ntk_parameters, _compute_yarn_parameters, _compute_longrope_parameters: getattr(config, \"partial_rotary_factor\", 1.0), the linear and llama3 types through _compute_default_rope_parameters; no model reads rope_scaling[\"partial_rotary_factor\"] (its rope_config_validation warns of it as an unrecognized key)"},
		RuleRotaryPct:               {Choice: "gpt-neox", Follows: "transformers v4.57 (59eba492) models/gpt_neox/configuration_gpt_neox.py GPTNeoXConfig.__init__ (and gpt_neox_japanese's): self.partial_rotary_factor = rotary_pct after super().__init__; StableLmConfig.__init__ (partial_rotary_factor=0.25), PersimmonConfig's and PhiConfig's (0.5) take partial_rotary_factor, and PretrainedConfig.__init__ setattr()s rotary_pct as an attribute nothing reads"},
		RuleLongRoPEAttention:       {Choice: "lengths-if-top-level", Follows: "transformers v4.57 modeling_rope_utils.py _compute_longrope_parameters: factor = max_position_embeddings / original when config.original_max_position_embeddings is set"},
		RuleLongRoPEOriginal:        {Choice: "top-level", Follows: "transformers v4.57 modeling_rope_utils.py _compute_longrope_parameters: getattr(config, \"original_max_position_embeddings\"), else max_position_embeddings"},
		RuleLongRoPETables:          {Choice: "per-call", Follows: "transformers v4.57 modeling_rope_utils.py _compute_longrope_parameters: long factors when seq_len > original"},
		RuleMiniMaxRotaryDim:        {Choice: "ignored-text-01", Follows: "transformers v4.57 models/minimax/configuration_minimax.py MiniMaxConfig: no rotary_dim; v4.57 has no minimax_m2, whose reading stays the reference one"},
		RulePhiMoELongFactors:       {Choice: "used", Follows: "transformers v4.57 models/phimoe/modeling_phimoe.py PhimoeRotaryEmbedding.forward: rope_init_fn(config, device, seq_len)"},
		RuleMRoPEDefault:            {Choice: "family-default", Follows: "transformers v4.57 models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.__init__: rope_scaling.get(\"mrope_section\", [24, 20, 20])"},
		RuleMRoPEInterleavedDefault: {Choice: "family", Follows: "transformers v4.57 models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLTextRotaryEmbedding.forward: apply_interleaved_mrope unconditionally"},
		RuleRopeIndex:               {Choice: "v4.57", Follows: "transformers v4.57 models/qwen2_vl/modeling_qwen2_vl.py Qwen2VLModel.get_rope_index (and qwen2_5_vl, qwen3_vl's): st_idx = llm_pos_ids_list[-1].max() + 1, position_ids = torch.ones, rope_delta over len(total_input_ids[i])"},
	},
	DialectVLLM: {
		RuleRopeParameters:          {Choice: "reads", Follows: "vLLM transformers_utils/config.py get_config (0036026e): transformers v5's AutoConfig builds the config, its class choosing between rope_scaling and rope_parameters (convert_rope_params_to_dict); patch_rope_parameters then only renames legacy rope types and standardizes that object"},
		RuleYaRNAttention:           {Choice: "config", Follows: "vLLM rotary_embedding/yarn_scaling_rope.py YaRNScalingRotaryEmbedding.__init__ (0cd57848): attention_factor, else mscale / mscale_all_dim; v0.25.0 and earlier ignored both (vllm#48621)"},
		RuleYaRNTruncate:            {Choice: "honoured", Follows: "vLLM rotary_embedding/common.py yarn_find_correction_range(truncate) (#28244); models/gpt_oss.py passes rope_parameters.get(\"truncate\", True)"},
		RuleDeepSeekYaRN:            {Choice: "mscale-defaults", Follows: "vLLM models/deepseek_v2.py DeepseekV2MLAAttention.__init__ (002d6073): rope_type = deepseek_yarn unless default (apply_yarn_scaling unset); rotary_embedding/__init__.py get_rope (07b12f1b): deepseek_yarn kwargs extrapolation_factor, attn_factor, beta_fast, beta_slow, mscale, mscale_all_dim; deepseek_scaling_rope.py DeepseekScalingRotaryEmbedding.__init__ (00d678e1): mscale = yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim) · attn_factor, defaults mscale 1, mscale_all_dim 0"},
		RulePartialRotary:           {Choice: "honoured", Follows: "vLLM models/llama.py LlamaAttention._init_rotary_emb (e06c9ba2): get_rope(head_dim, rope_parameters=config.rope_parameters), which transformers' convert_rope_params_to_dict gave the config's partial_rotary_factor; rotary_embedding/__init__.py get_rope (07b12f1b): rotary_dim = int(head_size · partial_rotary_factor)"},
		RulePartialRotarySource:     {Choice: "attribute", Follows: "vLLM transformers_utils/config.py patch_rope_parameters (0036026e): config.partial_rotary_factor = getattr_iter(config, [partial_rotary_factor, rotary_pct, rotary_emb_fraction]), then standardize_rope_params writes it over rope_parameters' for every rope type; rotary_embedding/__init__.py get_rope (07b12f1b): rotary_dim = int(head_size · rope_parameters[\"partial_rotary_factor\"])"},
		RuleRotaryPct:               {Choice: "aliases", Follows: "vLLM transformers_utils/config.py patch_rope_parameters (0036026e): config.partial_rotary_factor = getattr_iter(config, [\"partial_rotary_factor\", \"rotary_pct\", \"rotary_emb_fraction\"]); config/utils.py getattr_iter (7a3bde4c): the first name hasattr() finds, so a class that sets partial_rotary_factor among its kwargs (StableLmConfig, PhiConfig, Glm4Config …) never reaches the aliases, and GPTNeoXConfig, which pops rotary_pct, reaches rotary_emb_fraction alone"},
		RuleDynamicLength:           {Choice: "max-trained", Follows: "vLLM rotary_embedding/__init__.py get_rope and dynamic_ntk_scaling_rope.py after PR #41277: max_trained_positions, default max_position"},
		RuleLongRoPEAttention:       {Choice: "lengths", Follows: "vLLM rotary_embedding/phi3_long_rope_scaled_rope.py Phi3LongRoPEScaledRotaryEmbedding.__init__: scale = max_position_embeddings / original; get_rope forwards only short_mscale / long_mscale"},
		RuleLongRoPEOriginal:        {Choice: "config-or-rope", Follows: "vLLM transformers_utils/config.py patch_rope_parameters: the config-level original_max_position_embeddings copied into rope_parameters; get_rope reads it there"},
		RuleLongRoPETables:          {Choice: "long-if-extended", Follows: "vLLM rotary_embedding/phi3_long_rope_scaled_rope.py Phi3LongRoPEScaledRotaryEmbedding: use_long_rope = max_model_len > original (#27431); config/model.py _get_and_verify_max_len defaults max_model_len to the top-level original_max_position_embeddings for LongRoPE, so positions past the original are served only with --max-model-len above it, and then with the long factors"},
		RuleMiniMaxRotaryDim:        {Choice: "honoured", Follows: "vLLM models/minimax_m2.py MiniMaxM2Attention.__init__ (01d99586): rope_parameters[\"partial_rotary_factor\"] = rotary_dim / head_dim only when rope_parameters has none (a top-level partial_rotary_factor is there already: transformers' convert_rope_params_to_dict), then get_rope(head_dim, rope_parameters=rope_parameters)"},
		RulePhiMoELongFactors:       {Choice: "used", Follows: "vLLM models/phimoe.py → get_rope longrope → Phi3LongRoPEScaledRotaryEmbedding"},
		RuleMRoPEDefault:            {Choice: "none", Follows: "vLLM rotary_embedding/__init__.py get_rope: MRotaryEmbedding only when \"mrope_section\" is in rope_parameters"},
		RuleMRoPEInterleavedDefault: {Choice: "chunked", Follows: "vLLM rotary_embedding/__init__.py get_rope: mrope_interleaved=rope_parameters.get(\"mrope_interleaved\", False)"},
		RuleIndexerPairing:          {Choice: "neox", Follows: "vLLM models/deepseek_v2.py DeepseekV2MLAAttention.__init__ (28be48fa): indexer_rope_emb = get_rope(is_neox_style=not config.indexer_rope_interleave), the fix of #28968 (88f5b19f, 2025-11-19); the MLA's rotary_emb is_neox_style=False"},
		RuleRopeIndex:               {Choice: "v4.57", Follows: "vLLM models/qwen2_vl.py Qwen2VLForConditionalGeneration.get_mrope_input_positions and qwen2_5_vl.py's (28be48fa): st_idx = llm_pos_ids_list[-1].max() + 1, one past the block's largest position, per request (no padding)"},
	},
	DialectVLLM011: {
		RuleRopeParameters:          {Choice: "ignores", Follows: "vLLM v0.11 (0e93ac0b) models/llama.py LlamaDecoderLayer: getattr(config, \"rope_theta\", 10000), getattr(config, \"rope_scaling\", None); no rope_parameters anywhere"},
		RuleYaRNAttention:           {Choice: "computed", Follows: "vLLM v0.11 rotary_embedding/__init__.py get_rope: yarn kwargs extrapolation_factor, attn_factor, beta_fast, beta_slow only; yarn_scaling_rope.py mscale = yarn_get_mscale(factor) · attn_factor (deepseek_v2.py switches to deepseek_yarn)"},
		RuleYaRNTruncate:            {Choice: "ignored", Follows: "vLLM v0.11 rotary_embedding/common.py yarn_find_correction_range: always floor / ceil; models/gpt_oss.py drops truncate"},
		RuleDynamicLength:           {Choice: "static", Follows: "vLLM v0.11 rotary_embedding/dynamic_ntk_scaling_rope.py DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache: max_len = max_position · factor"},
		RuleLongRoPEAttention:       {Choice: "lengths", Follows: "vLLM v0.11 rotary_embedding/phi3_long_rope_scaled_rope.py Phi3LongRoPEScaledRotaryEmbedding.__init__: scale = max_position_embeddings / original"},
		RuleLongRoPEOriginal:        {Choice: "config-or-rope", Follows: "vLLM v0.11 models/llama.py LlamaDecoderLayer.__init__ (Phi-3's): a top-level original_max_position_embeddings copied into rope_scaling; get_rope reads rope_scaling[\"original_max_position_embeddings\"]"},
		RuleLongRoPETables:          {Choice: "long-past-original", Follows: "vLLM v0.11 rotary_embedding/phi3_long_rope_scaled_rope.py Phi3LongRoPEScaledRotaryEmbedding.forward: long cache when torch.any(positions > original)"},
		RulePhiMoELongFactors:       {Choice: "used", Follows: "vLLM v0.11 models/phimoe.py PhiMoEAttention: get_rope(rope_scaling) → Phi3LongRoPEScaledRotaryEmbedding"},
		RuleMiniMaxRotaryDim:        {Choice: "honoured", Follows: "vLLM v0.11 models/minimax_text_01.py MiniMaxText01DecoderLayer: rotary_dim = config.rotary_dim if present"},
		RuleMRoPEDefault:            {Choice: "none", Follows: "vLLM v0.11 rotary_embedding/__init__.py get_rope: MRotaryEmbedding only with mrope_section"},
		RuleMRoPEInterleavedDefault: {Choice: "chunked", Follows: "vLLM v0.11 rotary_embedding/__init__.py get_rope: mrope_interleaved=rope_scaling.get(\"mrope_interleaved\", False)"},
		RuleIndexerPairing:          {Choice: "interleaved", Follows: "vLLM v0.11 models/deepseek_v2.py Indexer.forward(..., rotary_emb) called by layers/mla.py MultiHeadLatentAttention.forward with the MLA's self.rotary_emb, get_rope(is_neox_style=False): GPT-J pairing until #28968"},
	},
	DialectSGLang: {
		RuleYaRNAttention:           {Choice: "computed", Follows: "SGLang layers/rotary_embedding/factory.py get_rope: yarn kwargs extrapolation_factor, attn_factor, beta_fast, beta_slow, truncate; yarn.py YaRNScalingRotaryEmbedding: mscale = yarn_get_mscale_simple(factor) · attn_factor (deepseek_v2.py switches to deepseek_yarn)"},
		RuleYaRNTruncate:            {Choice: "honoured", Follows: "SGLang layers/rotary_embedding/factory.py get_rope: truncate = rope_scaling.get(\"truncate\", True); yarn.py yarn_find_correction_range"},
		RuleDynamicLength:           {Choice: "static", Follows: "SGLang layers/rotary_embedding/rope_variant.py DynamicNTKScalingRotaryEmbedding._compute_cos_sin_cache: max_len = max_position · factor"},
		RuleLongRoPEAttention:       {Choice: "lengths", Follows: "SGLang layers/rotary_embedding/rope_variant.py Phi3LongRoPEScaledRotaryEmbedding.__init__: scale = max_position_embeddings / original; factory.py forwards only short_mscale / long_mscale"},
		RuleLongRoPETables:          {Choice: "long-past-original", Follows: "SGLang layers/rotary_embedding/rope_variant.py Phi3LongRoPEScaledRotaryEmbedding.forward: long cache when torch.any(positions > original)"},
		RuleMRoPEDefault:            {Choice: "none", Follows: "SGLang layers/rotary_embedding/factory.py get_rope: MRotaryEmbedding only when \"mrope_section\" is in rope_scaling"},
		RuleMRoPEInterleavedDefault: {Choice: "chunked", Follows: "SGLang layers/rotary_embedding/factory.py get_rope: mrope_interleaved=rope_scaling.get(\"mrope_interleaved\", False)"},
		RuleIndexerPairing:          {Choice: "neox", Follows: "SGLang layers/attention/nsa/nsa_indexer.py Indexer.__init__ (005e8bf8): get_rope_wrapper(is_neox_style=True) whatever the config says"},
	},
	DialectLlamaCpp: {
		RuleRopeParameters: {Choice: "first", Follows: "llama.cpp conversion/base.py TextModel.__init__ (82bb48500; convert_hf_to_gguf.py's before the split): rope_parameters, else rope_scaling, with the top-level rope_theta mirrored in"},
		RuleYaRNTruncate:   {Choice: "ignored", Follows: "llama.cpp ggml/src/ggml.c ggml_rope_yarn_corr_dims (82bb48500): floorf / ceilf always"},
		RuleDynamicLength:  {Choice: "ignored", Follows: "llama.cpp conversion/base.py TextModel.set_gguf_parameters (82bb48500): rope_type dynamic writes no scaling (HunYuan's alpha is its model class's); src/llama-model.cpp llama_model::load_hparams: rope.scaling.type defaults to linear and a missing rope.scaling.factor to freq_scale 1"},
	},
}

// Readings is the dialect's table: each rule verified in the dialect's source, with its choice.
// A rule missing from it is read the reference way by ParseOptions.Dialect and left out of
// comparisons between dialects.
func (d Dialect) Readings() []Reading {
	out := make([]Reading, 0, len(Rules()))
	for _, r := range Rules() {
		if rd, ok := d.reading(r); ok {
			rd.Rule = r
			out = append(out, rd)
		}
	}
	return out
}

// Reading is how d reads rule r; ok is false when that was not verified for d.
func (d Dialect) Reading(r Rule) (Reading, bool) {
	rd, ok := d.reading(r)
	rd.Rule = r
	return rd, ok
}

func (d Dialect) reading(r Rule) (Reading, bool) {
	if d == DialectReference {
		rd, ok := referenceReadings[r]
		return rd, ok
	}
	rd, ok := dialectReadings[d][r]
	return rd, ok
}

// ruleChoices are the choices each rule accepts, for checking ParseOptions.Readings.
var ruleChoices = map[Rule][]string{
	RuleRopeParameters:          {"reads", "first", "ignores"},
	RuleYaRNAttention:           {"config", "computed"},
	RuleYaRNTruncate:            {"honoured", "ignored"},
	RuleDeepSeekYaRN:            {"config", "mscale-defaults"},
	RulePartialRotary:           {"honoured", "ignored"},
	RulePartialRotarySource:     {"object-unless-scaled", "attribute", "attribute-only"},
	RuleRotaryPct:               {"gpt-neox", "aliases"},
	RuleDynamicLength:           {"static", "per-call", "max-trained", "ignored"},
	RuleLongRoPEAttention:       {"config-factor", "lengths", "lengths-if-top-level"},
	RuleLongRoPEOriginal:        {"config-or-rope", "top-level"},
	RuleLongRoPETables:          {"per-call", "long-if-extended", "long-past-original"},
	RuleMiniMaxRotaryDim:        {"honoured", "ignored", "ignored-text-01"},
	RulePhiMoELongFactors:       {"used", "never"},
	RuleMRoPEDefault:            {"family-default", "none"},
	RuleMRoPEInterleavedDefault: {"family", "chunked"},
	RuleRopeIndex:               {"v4.57", "unified"},
	RuleIndexerPairing:          {"neox", "interleaved"},
}

// choices resolves the rule table a parse uses: the options' Readings when given, else the
// dialect's, each rule the reference reading unless the table says otherwise.
func (o ParseOptions) choices() (map[Rule]string, error) {
	out := make(map[Rule]string, len(ruleChoices))
	for r, rd := range referenceReadings {
		out[r] = rd.Choice
	}
	if o.Readings != nil {
		for r, c := range o.Readings {
			valid, ok := ruleChoices[r]
			if !ok {
				return nil, configErr("ParseOptions.Readings: unknown rule %q", r)
			}
			if !slices.Contains(valid, c) {
				return nil, configErr("ParseOptions.Readings: rule %s: choice %q: want one of %s", r, c, strings.Join(valid, ", "))
			}
			out[r] = c
		}
		return out, nil
	}
	if o.Dialect == DialectReference {
		return out, nil
	}
	table, ok := dialectReadings[o.Dialect]
	if !ok {
		_, err := ParseDialect(string(o.Dialect))
		return nil, configErr("ParseOptions.Dialect: %v", err)
	}
	for r, rd := range table {
		out[r] = rd.Choice
	}
	return out, nil
}

// choice is o's choice for rule r ("" when o's Readings are invalid, which Parse refuses).
func (o ParseOptions) choice(r Rule) string {
	c, err := o.choices()
	if err != nil {
		return ""
	}
	return c[r]
}

// dialectFacts is what the rewrite saw in the raw config that the spec no longer shows.
type dialectFacts struct {
	modelType      string
	topLevelOrig   bool // original_max_position_embeddings given outside the rope object
	mropeSection   bool // some rope object gives mrope_section (or xdrope_section)
	ruleApplied    map[Rule]string
	familyDeepSeek bool
	// deepseekYaRN: vLLM runs the model type's YaRN through deepseek_yarn (deepseekYaRNTypes);
	// deepseekV4: DeepSeek-V4, whose vLLM path is its own.
	deepseekYaRN, deepseekV4 bool
	// familyInterleaved: the family's MRoPE is interleaved when the config does not say.
	familyInterleaved bool
}

// note records why rule r changed the reading, after any reason it already has.
func (f *dialectFacts) note(r Rule, why string) {
	if prev, ok := f.ruleApplied[r]; ok && prev != why {
		why = prev + "; " + why
	}
	f.ruleApplied[r] = why
}

// partialIgnoredTypes are the model types whose transformers main rotary embedding sizes
// inv_freq by head_dim alone in compute_default_rope_parameters, never reading
// partial_rotary_factor, and applies cos/sin to the whole head (models/<type>/modeling_<type>.py
// at decba1d2: dim = getattr(config, "head_dim", None) or hidden_size // num_attention_heads;
// Kolibri1RotaryEmbedding's rope_inv_freq, modeling_kolibri1.py @bdd66176, over config.head_dim),
// with the class the type's text model builds, named in the notes. MiniMax-Text-01's
// (MiniMaxRotaryEmbedding, the same code) is read under RuleMiniMaxRotaryDim; Gemma 4's layer
// rule rotates the whole head for rope type default in every reading (layerRule.defaultWholeHead),
// zamba2's reading always does, and the MLA families rotate qk_rope_head_dim, which no
// partial_rotary_factor changes.
var partialIgnoredTypes = map[string]string{
	"llama": "LlamaRotaryEmbedding", "mistral": "MistralRotaryEmbedding", "mistral3": "MistralRotaryEmbedding",
	"mixtral": "MixtralRotaryEmbedding", "ministral": "MinistralRotaryEmbedding", "ministral3": "Ministral3RotaryEmbedding",
	"qwen2": "Qwen2RotaryEmbedding", "qwen2_moe": "Qwen2MoeRotaryEmbedding", "qwen3": "Qwen3RotaryEmbedding",
	"qwen3_moe": "Qwen3MoeRotaryEmbedding", "qwen2_vl": "Qwen2VLRotaryEmbedding", "qwen2_vl_text": "Qwen2VLRotaryEmbedding",
	"qwen2_5_vl": "Qwen2_5_VLRotaryEmbedding", "qwen2_5_vl_text": "Qwen2_5_VLRotaryEmbedding",
	"qwen3_vl": "Qwen3VLTextRotaryEmbedding", "qwen3_vl_text": "Qwen3VLTextRotaryEmbedding",
	"qwen3_vl_moe": "Qwen3VLMoeTextRotaryEmbedding", "qwen3_vl_moe_text": "Qwen3VLMoeTextRotaryEmbedding",
	"qwen2_5_omni": "Qwen2_5OmniRotaryEmbedding", "qwen2_5_omni_thinker": "Qwen2_5OmniRotaryEmbedding",
	"qwen2_5_omni_text": "Qwen2_5OmniRotaryEmbedding", "qwen2_5_omni_talker": "Qwen2_5OmniRotaryEmbedding",
	"qwen3_omni_moe": "Qwen3OmniMoeThinkerTextRotaryEmbedding", "qwen3_omni_moe_thinker": "Qwen3OmniMoeThinkerTextRotaryEmbedding",
	"qwen3_omni_moe_text": "Qwen3OmniMoeThinkerTextRotaryEmbedding", "qwen3_omni_moe_talker": "Qwen3OmniMoeTalkerRotaryEmbedding",
	"qwen3_omni_moe_talker_text": "Qwen3OmniMoeTalkerRotaryEmbedding",
	"gemma":                      "GemmaRotaryEmbedding", "gemma2": "Gemma2RotaryEmbedding", "gemma3": "Gemma3RotaryEmbedding",
	"gemma3_text": "Gemma3RotaryEmbedding", "gemma3n": "Gemma3nRotaryEmbedding", "gemma3n_text": "Gemma3nRotaryEmbedding",
	"gpt_oss": "GptOssRotaryEmbedding", "olmo": "OlmoRotaryEmbedding", "olmo2": "Olmo2RotaryEmbedding",
	"olmo3": "Olmo3RotaryEmbedding", "starcoder2": "Starcoder2RotaryEmbedding", "falcon": "FalconRotaryEmbedding",
	"granite": "GraniteRotaryEmbedding", "granitemoe": "GraniteMoeRotaryEmbedding",
	"granitemoeshared": "GraniteMoeSharedRotaryEmbedding", "granitemoehybrid": "GraniteMoeHybridRotaryEmbedding",
	"phimoe": "PhimoeRotaryEmbedding", "hunyuan_v1_dense": "HunYuanDenseV1RotaryEmbedding",
	"hunyuan_v1_moe": "HunYuanMoEV1RotaryEmbedding", "hunyuan_vl": "HunYuanVLRotaryEmbedding",
	"hunyuan_vl_text": "HunYuanVLRotaryEmbedding", "seed_oss": "SeedOssRotaryEmbedding", "apertus": "ApertusRotaryEmbedding",
	"cohere": "CohereRotaryEmbedding", "cohere2": "Cohere2RotaryEmbedding", "ernie4_5": "Ernie4_5RotaryEmbedding",
	"ernie4_5_moe": "Ernie4_5_MoeRotaryEmbedding", "ernie4_5_vl_moe": "Ernie4_5_VLMoeTextRotaryEmbedding",
	"ernie4_5_vl_moe_text": "Ernie4_5_VLMoeTextRotaryEmbedding", "exaone4": "Exaone4RotaryEmbedding",
	"smollm3": "SmolLM3RotaryEmbedding", "llama4": "Llama4TextRotaryEmbedding", "llama4_text": "Llama4TextRotaryEmbedding",
	"helium": "HeliumRotaryEmbedding", "jetmoe": "JetMoeRotaryEmbedding", "dbrx": "DbrxRotaryEmbedding",
	"kolibri1": "Kolibri1RotaryEmbedding",
}

// deepseekYaRNTypes are the model types vLLM builds with models/deepseek_v2.py, whose
// DeepseekV2MLAAttention.__init__ (and DeepseekV2Attention's) turns every rope_type but default
// into deepseek_yarn: DeepseekV2ForCausalLM, DeepseekV3ForCausalLM (Kimi-K2 ships that
// architecture under model_type kimi_k2), DeepseekV32ForCausalLM (registry.py) and
// GlmMoeDsaForCausalLM(DeepseekV2ForCausalLM).
var deepseekYaRNTypes = map[string]bool{
	"deepseek_v2": true, "deepseek_v3": true, "deepseek_v32": true, "kimi_k2": true, "glm_moe_dsa": true,
}

// rewriteConfig removes what the chosen readings never read from the decoded config, in place:
// the rules that are about keys act here, before the config is parsed the reference way.
func rewriteConfig(top object, choice map[Rule]string) dialectFacts {
	f := dialectFacts{ruleApplied: map[Rule]string{}}
	wrapper, tn, nested, err := textConfig(top)
	if err != nil {
		return f // the parse refuses the config with this error
	}
	text := tn.m
	f.modelType, _ = text["model_type"].(string)
	if f.modelType == "" {
		f.modelType, _ = wrapper.m["model_type"].(string)
	}
	fam, known := families[f.modelType]
	if !known {
		if t, _ := wrapper.m["model_type"].(string); t != "" {
			fam = families[t]
		}
	}
	f.familyDeepSeek = fam.kind == kindDeepSeek
	f.deepseekYaRN = deepseekYaRNTypes[f.modelType]
	f.deepseekV4 = fam.kind == kindDeepSeekV4
	f.familyInterleaved = fam.interleavedMRoPE
	levels := []object{text}
	if nested {
		levels = append(levels, wrapper.m)
	}
	// A config class that defaults the key (Phi3Config: 4096) has it at the top level too.
	_, f.topLevelOrig = fam.defaults["original_max_position_embeddings"]
	for _, lv := range levels {
		if lv["original_max_position_embeddings"] != nil {
			f.topLevelOrig = true
		}
	}

	if choice[RuleRopeParameters] == "first" {
		for _, lv := range levels {
			if lv["rope_parameters"] != nil && lv["rope_scaling"] != nil {
				f.ruleApplied[RuleRopeParameters] = "rope_parameters read, rope_scaling beside it not"
				delete(lv, "rope_scaling")
			}
		}
	}
	if choice[RuleRopeParameters] == "ignores" {
		for _, lv := range levels {
			if lv["rope_parameters"] != nil {
				f.ruleApplied[RuleRopeParameters] = "rope_parameters not read: rope_theta, rope_scaling and the config class's defaults only"
			}
			delete(lv, "rope_parameters")
		}
	}
	ignoreRotaryDim := choice[RuleMiniMaxRotaryDim] == "ignored" ||
		choice[RuleMiniMaxRotaryDim] == "ignored-text-01" && (f.modelType == "minimax" || f.modelType == "minimax_text_01")
	if ignoreRotaryDim && fam.kind == kindMiniMax {
		for _, lv := range levels {
			if lv["rotary_dim"] != nil {
				f.ruleApplied[RuleMiniMaxRotaryDim] = "rotary_dim not read: the whole head rotated"
			}
			delete(lv, "rotary_dim")
		}
		// HF main's MiniMaxConfig has no partial_rotary_factor either, and MiniMaxRotaryEmbedding
		// is Llama's (models/minimax/modeling_minimax.py, decba1d2); MiniMax-M2's reads it from
		// rope_parameters and slices the rotated part (modeling_minimax_m2.py).
		if choice[RuleMiniMaxRotaryDim] == "ignored" && (f.modelType == "minimax" || f.modelType == "minimax_text_01") {
			f.ignorePartial(levels, RuleMiniMaxRotaryDim, "MiniMaxRotaryEmbedding", fam.mergesRopeScaling)
		}
	}
	if class, ok := partialIgnoredTypes[f.modelType]; ok && choice[RulePartialRotary] == "ignored" {
		f.ignorePartial(levels, RulePartialRotary, class, fam.mergesRopeScaling)
	}
	for _, lv := range levels {
		for _, key := range []string{"rope_parameters", "rope_scaling"} {
			ro, ok := lv[key].(object)
			if !ok {
				continue
			}
			f.rewriteRopeObject(ro, choice)
			for _, sub := range ro {
				if so, ok := sub.(object); ok {
					f.rewriteRopeObject(so, choice) // per-layer-type entries
				}
			}
		}
	}
	return f
}

// rewriteRopeObject applies the key rules to one rope object (or one layer type's entry).
func (f *dialectFacts) rewriteRopeObject(ro object, choice map[Rule]string) {
	t, _ := ro["rope_type"].(string)
	if t == "" {
		t, _ = ro["type"].(string)
	}
	// HunYuan-VL names its sections xdrope_section, which vLLM's get_rope reads for rope_type
	// xdrope (rotary_embedding/__init__.py: XDRotaryEmbedding, sections chunked) as Parse does.
	if ro["mrope_section"] != nil || ro["xdrope_section"] != nil {
		f.mropeSection = true
		if ro["mrope_interleaved"] == nil && choice[RuleMRoPEInterleavedDefault] == "chunked" && f.familyInterleaved {
			ro["mrope_interleaved"] = false
			f.ruleApplied[RuleMRoPEInterleavedDefault] = "no mrope_interleaved: chunked sections (the key's default false), not the family's interleaved ones"
		}
	}
	drop := func(r Rule, why string, keys ...string) {
		for _, k := range keys {
			if ro[k] != nil {
				f.ruleApplied[r] = why
			}
			delete(ro, k)
		}
	}
	switch t {
	case "yarn", "deepseek_yarn":
		if choice[RuleYaRNAttention] == "computed" {
			if f.familyDeepSeek || t == "deepseek_yarn" {
				drop(RuleYaRNAttention, "attention_factor not read (deepseek_yarn reads mscale / mscale_all_dim only)", "attention_factor")
			} else {
				drop(RuleYaRNAttention, "attention_factor, mscale and mscale_all_dim not read: attention factor 0.1·ln(factor) + 1", "attention_factor", "mscale", "mscale_all_dim")
			}
		}
		if choice[RuleYaRNTruncate] == "ignored" {
			drop(RuleYaRNTruncate, "truncate not read: the correction range is floored and ceiled", "truncate")
		}
		// After RuleYaRNAttention's drop, which a reading may combine with this one.
		if choice[RuleDeepSeekYaRN] == "mscale-defaults" && !f.deepseekV4 && (f.deepseekYaRN || t == "deepseek_yarn") {
			f.deepseekMscaleDefaults(ro)
		}
	case "longrope", "su":
		if choice[RuleLongRoPEAttention] == "lengths" {
			drop(RuleLongRoPEAttention, "attention_factor not read: √(1 + ln(max/original) / ln original) unless short_mscale / long_mscale", "attention_factor")
		}
		if choice[RuleLongRoPEOriginal] == "top-level" && !f.topLevelOrig {
			drop(RuleLongRoPEOriginal, "the rope object's original_max_position_embeddings not read: original = max_position_embeddings", "original_max_position_embeddings")
		}
	}
}

// ignorePartial reads the rotary fraction as a transformers main class that has none
// (partialIgnoredTypes). rotary_pct is no key of it whatever the rope type. partial_rotary_factor
// reaches rope_parameters (configuration_utils.py PreTrainedConfig.__post_init__ →
// modeling_rope_utils.py convert_rope_params_to_dict: setdefault from the config's kwargs), but
// the class's compute_default_rope_parameters, which rope_type default runs, sizes inv_freq by
// head_dim alone: the whole head rotates. A scaled type's ROPE_INIT_FUNCTIONS entry does read
// it and sizes cos/sin by int(head_dim · factor), which apply_rotary_pos_emb multiplies into
// the whole head and cannot broadcast: HF main fails on such a config, which no spec
// describes, so the factor is kept (the parse reports the failure: wholeHeadScaled).
func (f *dialectFacts) ignorePartial(levels []object, r Rule, class string, merges bool) {
	// The rope objects, per-layer-type entries each on their own, with the rope type each
	// is built with: a class that merges a legacy rope_scaling into rope_parameters'
	// full_attention entry (rope_both.go) builds that entry with rope_scaling's type.
	var objects []object
	var types []string
	for _, lv := range levels {
		legacy, _ := lv["rope_scaling"].(object)
		for _, key := range []string{"rope_parameters", "rope_scaling"} {
			ro, ok := lv[key].(object)
			if !ok {
				continue
			}
			objects, types = append(objects, ro), append(types, ropeTypeOf(ro))
			for name, sub := range ro {
				so, ok := sub.(object)
				if !ok {
					continue
				}
				t := ropeTypeOf(so)
				if merges && key == "rope_parameters" && name == rope.FullAttention && ropeTypeOf(legacy) != "" {
					t = ropeTypeOf(legacy)
				}
				objects, types = append(objects, so), append(types, t)
			}
		}
	}
	scaled := ""
	for _, t := range types {
		if t != "" && t != "default" {
			scaled = t
		}
	}
	fraction := func(v any) bool { x, ok := numberOf(v); return v != nil && !(ok && x == 1) }
	dropped := false
	drop := func(o object) {
		dropped = dropped || fraction(o["partial_rotary_factor"])
		delete(o, "partial_rotary_factor")
	}
	for _, lv := range levels {
		dropped = dropped || fraction(lv["rotary_pct"])
		delete(lv, "rotary_pct")
		// The config's own key reaches every entry; a scaled one sizes its tables by it.
		if scaled == "" {
			drop(lv)
		}
	}
	for i, ro := range objects {
		if t := types[i]; t == "" || t == "default" {
			drop(ro)
		}
	}
	if dropped {
		f.note(r, "partial_rotary_factor not read: the whole head rotated ("+class+".compute_default_rope_parameters sizes inv_freq by head_dim alone)")
	}
}

func ropeTypeOf(ro object) string {
	t, _ := ro["rope_type"].(string)
	if t == "" {
		t, _ = ro["type"].(string)
	}
	return t
}

// numberOf reads a decoded JSON number.
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	}
	return 0, false
}

// yarnGetMscale is YaRN's 0.1·m·ln(s) + 1 (1 for s ≤ 1), written as HF's get_mscale and vLLM's
// yarn_get_mscale are.
func yarnGetMscale(s, m float64) float64 {
	if s <= 1 {
		return 1
	}
	return 0.1*m*math.Log(s) + 1
}

// deepseekMscaleDefaults reads a YaRN object as vLLM's deepseek_yarn does
// (rotary_embedding/deepseek_scaling_rope.py DeepseekScalingRotaryEmbedding.__init__:
// mscale = yarn_get_mscale(factor, mscale) / yarn_get_mscale(factor, mscale_all_dim) ·
// attn_factor, keyword defaults mscale 1, mscale_all_dim 0, attn_factor 1; get_rope forwards
// no attention_factor). When that differs from the reference's factor, the object is given it as
// attention_factor; a key vLLM could not read (a null factor or mscale) leaves the object alone.
func (f *dialectFacts) deepseekMscaleDefaults(ro object) {
	factor, ok := numberOf(ro["factor"])
	if !ok {
		return
	}
	keys := []string{"mscale", "mscale_all_dim", "attn_factor"}
	vals := []float64{1, 0, 1}
	given := []bool{false, false, false}
	for i, k := range keys {
		if v, present := ro[k]; present {
			if vals[i], ok = numberOf(v); !ok {
				return
			}
			given[i] = true
		}
	}
	got := yarnGetMscale(factor, vals[0]) / yarnGetMscale(factor, vals[1]) * vals[2]
	// The reference (HF's _compute_yarn_parameters): attention_factor, else the ratio when both
	// mscale and mscale_all_dim are given and nonzero, else 0.1·ln(factor) + 1.
	ref, ok := numberOf(ro["attention_factor"])
	if !ok || ref == 0 {
		ref = yarnGetMscale(factor, 1)
		if given[0] && given[1] && vals[0] != 0 && vals[1] != 0 {
			ref = yarnGetMscale(factor, vals[0]) / yarnGetMscale(factor, vals[1])
		}
	}
	if got == ref || !(got > 0) || math.IsInf(got, 0) {
		return
	}
	ro["attention_factor"] = json.Number(strconv.FormatFloat(got, 'g', -1, 64))
	delete(ro, "mscale")
	delete(ro, "mscale_all_dim")
	f.note(RuleDeepSeekYaRN, fmt.Sprintf("attention factor %v, not %v: mscale(factor, %v) / mscale(factor, %v) · attn_factor %v "+
		"(deepseek_yarn's defaults: mscale 1, mscale_all_dim 0, attn_factor 1; attention_factor not read)", got, ref, vals[0], vals[1], vals[2]))
}

// adjustModel applies the rules that act on the derived spec rather than on keys.
func adjustModel(m *Model, choice map[Rule]string, f dialectFacts, label string) {
	specs := []*rope.Spec{&m.Spec}
	if m.Indexer != nil {
		specs = append(specs, m.Indexer)
	}
	for _, s := range specs {
		adjustScaling(&s.Scaling, choice, f, s.MaxPositions)
		if l := s.Local; l != nil {
			for name, lt := range l.Types {
				adjustScaling(&lt.Scaling, choice, f, s.MaxPositions)
				l.Types[name] = lt
			}
		}
	}
	for _, s := range specs {
		pastOriginal(s, choice, f)
	}
	if choice[RuleIndexerPairing] == "interleaved" && m.Indexer != nil && m.Indexer.Style != m.Spec.Style {
		m.Indexer.Style = m.Spec.Style
		f.ruleApplied[RuleIndexerPairing] = "the indexer's rope dims paired as the MLA's (" + m.Spec.Style.String() + "), not NeoX"
	}
	if choice[RuleRopeIndex] == "unified" && m.Spec.MRoPE != nil && qwenVLType(f.modelType) {
		f.ruleApplied[RuleRopeIndex] = "transformers main's get_rope_index (videos overlap the text after them, padding 0, rope_delta over the unpadded length): the spec is the same, the positions are not (rotary positions --as hf)"
	}
	if choice[RuleMRoPEDefault] == "none" && m.Spec.MRoPE != nil && !f.mropeSection {
		m.Spec.MRoPE = nil
		f.ruleApplied[RuleMRoPEDefault] = "no mrope_section: plain RoPE, no multimodal sections"
	}
	if choice[RulePhiMoELongFactors] == "never" && m.ModelType == "phimoe" && m.Spec.Scaling.Type == rope.ScalingLongRoPE {
		m.Spec.Scaling.LongFactor = slices.Clone(m.Spec.Scaling.ShortFactor)
		f.ruleApplied[RulePhiMoELongFactors] = "short factors at every length"
	}
	for _, r := range Rules() {
		if why, ok := f.ruleApplied[r]; ok {
			m.Notes = append(m.Notes, fmt.Sprintf("as %s, %s: %s", label, r, why))
		}
	}
}

// qwenVLType: the model types (text configs included) whose get_rope_index transformers main
// rewrote (models/qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_5).
func qwenVLType(t string) bool {
	for _, p := range []string{"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_5"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// pastOriginal is vLLM v0.11's and SGLang's LongRoPE switch, long factors only for a call with a
// position past the original length (torch.any(positions > original)), where HF switches at a
// position equal to it. The spec switches at its original length, so it is moved one position on,
// with the attention factor, which is computed from the original length, pinned first.
func pastOriginal(s *rope.Spec, choice map[Rule]string, f dialectFacts) {
	if choice[RuleLongRoPETables] != "long-past-original" || s.Scaling.Type != rope.ScalingLongRoPE {
		return
	}
	orig := s.OriginalMax()
	if orig <= 0 || orig == math.MaxInt {
		return // refused by Validate, or no position reaches it
	}
	_, att := s.Frequencies(-1)
	s.Scaling.AttentionFactor = att
	s.Scaling.OriginalMaxPositions = orig + 1
	f.ruleApplied[RuleLongRoPETables] = fmt.Sprintf("long factors for a call with a position past %d, not at it: the spec's original length is %d, its attention factor %v that of %d", orig, orig+1, att, orig)
}

func adjustScaling(sc *rope.Scaling, choice map[Rule]string, f dialectFacts, maxPositions int) {
	switch sc.Type {
	case rope.ScalingDynamic:
		if choice[RuleDynamicLength] == "ignored" {
			*sc = rope.Scaling{Type: rope.ScalingDefault}
			f.ruleApplied[RuleDynamicLength] = "dynamic NTK not applied: plain RoPE"
			return
		}
		switch choice[RuleDynamicLength] {
		case "per-call":
			sc.Dynamic = rope.DynamicPerCall
		case "max-trained":
			sc.Dynamic = rope.DynamicMaxTrained
		default:
			sc.Dynamic = rope.DynamicStatic
		}
		if sc.Dynamic != rope.DynamicStatic {
			f.ruleApplied[RuleDynamicLength] = "dynamic NTK length " + sc.Dynamic.Describe()
		}
	case rope.ScalingLongRoPE:
		switch choice[RuleLongRoPEAttention] {
		case "lengths":
			sc.LongRoPEFactorFromLengths = true
		case "lengths-if-top-level":
			sc.LongRoPEFactorFromLengths = f.topLevelOrig
		}
		if sc.LongRoPEFactorFromLengths {
			f.ruleApplied[RuleLongRoPEAttention] = "attention factor from max_position_embeddings / original"
		}
		orig := sc.OriginalMaxPositions
		if orig <= 0 {
			orig = maxPositions
		}
		if choice[RuleLongRoPETables] == "long-if-extended" && maxPositions > orig {
			sc.ShortFactor = slices.Clone(sc.LongFactor)
			f.ruleApplied[RuleLongRoPETables] = "long factors at every position, as when served with --max-model-len past the original (vLLM's default max_model_len is the original length, short factors only, no position past it)"
		}
	}
}
