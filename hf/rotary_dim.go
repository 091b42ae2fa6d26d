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

// rotaryDimPart sizes the spec's rotary part of a head of head dims by the config's rotary_dim
// where its class reads it; ok is false where it does not, or the config gives none.
func (p *parser) rotaryDimPart(head int) (ok bool, err error) {
	rd, path, ok, err := p.rotaryDim()
	if err != nil || !ok {
		return false, err
	}
	if (rd <= 0 || rd%2 != 0 || rd > head) && !p.src.lenient {
		return false, configErr("%s: %d: want a positive even number ≤ head size %d", path, rd, head)
	}
	p.m.Spec.RotaryDim = rd
	if p.fam.kind == kindMiniMax && rd < head {
		p.note("%s %d of head size %d rotated, as MiniMax's modeling code and vLLM do; HF's %s config has no rotary_dim and rotates the whole head", path, rd, head, p.m.ModelType)
	}
	return true, nil
}

// rotaryDimBeside weighs a rotary_dim given beside the fraction (at path) that sized rd dims,
// in a family whose readers take the fraction first (family.fractionFirst, MiniMax-M2): vLLM's
// models/minimax_m2.py MiniMaxM2Attention.__init__ (01d99586) sets rope_parameters'
// partial_rotary_factor to rotary_dim / head_dim only where it has none (transformers'
// convert_rope_params_to_dict has already put a top-level one there), and transformers main's
// MiniMaxM2RotaryEmbedding (modeling_minimax_m2.py, decba1d2: Glm4MoeRotaryEmbedding) reads the
// fraction alone. A rotary_dim of the same dims counts as read; one that differs is not.
func (p *parser) rotaryDimBeside(path string, factor float64, rd int) {
	if !p.fam.fractionFirst || !p.readsRotaryDim() {
		return
	}
	dpath, v, ok := p.src.given("rotary_dim")
	if !ok {
		return
	}
	if d, err := asInt(dpath, v); err == nil && d == rd {
		p.rotaryDimRead = true
		return
	}
	p.overridden = append(p.overridden, UnreadKey{Path: dpath, Why: fmt.Sprintf("%s %v is taken (%d dims): vLLM's models/minimax_m2.py "+
		"MiniMaxM2Attention turns rotary_dim into the fraction only where rope_parameters has none, and transformers main's "+
		"MiniMaxM2RotaryEmbedding reads the fraction alone", path, factor, rd)})
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
