package hf

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// ropeInfo is the config's rope object: rope_parameters (transformers v5) or rope_scaling.
// In the per-layer-type form ({"full_attention": {...}, "sliding_attention": {...}}, keyed by
// layer_types values) main is the full-attention entry and types holds the others.
type ropeInfo struct {
	main  *node
	types map[string]node
	// perType is the rope object's path when it is keyed by layer type, "" otherwise.
	perType string
	// parameters: the object is transformers v5's rope_parameters (given or the family's
	// default); scaling: it is the config's legacy rope_scaling. Either's rope_theta wins over
	// the config's, rope_scaling's only where rope_parameters is read (base).
	parameters, scaling bool
}

func (p *parser) ropeObject() (ropeInfo, error) {
	if p.fam.kind == kindDeepSeekV4 {
		return p.deepseekV4Rope()
	}
	path, v, ok, err := p.ropeKey()
	if err != nil || !ok {
		return ropeInfo{}, err
	}
	obj, err := asObject(path, v)
	if err != nil {
		return ropeInfo{}, fmt.Errorf("%w (or null)", err)
	}
	if p.fam.typeNames != nil {
		obj = p.renameTypes(path, obj)
	}
	n := node{path: path, m: obj, read: map[string]bool{}}
	parameters := path == "rope_parameters" || strings.HasSuffix(path, ".rope_parameters")
	scaling := path == "rope_scaling" || strings.HasSuffix(path, ".rope_scaling")
	perType, err := p.perLayerType(n)
	if err != nil || !perType {
		return ropeInfo{main: &n, parameters: parameters, scaling: scaling}, err
	}
	info := ropeInfo{types: map[string]node{}, perType: path, parameters: parameters, scaling: scaling}
	for _, lt := range slices.Sorted(maps.Keys(obj)) {
		sub, v, ok := n.get(lt)
		if !ok {
			continue // HF's standardize_rope_params skips an entry saved as None
		}
		m, err := asObject(sub, v)
		if err != nil {
			return ropeInfo{}, err
		}
		if lt == rope.FullAttention {
			info.main = &node{path: sub, m: m, read: map[string]bool{}}
		} else {
			info.types[lt] = node{path: sub, m: m, read: map[string]bool{}}
		}
	}
	if info.main == nil {
		return ropeInfo{}, configErr("%s: the per-layer-type form needs a full_attention entry", path)
	}
	return info, nil
}

// renameTypes is rope object obj with the family's layer type names (family.typeNames) as the
// per-layer rules know them; when it is keyed by layer type, a rope_type or type beside the
// entries is dropped, as the family's config class does.
func (p *parser) renameTypes(path string, obj object) object {
	out := make(object, len(obj))
	keyed := false
	for k, v := range obj {
		if to, ok := p.fam.typeNames[k]; ok {
			p.note("%s.%s read as %s's entry", path, k, to)
			k, keyed = to, true
		}
		out[k] = v
	}
	if keyed {
		for _, k := range []string{"rope_type", "type"} {
			if _, ok := out[k]; ok {
				p.note("%s.%s beside the layer-type entries dropped, as %s does", path, k, p.fam.class)
				delete(out, k)
			}
		}
	}
	return out
}

// perLayerType reports whether rope object n is keyed by layer type: it has no rope_type (or
// type) and its keys are full_attention / sliding_attention or, as standardize_rope_params
// (modeling_rope_utils.py) decides, all values of layer_types.
func (p *parser) perLayerType(n node) (bool, error) {
	_, _, hasType := n.get("rope_type")
	_, _, hasOld := n.get("type")
	if hasType || hasOld || len(n.m) == 0 {
		return false, nil
	}
	_, hasFull := n.m[rope.FullAttention]
	_, hasSliding := n.m[rope.SlidingAttention]
	if hasFull || hasSliding {
		return true, nil
	}
	types, err := p.layerTypes()
	if err != nil || types == nil {
		return false, err
	}
	for k := range n.m {
		if !slices.Contains(types, k) {
			return false, nil
		}
	}
	return true, nil
}

