package hf

import (
	"fmt"
	"math"
	"slices"

	"github.com/rotary-go/rotary/rope"
)

// base reads the RoPE base, rope_theta, where the config may give it twice: in its rope object
// and at the top level (rope_theta, or GPT-NeoX's rotary_emb_base).
//
// The rope object's own wins, for the legacy rope_scaling as for rope_parameters:
// RotaryEmbeddingConfigMixin.convert_rope_params_to_dict (modeling_rope_utils.py, transformers
// decba1d2) sets rope_parameters = rope_scaling or rope_parameters and only setdefaults the
// config's rope_theta into it, as standardize_rope_params does again; vLLM builds the config
// with transformers v5 and its patch_rope_parameters (transformers_utils/config.py, 0036026e)
// calls standardize_rope_params once more; llama.cpp's TextModel.__init__ (conversion/base.py)
// copies the top-level rope_theta into the rope object only when it has none.
//
// A reading without rope_parameters (RuleRopeParameters "ignores": transformers v4.57, vLLM
// 0.11) takes the config's and never the object's: v4.57's _compute_default_rope_parameters
// (modeling_rope_utils.py, 59eba492) reads base = config.rope_theta, and every other
// _compute_*_parameters the same, the config class's default when the config has none.
//
// The two sources disagree when the config gives both with different values: the one not taken
// is reported in Model.Unread, naming the one taken and the reading that would take the other.
func (p *parser) base(ri ropeInfo) error {
	v457 := p.opts.ignoresRopeParameters()
	if err := p.readBase(ri, v457); err != nil {
		return err
	}
	if ri.main != nil && ri.scaling && v457 {
		p.scalingThetaUnread(ri.main)
	}
	if ri.main != nil {
		if _, _, ok := ri.main.get("rope_theta"); !ok {
			// The full_attention (DeepSeek-V4: main) entry of an object of entries.
			b, err := p.entryTheta(ri, *ri.main, rope.FullAttention, p.m.Spec.Base)
			p.m.Spec.Base = b
			return err
		}
	}
	return nil
}

func (p *parser) readBase(ri ropeInfo, v457 bool) error {
	s := &p.src
	spec := &p.m.Spec
	var path string
	var v any
	ok := false
	if ri.main != nil && (ri.parameters || ri.scaling && !v457) {
		if path, v, ok = ri.main.get("rope_theta"); ok {
			p.thetaDisagrees(path, v)
		}
	}
	if !ok {
		path, v, ok = s.given("rope_theta", "rotary_emb_base")
	}
	p.baseFrom = path
	if !ok {
		if p.fam.kind == kindChatGLM {
			return p.chatGLMBase()
		}
		path, v, ok = s.first("rope_theta")
		p.baseFrom = p.configClass() + "'s default rope_theta"
	}
	if !ok {
		p.note("rope_theta absent: using 10000")
		spec.Base = 10000
		p.baseFrom = "the default rope_theta"
		return nil
	}
	f, err := asNumber(path, v)
	if err != nil {
		return err
	}
	if !(f > 0) {
		return configErr("%s: %v: want a number > 0", path, f)
	}
	spec.Base = f
	return nil
}

// chatGLMBase is THUDM's RotaryEmbedding: base = 10000 * rope_ratio.
func (p *parser) chatGLMBase() error {
	ratio, rpath, rok, err := p.src.number("rope_ratio")
	if err != nil {
		return err
	}
	if !rok {
		p.note("rope_ratio absent: base 10000")
		ratio = 1
	}
	if !(ratio > 0) {
		return configErr("%s: %v: want a number > 0", rpath, ratio)
	}
	p.m.Spec.Base = 10000 * ratio
	// Checked here so that the error names the key the config gave, not rope_theta.
	if math.IsInf(p.m.Spec.Base, 0) || !(p.m.Spec.Base > 1) {
		return configErr("%s: %v: the base 10000 × rope_ratio = %v: want a finite number > 1", rpath, ratio, p.m.Spec.Base)
	}
	return nil
}

// thetaDisagrees reports the config's own rope_theta (or rotary_emb_base) as unread when the rope
// object's, at path, is taken over it with another value: transformers v4.57 and vLLM 0.11 take
// the config's. A family default object is left to the note addClassDefaults writes.
func (p *parser) thetaDisagrees(path string, v any) {
	s := &p.src
	if _, given := s.raw("rope_parameters", "rope_scaling"); !given {
		return
	}
	for _, k := range []string{"rope_theta", "rotary_emb_base"} {
		if slices.Contains(s.ignored, k) {
			continue
		}
		for _, n := range s.levels(k) {
			if n == nil || n.m[k] == nil {
				continue
			}
			if sameNumber(n.m[k], v) {
				return
			}
			p.overridden = append(p.overridden, UnreadKey{Path: n.key(k), Why: fmt.Sprintf(
				"%s %s is taken, as transformers main's convert_rope_params_to_dict does (it only setdefaults the config's rope_theta into the rope object); "+
					"transformers v4.57 and vLLM 0.11 take this one (--as hf-4.57)", path, brief(v))})
			return
		}
	}
}

// scalingThetaUnread reads a rope_theta inside the legacy rope_scaling as a reading without
// rope_parameters does: not at all. It is reported as unread when it differs from the base
// taken (the config's, else the class default).
func (p *parser) scalingThetaUnread(obj *node) {
	path, inner, ok := obj.get("rope_theta")
	if f, isNum := numberOf(inner); !ok || isNum && f == p.m.Spec.Base {
		return
	}
	p.overridden = append(p.overridden, UnreadKey{Path: path, Why: fmt.Sprintf(
		"transformers v4.57's _compute_default_rope_parameters reads the config's rope_theta (%v here) only; transformers main takes this one", p.m.Spec.Base)})
}

// sameNumber reports whether two decoded JSON values are the same number.
func sameNumber(a, b any) bool {
	x, aok := numberOf(a)
	y, bok := numberOf(b)
	return aok && bok && x == y
}
