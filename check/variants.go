package check

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
)

// variants checks what the 2025–2026 variants need beside the spec: where frameworks read the
// same config differently, and launches that miss a part of the model's positions.
func (c *checker) variants(m *hf.Model) {
	c.staticNTK(m)
	c.proportional(m)
	c.deepseekV4SlidingYaRN(m)
	c.indexer(m)
	c.queryScale(m)
}

// staticNTK: rope_type "ntk" is vLLM's (get_rope, NTKScalingRotaryEmbedding); Hugging Face's
// ROPE_INIT_FUNCTIONS (modeling_rope_utils.py) has no such entry, so transformers cannot load
// the config and no HF reference exists to compare with.
func (c *checker) staticNTK(m *hf.Model) {
	sc := m.Spec.Scaling
	if sc.Type != rope.ScalingNTK {
		return
	}
	form := "fixed (no mixed_b)"
	if sc.NTKMixed {
		form = fmt.Sprintf("mixed_b %v", sc.MixedB)
	}
	c.add(Warning, "ntk-vllm-only", fmt.Sprintf("rope_type ntk (factor %v, %s) is vLLM's static NTK scaling", sc.Factor, form),
		"Hugging Face transformers has no rope type ntk (its ROPE_INIT_FUNCTIONS lacks it): the config loads only in vLLM, so a comparison against transformers cannot run, and its dynamic type is a different formula",
		"compare against vLLM's NTKScalingRotaryEmbedding; for HF's NTK-aware scaling use rope_type dynamic")
}

// proportional: vLLM's Gemma4RotaryEmbedding (rotary_embedding/gemma4_rope.py) builds the
// proportional frequencies without the factor HF's _compute_proportional_rope_parameters
// divides them by.
func (c *checker) proportional(m *hf.Model) {
	for _, t := range layerTypes(m.Spec) {
		s := m.Spec
		if t != "" {
			var err error
			if s, err = layerTypeSpec(m.Spec, t); err != nil {
				continue
			}
		}
		sc := s.Scaling
		if sc.Type != rope.ScalingProportional || sc.Factor == 1 {
			continue
		}
		what := "proportional RoPE"
		if t != "" {
			what = t + " layers' proportional RoPE"
		}
		c.add(Warning, "proportional-factor", fmt.Sprintf("%s with factor %v", what, sc.Factor),
			"Hugging Face divides every proportional frequency by factor; vLLM's Gemma4RotaryEmbedding ignores factor, so the two rotate by angles that differ by that ratio",
			"serve with a stack that honours factor, or drop factor (1) if the checkpoint was trained without it")
	}
}

// deepseekV4SlidingYaRN: vLLM's DeepseekV4Attention (vllm/models/deepseek_v4/nvidia/model.py)
// builds every layer's rotary embedding from the config's rope_scaling and changes only the
// base, so its sliding-window layers (compress ratio 0) rotate with YaRN at rope_theta, where
// DeepSeek's reference model.py (YaRN disabled in pure sliding-window attention) and
// transformers' DeepseekV4RotaryEmbedding ("main": default RoPE) rotate without it. vLLM's
// DeepseekV4ScalingRotaryEmbedding has mscale 0, so its attention factor is 1.
func (c *checker) deepseekV4SlidingYaRN(m *hf.Model) {
	lr := m.Spec.Local
	if m.ModelType != "deepseek_v4" || lr == nil {
		return
	}
	var yarn *rope.Scaling
	for _, t := range slices.Sorted(maps.Keys(lr.Types)) {
		if sc := lr.Types[t].Scaling; sc.Type == rope.ScalingYaRN {
			yarn = &sc
			break
		}
	}
	var sliding []string
	for l, t := range lr.LayerTypes {
		if t == rope.SlidingAttention {
			sliding = append(sliding, strconv.Itoa(l))
		}
	}
	if yarn == nil || len(sliding) == 0 {
		return
	}
	l0, _ := strconv.Atoi(sliding[0])
	plain, err := m.Spec.ForLayer(l0)
	if err != nil || plain.NoRoPE || plain.Scaling.Type != rope.ScalingDefault {
		return
	}
	vllm := plain
	vllm.Scaling = *yarn
	vllm.Scaling.AttentionFactor = 1
	if vllm.Validate() != nil {
		return
	}
	a, _ := plain.Frequencies(-1)
	b, _ := vllm.Frequencies(-1)
	differ := 0
	for i := range a {
		if a[i] != b[i] {
			differ++
		}
	}
	if differ == 0 {
		return
	}
	c.add(Warning, "deepseek-v4-sliding-yarn", fmt.Sprintf("%s's sliding-window layers (%s) rotate with plain RoPE at rope_theta %v; vLLM gives them the compressed layers' YaRN (factor %v over %d) at that base", m.ModelType, strings.Join(sliding, ", "), plain.Base, yarn.Factor, vllm.OriginalMax()),
		fmt.Sprintf("DeepSeek's reference model.py and transformers' DeepseekV4RotaryEmbedding disable YaRN in pure sliding-window attention; vLLM's DeepseekV4Attention builds every layer's rotary embedding from rope_scaling and changes only the base: %d of %d pairs of those layers rotate by other angles, the gap growing with the position", differ, len(a)),
		"compare a vLLM deployment's sliding layers with plain RoPE at rope_theta (rotary inspect --layer "+sliding[0]+"), not with the compressed layers' YaRN")
}

