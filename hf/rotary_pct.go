package hf

import (
	"fmt"
	"slices"
)

// rotaryPctReaders says where transformers reads rotary_pct.
const rotaryPctReaders = `transformers reads rotary_pct only in GPTNeoXConfig and GPTNeoXJapaneseConfig (configuration_gpt_neox.py, ` +
	`configuration_gpt_neox_japanese.py: main at decba1d2 setdefaults rope_parameters["partial_rotary_factor"] to kwargs.pop("rotary_pct", …) in ` +
	`convert_rope_params_to_dict, v4.57 at 59eba492 sets partial_rotary_factor = rotary_pct in __init__)`

// embFractionReaders says who reads rotary_emb_fraction.
const embFractionReaders = `no transformers config class reads rotary_emb_fraction (main at decba1d2, v4.57 at 59eba492); ` +
	`vLLM's patch_rope_parameters (getattr_iter) takes it as the config's partial_rotary_factor where the config object has neither that attribute nor rotary_pct (--as vllm)`

// ropePctReaders says who reads rope_pct, the rotary fraction of StableLM's original configs.
const ropePctReaders = `no transformers config class reads rope_pct (main at decba1d2: StableLmConfig takes partial_rotary_factor, default 0.25); ` +
	`vLLM reads it only in StablelmAttention.__init__ (models/stablelm.py, 4819ff71), for StableLM, ahead of partial_rotary_factor: a reading rotary does not model`

// aliasKeys are the keys vLLM's patch_rope_parameters reads as the config's partial_rotary_factor
// attribute, after that key (transformers_utils/config.py, 0036026e: getattr_iter).
var aliasKeys = []string{"rotary_pct", "rotary_emb_fraction"}

// fractionAliases are the keys the reading takes as the config's partial_rotary_factor attribute
// when the config gives none (RuleRotaryPct "aliases"): none where the class sets the
// attribute among its kwargs (getattr_iter finds it first), rotary_emb_fraction alone where the
// class pops rotary_pct.
func (p *parser) fractionAliases() []string {
	switch {
	case p.opts.choice(RuleRotaryPct) != "aliases" || p.fam.partialKwarg:
		return nil
	case p.fam.rotaryPct:
		return aliasKeys[1:]
	}
	return aliasKeys
}

// fractionKeys are the config's keys read as its rotary fraction, the first given taken:
// partial_rotary_factor, rotary_pct where the config class reads it (or no class is known), then
// the aliases of the reading.
func (p *parser) fractionKeys() []string {
	keys := []string{"partial_rotary_factor"}
	if p.fam.rotaryPct || p.unknown {
		keys = append(keys, "rotary_pct")
	}
	for _, k := range p.fractionAliases() {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// tookFraction records that a rotary dim was sized by the fraction at path.
func (p *parser) tookFraction(path string) {
	if p.fractionFrom == nil {
		p.fractionFrom = map[string]bool{}
	}
	p.fractionFrom[path] = true
}

// aliasesUnread reports the config's rotary_pct and rotary_emb_fraction as unread, with the
// reason, when no rotary dim was sized by them and no other warning names them: the readings
// take the rotary part from other keys where the config gives them (partial_rotary_factor
// first, as vLLM's getattr_iter does; rotary_dim; qk_rope_head_dim) and from the rope object's
// entries where it is keyed by layer type, and a class that does not read the key
// (fractionKeys) leaves it an attribute nothing reads.
func (p *parser) aliasesUnread() {
	for _, k := range aliasKeys {
		path, _, ok := p.src.given(k)
		if !ok || p.fractionFrom[path] || slices.ContainsFunc(p.overridden, func(u UnreadKey) bool { return u.Path == path }) {
			continue
		}
		p.overridden = append(p.overridden, UnreadKey{Path: path, Why: p.aliasWhy(k)})
	}
}

// ropePctUnread reports a given rope_pct: no reading sizes the rotary part by it, and a
// framework that does would rotate another number of dims.
func (p *parser) ropePctUnread() {
	if path, _, ok := p.src.given("rope_pct"); ok {
		p.overridden = append(p.overridden, UnreadKey{Path: path, Why: ropePctReaders})
	}
}

// aliasWhy is why key k (rotary_pct or rotary_emb_fraction) sized no rotary dim.
func (p *parser) aliasWhy(k string) string {
	s := &p.src
	class := p.configClass()
	readers := rotaryPctReaders
	if k != "rotary_pct" {
		readers = embFractionReaders
	}
	dim := p.rotaryDimRead
	aliases := p.opts.choice(RuleRotaryPct) == "aliases"
	keys := p.fractionKeys()
	switch {
	case dim:
		return "rotary_dim is read in its place; " + readers
	case aliases && p.fam.partialKwarg:
		return fmt.Sprintf("%s sets partial_rotary_factor among its kwargs, so vLLM's getattr_iter (patch_rope_parameters) finds that attribute first; %s", class, readers)
	case slices.Contains(keys, k):
		if first, _, ok := s.given(keys[:slices.Index(keys, k)]...); ok {
			return fmt.Sprintf("%s, given too, is read in its place (vLLM's getattr_iter takes partial_rotary_factor, then rotary_pct, then rotary_emb_fraction); %s", first, readers)
		}
		return readers // the rope object's entries sized the rotary part
	case k != "rotary_pct":
		return readers
	}
	why := fmt.Sprintf("%s; %s keeps it as an attribute nothing reads", readers, class)
	if _, _, partial := s.given("partial_rotary_factor"); partial {
		return "partial_rotary_factor is read; " + why
	}
	if !p.fam.partialKwarg {
		why += " (vLLM's patch_rope_parameters reads it as the config's partial_rotary_factor: --as vllm)"
	}
	return why
}
