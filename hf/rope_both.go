package hf

import (
	"maps"
	"slices"

	"github.com/rotary-go/rotary/rope"
)

// ropeKey finds the text model's rope object: rope_parameters or the legacy rope_scaling, the
// config's or the family's default. When the text config class receives both (text_config's,
// or the top level's where the wrapper folds them), it is the one the class keeps:
//
//   - RotaryEmbeddingConfigMixin.convert_rope_params_to_dict (modeling_rope_utils.py,
//     transformers decba1d2) sets rope_parameters = rope_scaling or rope_parameters: a
//     non-empty rope_scaling replaces rope_parameters whole, its rope_theta included, and the
//     config's rope_theta is setdefaulted into it. GPTNeoXConfig, Phi3Config,
//     Qwen2VLTextConfig and Qwen2_5_VLTextConfig override the method with the same expression.
//   - Gemma3TextConfig, Gemma3nTextConfig and Olmo3Config override it to update
//     rope_parameters["full_attention"] with rope_scaling (family.mergesRopeScaling), and
//     fail with a KeyError when rope_parameters has no such entry.
//   - Classes that never read rope_scaling list it in family.ignores.
func (p *parser) ropeKey() (string, any, bool, error) {
	s := &p.src
	if !s.received("rope_parameters") || !s.received("rope_scaling") {
		path, v, ok := s.first("rope_parameters", "rope_scaling")
		return path, v, ok, nil
	}
	ppath, pv, _ := s.given("rope_parameters")
	spath, sv, _ := s.given("rope_scaling")
	scaling, isObj := sv.(object)
	if p.fam.mergesRopeScaling {
		if !isObj {
			return "", nil, false, configErr("%s: want an object (%s merges it into rope_parameters.full_attention)", spath, p.fam.class)
		}
		params, err := asObject(ppath, pv)
		if err != nil {
			return "", nil, false, err
		}
		full, ok := params[rope.FullAttention].(object)
		if !ok {
			return "", nil, false, configErr("%s has no %s entry, which %s.convert_rope_params_to_dict updates with %s: transformers fails on this config (KeyError)",
				ppath, rope.FullAttention, p.fam.class, spath)
		}
		merged, entry := maps.Clone(params), maps.Clone(full)
		maps.Copy(entry, scaling)
		merged[rope.FullAttention] = entry
		p.note("%s merged into %s.%s, its keys winning, as %s.convert_rope_params_to_dict does", spath, ppath, rope.FullAttention, p.fam.class)
		return ppath, merged, true, nil
	}
	if isObj && len(scaling) == 0 {
		p.note("%s empty: %s taken, as transformers' convert_rope_params_to_dict does (rope_scaling or rope_parameters)", spath, ppath)
		return ppath, pv, true, nil
	}
	p.note("%s taken over rope_parameters (%s not read), as transformers' convert_rope_params_to_dict does (rope_scaling or rope_parameters)", spath, ppath)
	return spath, sv, true, nil
}

// received reports whether the text config class receives key k, not null: text_config's (or
// the config's, when not nested), or the top level's where the wrapper folds k (topWins).
func (s *source) received(k string) bool {
	if slices.Contains(s.ignored, k) {
		return false
	}
	if s.top != nil && slices.Contains(s.topWins, k) {
		if v, ok := s.top.m[k]; ok {
			return v != nil
		}
	}
	v, ok := s.text.m[k]
	return ok && v != nil
}