// layerTypes lists the model's layer types with a RoPE of their own ("" for the spec's own).
func layerTypes(s rope.Spec) []string {
	out := []string{""}
	if s.Local != nil {
		out = append(out, slices.Sorted(maps.Keys(s.Local.Types))...)
	}
	return out
}

// layerTypeSpec is the spec of a layer of type t.
func layerTypeSpec(s rope.Spec, t string) (rope.Spec, error) {
	for l, lt := range s.Local.LayerTypes {
		if lt == t {
			return s.ForLayer(l)
		}
	}
	return rope.Spec{}, fmt.Errorf("no layer of type %s", t)
}

// indexer: DeepSeek-V3.2's lightning indexer pairs NeoX-wise (rope part first) while its MLA
// pairs interleaved (transformers DeepseekV32Indexer.forward): a launch that names one pair
// layout covers only one of the two.
func (c *checker) indexer(m *hf.Model) {
	ix := m.Indexer
	mode := c.launch.RotaryMode
	if ix == nil || (mode != "half" && mode != "interleave") {
		return
	}
	want := map[rope.Style]string{rope.NeoX: "half", rope.GPTJ: "interleave"}
	if want[ix.Style] == mode {
		// The launch names the indexer's layout; the MLA's is the other one.
		if want[m.Spec.Style] != mode {
			c.add(Warning, "indexer-rotary-mode", fmt.Sprintf("rotary_mode %s on %s fits its lightning indexer, not its MLA", mode, m.ModelType),
				fmt.Sprintf("the MLA's q_pe/k_pe pair %s, the indexer's q/k %s: one rotary_mode for both rotates one of them wrongly, without any error", m.Spec.Style, ix.Style),
				fmt.Sprintf("use rotary_mode %s for the MLA's q_pe/k_pe and %s for the indexer", want[m.Spec.Style], mode))
		}
		return
	}
	c.add(Warning, "indexer-rotary-mode", fmt.Sprintf("rotary_mode %s on %s fits its MLA, not its lightning indexer", mode, m.ModelType),
		fmt.Sprintf("the indexer rotates the first %d of its %d dims with %s pairs (rope part first) and the MLA's cos/sin; rotating them %s gives wrong top-k selection without any error", ix.RotaryDim, ix.HeadSize, ix.Style, mode),
		fmt.Sprintf("rotate the indexer's q/k with rotary_mode %s over dims 0..%d (rotary --rope indexer)", want[ix.Style], ix.RotaryDim-1))
}

// queryScale: the position-dependent query scale that ships beside RoPE is no part of a rope
// kernel, and vLLM decides Llama 4's temperature tuning from the launch, not the config.
func (c *checker) queryScale(m *hf.Model) {
	r := m.Spec.QueryScale
	switch r.Kind {
	case rope.QueryScaleLlama4:
		// vLLM llama4.py Llama4ForCausalLM: attn_temperature_tuning comes from the generation
		// config, else max_model_len > 32768, whatever config.json says.
		c.add(Warning, "llama4-temperature-tuning", fmt.Sprintf("%s tunes the queries of its layers without RoPE (attn_temperature_tuning, floor_scale %v, attn_scale %v)", m.ModelType, r.FloorScale, r.AttnScale),
			"transformers applies it as config.json says; vLLM sets attn_temperature_tuning from the generation config, else from max_model_len > 32768, so a shorter vLLM launch leaves those queries unscaled from position floor_scale − 1 on",
			`launch vLLM with --override-generation-config '{"attn_temperature_tuning": true}' to match the config (rotary apply --op query_scale computes the scale)`)
	case rope.QueryScaleBeta:
		op := c.launch.Op
		if op == "" || op == ops.QueryScale.Name() || op == ops.KVRMSNormRoPECache.Name() {
			return
		}
		c.add(Warning, "query-scale", fmt.Sprintf("op %s rotates only; %s also scales every query by 1 + %v·log(1 + ⌊p / %d⌋) after RoPE (llama_4_scaling_beta)", op, m.ModelType, r.Beta, r.OriginalMax),
			"the scale is no part of a rope kernel: without it every query past the original length attends too flatly, without any error",
			"apply the query scale after the rope op on every layer (rotary apply --op query_scale, library rotary.QueryScale)")
	}
}