// ropeType is rope_type, else the legacy type; "" when neither is given. Both keys count as
// read: configs that carry both (Qwen2-VL's "type": "mrope" beside "rope_type": "default")
// name one variant.
func ropeType(n node) (string, error) {
	n.touch("type")
	for _, k := range []string{"rope_type", "type"} {
		if path, v, ok := n.get(k); ok {
			return asString(path, v)
		}
	}
	return "", nil
}

// scaling reads the scaling variant and its parameters from rope object n.
func (p *parser) scaling(n node) (rope.Scaling, error) {
	t, err := ropeType(n)
	if err != nil {
		return rope.Scaling{}, err
	}
	if to, ok := p.fam.ropeTypes[t]; ok {
		p.note("%s: rope type %s read as %s, as %s rewrites it", n.path, t, to, p.fam.class)
		t = to
	}
	var sc rope.Scaling
	switch t {
	case "", "default", "mrope":
		if t == "" {
			if _, _, ok := n.get("factor"); ok {
				return sc, configErr("%s: has factor but no rope_type (or type)", n.path)
			}
		}
		sc.Type = rope.ScalingDefault
		return sc, nil
	case "linear":
		sc.Type = rope.ScalingLinear
		sc.Factor, err = n.need(t, "factor")
		return sc, err
	case "dynamic", "xdrope":
		// HunYuanVLTextConfig.convert_rope_params_to_dict (configuration_hunyuan_vl.py) reads
		// HunYuan-VL's rope_type "xdrope" as dynamic: NTK-alpha with its alpha.
		return p.dynamicScaling(n, t)
	case "yarn", "deepseek_yarn":
		return p.yarnScaling(n, t)
	case "llama3":
		return p.llama3Scaling(n, t)
	case "ntk":
		return ntkScaling(n, t)
	case "longrope", "su":
		return p.longRoPEScaling(n, t)
	case "proportional":
		return proportionalScaling(n)
	}
	return sc, ropeTypeError(n, t)
}

// need reads number key, which rope type t requires.
func (n node) need(t, key string) (float64, error) {
	f, ok, err := n.number(key)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, configErr("%s: %s requires %s", n.path, t, key)
	}
	return f, nil
}

// ntkScaling reads vLLM's rope_type "ntk" as get_rope does (rotary_embedding/__init__.py):
// factor required, mixed_b optional, its absence (or null) meaning the fixed form.
func ntkScaling(n node, t string) (rope.Scaling, error) {
	sc := rope.Scaling{Type: rope.ScalingNTK}
	var err error
	if sc.Factor, err = n.need(t, "factor"); err != nil {
		return sc, err
	}
	sc.MixedB, sc.NTKMixed, err = n.number("mixed_b")
	return sc, err
}

// dynamicScaling reads type dynamic: dynamic NTK, or Hunyuan's NTK-alpha when alpha is given.
func (p *parser) dynamicScaling(n node, t string) (rope.Scaling, error) {
	var sc rope.Scaling
	if alpha, ok, err := n.number("alpha"); err != nil {
		return sc, err
	} else if ok {
		// Hunyuan's NTK-alpha: rope_scaling {"type": "dynamic", "alpha": ...}. Its published
		// configs also carry "factor": 1.0, which NTK-alpha does not read: only another value
		// is worth a warning.
		sc.Type, sc.Alpha = rope.ScalingNTKAlpha, alpha
		if f, ok, _ := n.number("factor"); ok && f != 1 {
			delete(n.read, "factor")
		}
		return sc, nil
	}
	sc.Type = rope.ScalingDynamic
	var err error
	if sc.Factor, err = n.need(t, "factor"); err != nil {
		return sc, err
	}
	// vLLM's max_trained_positions (get_rope reads it from the rope parameters; Nomic BERT's
	// config carries it at the top level).
	if sc.MaxTrainedPositions, _, err = n.integer("max_trained_positions"); err != nil {
		return sc, err
	}
	if sc.MaxTrainedPositions == 0 {
		if sc.MaxTrainedPositions, _, _, err = p.src.positive("max_trained_positions"); err != nil {
			return sc, err
		}
	}
	sc.OriginalMaxPositions, err = p.originalMax(n)
	return sc, err
}

