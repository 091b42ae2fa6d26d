package hf

import (
	"fmt"
	"slices"
)

// rotaryDimReaders says who reads rotary_dim.
const rotaryDimReaders = `transformers reads rotary_dim only in GPTJConfig and CodeGenConfig (modeling_gptj.py GPTJAttention.__init__, ` +
	`modeling_codegen.py CodeGenAttention.__init__: self.rotary_dim = config.rotary_dim; main at decba1d2, v4.57 at 59eba492), ` +
	`vLLM only where a model file turns it into the rotary fraction (models/gpt_j.py, the MiniMax models): get_rope sizes the rotary part by ` +
	`rope_parameters["partial_rotary_factor"] alone (rotary_embedding/__init__.py, 07b12f1b)`

// readsRotaryDim: the config's class reads rotary_dim (family.rotaryDim), or no class is known
// and the config is read as a generic decoder, whose every key counts.
func (p *parser) readsRotaryDim() bool { return p.fam.rotaryDim || p.unknown }

// rotaryDim is the config's rotary_dim where its class reads it (readsRotaryDim); ok is false
// where it does not, whatever the config says.
func (p *parser) rotaryDim() (rd int, path string, ok bool, err error) {
	if !p.readsRotaryDim() {
		return 0, "", false, nil
	}
	rd, path, ok, err = p.src.integer("rotary_dim")
	if ok && err == nil {
		p.rotaryDimRead = true
	}
	return rd, path, ok, err
}

// rotaryDimUnread reports the config's rotary_dim as unread, with the reason, when no rotary dim
// was sized by it: its class does not read it (every class but GPT-J's and CodeGen's keeps it as
// an attribute nothing reads), or the rotary part came from qk_rope_head_dim (MLA) or a rope
// entry that rotates the whole head. Where the class declares it and its rotary embedding sizes
// the rotary part by partial_rotary_factor alone (family.rotaryDimIgnoredBy), a rotary_dim equal
// to the rotary dim taken is only a note: no reading of it would rotate other dims.
func (p *parser) rotaryDimUnread() {
	path, v, ok := p.src.given("rotary_dim")
	if !ok || p.rotaryDimRead || slices.ContainsFunc(p.overridden, func(u UnreadKey) bool { return u.Path == path }) {
		return
	}
	why := fmt.Sprintf("%s; %s keeps it as an attribute nothing reads", rotaryDimReaders, p.configClass())
	switch emb := p.fam.rotaryDimIgnoredBy; {
	case p.readsRotaryDim():
		why = "the rotary part is qk_rope_head_dim (MLA) or a rope entry's whole head here; " + rotaryDimReaders
	case emb != "":
		if rd, err := asInt(path, v); err == nil && rd == p.m.Spec.RotaryDim {
			p.note("%s %d not read (%s sizes the rotary part by partial_rotary_factor alone); the rotary dim taken is the same", path, rd, emb)
			return
		}
		why = fmt.Sprintf("%s declares it, but %s sizes the rotary part by rope_parameters' partial_rotary_factor alone (the whole head where the config gives none) "+
			"and its apply_rotary_pos_emb rotates that many dims; %s", p.configClass(), emb, rotaryDimReaders)
	}
	p.overridden = append(p.overridden, UnreadKey{Path: path, Why: why})
}
