package hf

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// rotaryEmbeddings are the rotary embeddings of the families whose config class keeps a rope
// object of entries as the config gives it, each entry's rope_theta included or not, at
// transformers decba1d2: Gemma4TextConfig, Gemma4UnifiedTextConfig, DiffusionGemmaTextConfig,
// MellumConfig and ZayaConfig (configuration_<type>.py) key it by layer type and their
// convert_rope_params_to_dict returns the kwargs untouched; DeepseekV4Config keys it by rope-type
// label ("main", "compress") and keeps a nested one as given (__post_init__). Each embedding's
// compute_default_rope_parameters (modeling_<type>.py) reads base =
// config.rope_parameters[layer_type]["rope_theta"], with no fallback. Gemma3TextConfig,
// Gemma3nTextConfig and Olmo3Config are not here: their convert_rope_params_to_dict setdefaults a
// rope_theta into the full_attention and sliding_attention entries (layerRule.slidingBase).
var rotaryEmbeddings = map[string]string{
	"gemma4": "Gemma4TextRotaryEmbedding", "gemma4_text": "Gemma4TextRotaryEmbedding",
	"gemma4_unified": "Gemma4UnifiedTextRotaryEmbedding", "gemma4_unified_text": "Gemma4UnifiedTextRotaryEmbedding",
	"diffusion_gemma": "DiffusionGemmaTextRotaryEmbedding", "diffusion_gemma_text": "DiffusionGemmaTextRotaryEmbedding",
	"mellum": "MellumRotaryEmbedding", "zaya": "ZayaRotaryEmbedding", "deepseek_v4": "DeepseekV4RotaryEmbedding",
}

// entryTheta is the base of entry n (layer type t) of rope object ri, an object of entries that
// gives no rope_theta, in a family of rotaryEmbeddings: base is what rotary takes for it (the
// spec's, read from p.baseFrom). The embedding builds only the entries of the layer types in use
// (DeepSeek-V4's, every entry). For a rope type default entry transformers main raises KeyError;
// a scaled type's ROPE_INIT_FUNCTIONS function (modeling_rope_utils.py) first calls
// standardize_rope_params, which, when every key of the object is a layer type in use (its
// "Case 2"; DeepSeek-V4's _rope_type_labels), setdefaults the config object's rope_theta
// attribute into every entry: the config's key, DeepseekV4Config's field default 10000, and for
// the other classes, which have no such field, None, which the init cannot raise to a power.
// Where transformers main builds the entry, its base is returned; where it fails, base, and the
// failure is recorded.
func (p *parser) entryTheta(ri ropeInfo, n node, t string, base float64) (float64, error) {
	emb, ok := rotaryEmbeddings[p.m.ModelType]
	if !ok || ri.perType == "" && p.fam.kind != kindDeepSeekV4 {
		return base, nil
	}
	dsv4 := p.fam.kind == kindDeepSeekV4
	inUse, err := p.typesInUse()
	if err != nil {
		return 0, err
	}
	if !dsv4 && !inUse[t] {
		return base, nil // never built
	}
	entries := map[string]node{rope.FullAttention: *ri.main}
	maps.Copy(entries, ri.types)
	global := false // standardize_rope_params takes the object for one set of parameters
	for k := range entries {
		global = global || !dsv4 && !inUse[k]
	}
	attr, apath, aok, err := p.thetaAttribute()
	if err != nil {
		return 0, err
	}
	key := n.key("rope_theta")
	reading := fmt.Sprintf("takes %v (%s)", base, p.baseFrom)
	rt, scaled := p.entryType(n)
	switch {
	case scaled && !global && aok:
		p.note("%s gives no rope_theta: %s %v, which the %s init's standardize_rope_params writes into it", n.path, apath, attr, rt)
		// The config's key is read after all.
		p.overridden = slices.DeleteFunc(p.overridden, func(u UnreadKey) bool { return u.Path == apath })
		return attr, nil
	case scaled && !global:
		p.fail(HFFailure{Key: key, Fails: ropeInit(rt), Reading: reading, Error: fmt.Sprintf("a TypeError: its standardize_rope_params writes the config object's "+
			"rope_theta into the entry, and the config gives none (%s has no such field), so base is None", p.configClass())})
	case scaled:
		p.fail(HFFailure{Key: key, Fails: ropeInit(rt), Reading: reading, Error: "KeyError: 'rope_theta': its standardize_rope_params takes the rope object " +
			"for one set of parameters (not every key of it is a layer type in use) and writes no rope_theta into this entry"})
	default:
		why := fmt.Sprintf(`KeyError: 'rope_theta': it reads config.rope_parameters[layer_type]["rope_theta"], which %s does not give`, n.path)
		var fillers []string // the scaled entries built, whose init would fill it first
		for _, k := range slices.Sorted(maps.Keys(entries)) {
			if _, s := p.entryType(entries[k]); s && (dsv4 || inUse[k]) && !global && !slices.Contains(fillers, entries[k].path) {
				fillers = append(fillers, entries[k].path)
			}
		}
		switch {
		case len(fillers) > 0 && aok && dsv4:
			why += fmt.Sprintf(" when it comes first in rope_parameters' key order, the order %s builds the entries in; after %s, whose init writes %s %v into every entry, it runs",
				emb, strings.Join(fillers, " and "), apath, attr)
		case len(fillers) > 0 && aok:
			why += fmt.Sprintf(" when it is built before %s, whose init writes %s %v into every entry (the layer types are built in set order, which varies with PYTHONHASHSEED)",
				strings.Join(fillers, " and "), apath, attr)
		}
		p.fail(HFFailure{Key: key, Fails: emb + ".compute_default_rope_parameters", Error: why, Reading: reading})
	}
	return base, nil
}

// thetaAttribute is the config object's rope_theta attribute, which standardize_rope_params
// writes into the entries: the config's key, else the config class's field default (apath
// names it). ok is false when the object has none.
func (p *parser) thetaAttribute() (float64, string, bool, error) {
	s := &p.src
	path, v, ok := s.given("rope_theta")
	if !ok {
		if v, ok = s.defaults["rope_theta"]; !ok {
			return 0, "", false, nil
		}
		path = p.configClass() + "'s default rope_theta"
	}
	f, err := asNumber(path, v)
	if err != nil {
		return 0, "", false, err
	}
	if !(f > 0) {
		return 0, "", false, configErr("%s: %v: want a number > 0", path, f)
	}
	return f, path, true, nil
}
