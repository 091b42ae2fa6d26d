package hf

import (
	"fmt"
	"slices"

	"github.com/rotary-go/rotary/rope"
)

// partialFactor reads the rotary fraction, which a config may give twice: in its rope object
// and as the config object's partial_rotary_factor attribute (the top-level key, or the default
// a config class sets among its kwargs). ok is false when neither gives one: the whole head
// rotates.
//
// Transformers main (decba1d2) builds the config object in two steps that keep both values.
// PreTrainedConfig.__init__ (configuration_utils.py, wrap_init_to_accept_kwargs) hands a key that
// is no dataclass field to __post_init__ as a kwarg; RotaryEmbeddingConfigMixin.
// convert_rope_params_to_dict (modeling_rope_utils.py) kwargs.get()s it and only setdefaults it
// into rope_parameters, and its standardize_rope_params finds no attribute yet; __post_init__
// then setattr()s the leftover kwarg. rope_type default runs the family's
// compute_default_rope_parameters, which reads rope_parameters: the object's value, else the
// attribute. Every ROPE_INIT_FUNCTIONS entry (_compute_linear_scaling_rope_parameters,
// _compute_dynamic_ntk_parameters, _compute_yarn_parameters, _compute_longrope_parameters,
// _compute_llama3_parameters) first calls config.standardize_rope_params(), which at main assigns
// the attribute over rope_parameters["partial_rotary_factor"], and sizes its tables by it: a
// scaled type takes the attribute (RulePartialRotarySource "object-unless-scaled"). vLLM's
// patch_rope_parameters does that assignment for every type before the model is built
// ("attribute").
//
// The value not taken is reported in Model.Unread, with the reading that takes it.
func (p *parser) partialFactor(ri ropeInfo) (float64, string, bool, error) {
	s := &p.src
	switch {
	case p.opts.choice(RulePartialRotarySource) == "attribute-only":
		return p.orFamilyFraction(p.attributeOnly(ri.main))
	case ri.perType != "" && ri.main != nil:
		return p.orFamilyFraction(p.typeFactor(ri, *ri.main, rope.FullAttention, p.m.Spec.HeadSize))
	}
	factor, path, ok, err := s.number(p.fractionKeys()...)
	if err != nil {
		return 0, "", false, err
	}
	given := ok // factor is a key of the config's, at path
	topPath, topFactor := "", 0.0
	if ri.main != nil {
		inner, iok, err := ri.main.number("partial_rotary_factor")
		if err != nil && !s.lenient {
			return 0, "", false, err
		}
		ipath := ri.main.key("partial_rotary_factor")
		switch {
		case !ok:
			factor, ok, given, path = inner, iok, iok, ipath
		case iok && inner != factor && p.opts.ignoresRopeParameters():
			// transformers v4.57's compute_default_rope_parameters reads the config attribute.
			p.note("%s %v differs from %s %v: %s taken", ipath, inner, path, factor, path)
			return factor, path, true, nil
		case iok && inner != factor:
			topPath, topFactor = path, factor
			factor, path = inner, ipath
		}
	}
	if !ok && p.fam.partial != 0 {
		factor, path, ok = p.fam.partial, "partial_rotary_factor", true
	}
	rt, scaled := p.scaledType(ri)
	if !scaled && p.opts.choice(RulePartialRotarySource) != "attribute" {
		switch {
		case topPath != "":
			p.overridden = append(p.overridden, UnreadKey{Path: topPath, Why: fmt.Sprintf("%s %v is taken, as transformers main does for rope type %s "+
				"(convert_rope_params_to_dict only setdefaults the config's value into the rope object, which compute_default_rope_parameters reads); "+
				"vLLM (patch_rope_parameters writes it over the rope object's: --as vllm) and transformers main's scaled rope types take this one (%v)",
				path, factor, rt, topFactor)})
		case given && ri.main != nil && p.fam.partialKwarg && factor != p.fam.partial && path == ri.main.key("partial_rotary_factor"):
			p.note("%s %v taken, as transformers main does for rope type %s; vLLM and transformers main's scaled rope types take %s's default %v (the config attribute standardize_rope_params writes over it)",
				path, factor, rt, p.configClass(), p.fam.partial)
		}
		return factor, path, ok, nil
	}
	// The attribute is read only where it is used: a config class that does not read the key
	// (GPTNeoXConfig) leaves a malformed one alone under rope type default.
	attr, apath, aok, err := p.partialAttribute()
	if err != nil {
		return 0, "", false, err
	}
	if aok && (!ok || attr != factor) {
		from := apath
		if apath == "" {
			from = p.configClass() + "'s default partial_rotary_factor"
		}
		if given {
			p.overridden = append(p.overridden, UnreadKey{Path: path, Why: fmt.Sprintf("%s %v is taken, %s; %s",
				from, attr, attributeReader(rt, scaled), objectReaders(scaled))})
		}
		if attn, ok := slicedAtBuild[p.m.ModelType]; ok && scaled && given {
			head := p.m.Spec.HeadSize
			p.fail(HFFailure{Key: path, Fails: attn + ".forward", Error: fmt.Sprintf("a shape mismatch in apply_rotary_pos_emb: %s.__init__ slices "+
				"rotary_ndims = int(%d · %v) = %d dims of each head by it when the model is built, before the %s init (%s) writes %s %v over it and sizes cos/sin to %d",
				attn, head, factor, dims(head, factor), rt, ropeInit(rt), from, attr, dims(head, attr)),
				Reading: fmt.Sprintf("takes %s %v, as the cos/sin are sized (vLLM takes it too)", from, attr)})
		}
		if slices.Contains(p.fam.ignores, "partial_rotary_factor") && apath != "" {
			p.note("%s read after all: %s does not read it into rope_parameters, but it is the config attribute that standardize_rope_params writes there", apath, p.configClass())
		}
		return attr, from, true, nil
	}
	return factor, path, ok, nil
}

