package hf

import (
	"fmt"
	"slices"
)

// rotaryPctReaders says where transformers main reads rotary_pct.
const rotaryPctReaders = `transformers main reads rotary_pct only in GPTNeoXConfig and GPTNeoXJapaneseConfig (configuration_gpt_neox.py, ` +
	`configuration_gpt_neox_japanese.py at decba1d2: convert_rope_params_to_dict setdefaults rope_parameters["partial_rotary_factor"] to kwargs.pop("rotary_pct", …))`

// tookFraction records that a rotary dim was sized by the fraction at path.
func (p *parser) tookFraction(path string) {
	if p.fractionFrom == nil {
		p.fractionFrom = map[string]bool{}
	}
	p.fractionFrom[path] = true
}

// rotaryPctUnread reports the config's rotary_pct as unread, with the reason, when no rotary
// dim was sized by it and no other warning names it: every class but GPT-NeoX's leaves it an
// attribute nothing reads, and the readings take the rotary part from other keys where the
// config gives them (partial_rotary_factor first, as vLLM's getattr_iter does; rotary_dim;
// qk_rope_head_dim) and from the rope object's entries where it is keyed by layer type.
func (p *parser) rotaryPctUnread(ri ropeInfo) {
	s := &p.src
	path, _, ok := s.given("rotary_pct")
	if !ok || p.fractionFrom[path] || slices.ContainsFunc(p.overridden, func(u UnreadKey) bool { return u.Path == path }) {
		return
	}
	class := p.configClass()
	_, _, dim := s.given("rotary_dim")
	_, _, partial := s.given("partial_rotary_factor")
	why := fmt.Sprintf("%s; %s keeps it as an attribute nothing reads", rotaryPctReaders, class)
	switch {
	case class == "GPTNeoXConfig" && dim:
		why = "rotary_dim is read in its place, where GPTNeoXConfig reads rotary_pct and no rotary_dim (configuration_gpt_neox.py convert_rope_params_to_dict, decba1d2): transformers main rotates int(head_dim · rotary_pct) dims"
	case partial:
		why = "partial_rotary_factor, given too, is the key read (vLLM's getattr_iter takes it first too); " + rotaryPctReaders
	case dim:
		why = "rotary_dim is read in its place; " + rotaryPctReaders
	case ri.perType != "" && p.opts.choice(RulePartialRotarySource) != "attribute":
		why += " (vLLM's patch_rope_parameters reads it as the config's partial_rotary_factor)"
	}
	p.overridden = append(p.overridden, UnreadKey{Path: path, Why: why})
}