func (p *parser) yarnScaling(n node, t string) (rope.Scaling, error) {
	sc := rope.Scaling{Type: rope.ScalingYaRN}
	var err error
	n.touch("factor")
	if v, present := n.m["factor"]; present && v == nil {
		// HF main's _compute_yarn_parameters: a null factor is max_position_embeddings /
		// original_max_position_embeddings.
		if sc.OriginalMaxPositions, err = p.originalMax(n); err != nil {
			return sc, err
		}
		if sc.OriginalMaxPositions <= 0 || p.m.Spec.MaxPositions <= 0 {
			return sc, configErr("%s: factor null needs max_position_embeddings and original_max_position_embeddings to derive it", n.key("factor"))
		}
		sc.Factor = float64(p.m.Spec.MaxPositions) / float64(sc.OriginalMaxPositions)
		p.note("%s: null, so max_position_embeddings / original = %v (HF's rule)", n.key("factor"), sc.Factor)
	} else if sc.Factor, err = n.need(t, "factor"); err != nil {
		return sc, err
	}
	for _, f := range []struct {
		key string
		dst *float64
	}{
		{"beta_fast", &sc.BetaFast},
		{"beta_slow", &sc.BetaSlow},
		{"attention_factor", &sc.AttentionFactor},
		{"mscale", &sc.Mscale},
		{"mscale_all_dim", &sc.MscaleAllDim},
	} {
		if *f.dst, _, err = n.number(f.key); err != nil {
			return sc, err
		}
	}
	truncate, ok, err := n.boolean("truncate")
	if err != nil {
		return sc, err
	}
	sc.NoTruncate = ok && !truncate
	sc.OriginalMaxPositions, err = p.originalMax(n)
	return sc, err
}

func (p *parser) llama3Scaling(n node, t string) (rope.Scaling, error) {
	sc := rope.Scaling{Type: rope.ScalingLlama3}
	var err error
	if sc.Factor, err = n.need(t, "factor"); err != nil {
		return sc, err
	}
	if sc.LowFreqFactor, err = n.need(t, "low_freq_factor"); err != nil {
		return sc, err
	}
	if sc.HighFreqFactor, err = n.need(t, "high_freq_factor"); err != nil {
		return sc, err
	}
	sc.OriginalMaxPositions, err = p.originalMax(n)
	if err == nil && sc.OriginalMaxPositions == 0 {
		err = configErr("%s: %s requires original_max_position_embeddings", n.path, t)
	}
	return sc, err
}

func (p *parser) longRoPEScaling(n node, t string) (rope.Scaling, error) {
	sc := rope.Scaling{Type: rope.ScalingLongRoPE}
	var err error
	for _, f := range []struct {
		key string
		dst *[]float64
	}{{"short_factor", &sc.ShortFactor}, {"long_factor", &sc.LongFactor}} {
		path, v, ok := n.get(f.key)
		if !ok {
			return sc, configErr("%s: %s requires %s", n.path, t, f.key)
		}
		if *f.dst, err = asFloats(path, v); err != nil {
			return sc, err
		}
	}
	if sc.AttentionFactor, _, err = n.number("attention_factor"); err != nil {
		return sc, err
	}
	if err := longRoPEMscale(n, &sc); err != nil {
		return sc, err
	}
	// The factor as given, else max / original.
	if sc.Factor, _, err = n.number("factor"); err != nil {
		return sc, err
	}
	if sc.OriginalMaxPositions, err = p.originalMax(n); err != nil {
		return sc, err
	}
	if orig := sc.OriginalMaxPositions; orig > 0 && p.m.Spec.MaxPositions > 0 {
		byLengths := float64(p.m.Spec.MaxPositions) / float64(orig)
		if sc.Factor == 0 {
			sc.Factor = byLengths // HF main: factor = max / original when the config has none
		} else if byLengths != sc.Factor {
			p.note("%s: factor %v differs from max_position_embeddings / original = %v: HF main takes the factor; HF v4.57, vLLM and Microsoft's code take the lengths' ratio (Scaling.LongRoPEFactorFromLengths)", n.path, sc.Factor, byLengths)
		}
	}
	return sc, nil
}