// orFamilyFraction is a fraction read, or the family's when none was given.
func (p *parser) orFamilyFraction(factor float64, path string, ok bool, err error) (float64, string, bool, error) {
	if err == nil && !ok && p.fam.partial != 0 {
		return p.fam.partial, "partial_rotary_factor", true, nil
	}
	return factor, path, ok, err
}

// slicedAtBuild are the attention classes that slice the rotated dims by the rope object's
// fraction as read when the model is built (rotary_ndims = int(head_dim ·
// rope_parameters["partial_rotary_factor"]) in __init__, modeling_<type>.py at decba1d2), before
// <Type>Model.__init__ builds the rotary embedding whose scaled init overwrites it; the other
// families slice by cos.shape[-1].
var slicedAtBuild = map[string]string{"phi": "PhiAttention", "stablelm": "StableLmAttention", "persimmon": "PersimmonAttention"}

// partialAttribute is the config object's partial_rotary_factor attribute, the value
// standardize_rope_params writes over the rope object's: apath names the key it comes from, ""
// for the config class's own default. A class that sets it among its kwargs in __post_init__
// (family.partialKwarg: kwargs.setdefault, or BambaConfig's kwargs["partial_rotary_factor"] =
// 0.5, which is why the family ignores the config's) has it whatever the config says; a key the
// class's rope reading ignores is an attribute all the same (GPTNeoXConfig.
// convert_rope_params_to_dict reads rotary_pct and leaves partial_rotary_factor in the kwargs).
// Where the config gives none, the reading's aliases stand in (RuleRotaryPct "aliases":
// vLLM's getattr_iter).
func (p *parser) partialAttribute() (float64, string, bool, error) {
	ignores := slices.Contains(p.fam.ignores, "partial_rotary_factor")
	if p.fam.partialKwarg && ignores {
		return p.fam.partial, "", true, nil
	}
	s := &p.src
	keys := append([]string{"partial_rotary_factor"}, p.fractionAliases()...)
	saved := s.ignored
	s.ignored = slices.DeleteFunc(slices.Clone(saved), func(k string) bool { return k == "partial_rotary_factor" })
	f, path, ok, err := s.number(keys...)
	s.ignored = saved
	if err != nil || ok {
		return f, path, ok, err
	}
	if p.fam.partialKwarg {
		return p.fam.partial, "", true, nil
	}
	return 0, "", false, nil
}

// scaledType is the rope type of the config's rope object, as its class rewrites it, and
// whether transformers builds it through ROPE_INIT_FUNCTIONS (every type but default and
// Qwen2-VL's mrope, which Qwen2VLConfig rewrites to default).
func (p *parser) scaledType(ri ropeInfo) (string, bool) {
	if ri.main == nil {
		return "default", false
	}
	return p.entryType(*ri.main)
}

// entryType is scaledType for rope object (or per-layer-type entry) n.
func (p *parser) entryType(n node) (string, bool) {
	t, err := ropeType(n)
	if err != nil {
		return "default", false // scaling reports it
	}
	if to, ok := p.fam.ropeTypes[t]; ok {
		t = to
	}
	switch t {
	case "", "default", "mrope":
		return "default", false
	}
	return t, true
}

// attributeReader says who takes the config attribute over the rope object's.
func attributeReader(rt string, scaled bool) string {
	if scaled {
		return fmt.Sprintf("as transformers main's %s init does (its ROPE_INIT_FUNCTIONS entry calls standardize_rope_params, which writes the config attribute over the rope object's)", rt)
	}
	return "as vLLM's patch_rope_parameters does (it writes the config attribute over the rope object's before the model is built)"
}

// objectReaders says who takes the rope object's partial_rotary_factor over the attribute.
func objectReaders(scaled bool) string {
	if scaled {
		return "vLLM takes that too; only a rope type default reads this one (transformers main's compute_default_rope_parameters)"
	}
	return "transformers main takes this one for rope type default (compute_default_rope_parameters reads rope_parameters)"
}

// configClass names the config class of the model type, for the notes.
func (p *parser) configClass() string {
	if c, ok := configClasses[p.m.ModelType]; ok && c.name != "" {
		return c.name
	}
	if p.fam.class != "" {
		return p.fam.class
	}
	return p.m.ModelType + "'s config class"
}
