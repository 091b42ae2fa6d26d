package hf

import (
	"math"

	"github.com/rotary-go/rotary/rope"
)

// proportionalScaling reads rope_type "proportional" (Gemma 4): factor, 1 when absent, as HF's
// _compute_proportional_rope_parameters (modeling_rope_utils.py) reads it. The rotated pair
// count depends on the head the entry applies to; proportional sets it.
func proportionalScaling(n node) (rope.Scaling, error) {
	sc := rope.Scaling{Type: rope.ScalingProportional, Factor: 1}
	f, ok, err := n.number("factor")
	if err != nil {
		return sc, err
	}
	if ok {
		if !(f > 0) {
			return sc, configErr("%s: %v: want a number > 0", n.key("factor"), f)
		}
		sc.Factor = f
	}
	return sc, nil
}

// proportional sets a proportional scaling's RotatedPairs for a head of head dims, as
// _compute_proportional_rope_parameters does: rope_angles = int(partial_rotary_factor ·
// head_dim // 2), the factor the config's own partial_rotary_factor where standardize_rope_params
// writes it into rope object ri's entry n of layer type t (always for one object, per layer
// type as typeFactor says), else the entry's, else 1. Transformers v4.57 has no proportional
// type, so its attribute-only reading leaves the entry's fraction, which the type's definition
// needs, to it. Other scalings are left alone.
func (p *parser) proportional(sc *rope.Scaling, ri ropeInfo, t string, n node, head int) error {
	if sc.Type != rope.ScalingProportional {
		return nil
	}
	var factor float64
	var path string
	var ok bool
	var err error
	if ri.perType != "" && p.opts.choice(RulePartialRotarySource) != "attribute-only" {
		factor, path, ok, err = p.typeFactor(ri, n, t, head)
	} else if factor, path, ok, err = p.src.number("partial_rotary_factor"); err == nil && !ok {
		factor, ok, err = n.number("partial_rotary_factor")
	}
	if err != nil {
		return err
	}
	if path == "" {
		path = n.key("partial_rotary_factor")
	}
	if ok {
		p.tookFraction(path)
	} else {
		factor = 1
		p.note("%s absent: proportional RoPE rotates every pair (HF's default 1.0)", path)
	}
	if !(factor >= 0 && factor <= 1) {
		return configErr("%s: %v: want a fraction in [0, 1]", path, factor)
	}
	sc.RotatedPairs = int(math.Floor(factor * float64(head) / 2))
	return nil
}

// wholeHead reports whether rope entry n rotates the whole head, whatever partial_rotary_factor
// says: proportional RoPE does (its unrotated pairs have frequency 0), and so does the default
// type of the families whose rotary embedding computes it over head_dim alone.
func (p *parser) wholeHead(n node) bool {
	t, err := ropeType(n)
	if err != nil {
		return false // scaling reports it
	}
	switch t {
	case "proportional":
		return true
	case "", "default":
		return p.fam.layers != nil && p.fam.layers.defaultWholeHead
	}
	return false
}