// longRoPEMscale reads Phi-3.5-MoE's short_mscale and long_mscale: HF's PhimoeRotaryEmbedding
// and vLLM's Phi3LongRoPEScaledRotaryEmbedding multiply cos and sin by them in place of the
// computed attention factor. The spec has one factor for both tables, so they must agree.
func longRoPEMscale(n node, sc *rope.Scaling) error {
	short, sok, err := n.number("short_mscale")
	if err != nil {
		return err
	}
	long, lok, err := n.number("long_mscale")
	if err != nil {
		return err
	}
	if !sok && !lok {
		return nil
	}
	if !sok || !lok || short != long {
		return configErr("%s: short_mscale %v, long_mscale %v: want both, equal (the spec has one attention factor for the short and the long table)", n.path, short, long)
	}
	sc.AttentionFactor = short
	return nil
}

// originalMax reads original_max_position_embeddings: the config's own key, else the rope
// object's (HF main's standardize_rope_params lets the config-level value win); 0 when neither
// is given (the spec then uses max positions).
func (p *parser) originalMax(n node) (int, error) {
	if v, _, ok, err := p.src.positive("original_max_position_embeddings"); err != nil || ok {
		return v, err
	}
	v, ok, err := n.integer("original_max_position_embeddings")
	if err != nil || !ok {
		return 0, err
	}
	if v <= 0 {
		return 0, configErr("%s: %d: want a positive integer", n.key("original_max_position_embeddings"), v)
	}
	return v, nil
}

// mrope reads mrope_section / mrope_interleaved from the rope object, or takes the family's
// default sections.
func (p *parser) mrope(n *node) error {
	var path string
	var v any
	ok := false
	if n != nil {
		path, v, ok = n.get("mrope_section")
		// HunYuan-VL's xdrope_section is mrope_section under its legacy name
		// (HunYuanVLTextConfig._normalize_mrope_section_alias, which refuses the two differing).
		if xpath, xv, xok := n.get("xdrope_section"); xok {
			if ok && fmt.Sprint(v) != fmt.Sprint(xv) {
				return configErr("%s and %s differ: want one, or both equal", path, xpath)
			}
			path, v, ok = xpath, xv, true
		}
	}
	if !ok {
		if p.fam.mropeSection != nil {
			p.m.Spec.MRoPE = &rope.MRoPE{Sections: slices.Clone(p.fam.mropeSection), Interleaved: p.fam.interleavedMRoPE, AlternateHW: p.fam.alternateHW}
			p.note("no mrope_section: the model's default %v (HF's %s)", p.fam.mropeSection, p.fam.mropeFrom)
		}
		return nil
	}
	sections, err := asInts(path, v)
	if err != nil {
		return err
	}
	inter, given, err := n.boolean("mrope_interleaved")
	if err != nil {
		return err
	}
	// Qwen3-Omni's configs repeat mrope_interleaved as interleaved, which no reader takes; the
	// copy counts as read only when it agrees.
	if alias, ok := n.m["interleaved"].(bool); ok && given && alias == inter {
		n.touch("interleaved")
	}
	if !given {
		inter = p.fam.interleavedMRoPE
	}
	p.m.Spec.MRoPE = &rope.MRoPE{Sections: sections, Interleaved: inter, AlternateHW: p.fam.alternateHW}
	if p.unknown {
		p.m.mropeWhy = assumedMRoPE(inter, sections)
	}
	return nil
}
