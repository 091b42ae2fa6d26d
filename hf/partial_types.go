package hf

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// typePartial is what decides the rotary fraction of each entry of a rope object keyed by layer
// type, read once per config.
//
// Transformers main (decba1d2) writes the config object's partial_rotary_factor attribute into
// those entries in one place only: RotaryEmbeddingConfigMixin.standardize_rope_params
// (modeling_rope_utils.py), which assigns it to every entry, and only when every key of
// rope_parameters is a value of layer_types ("Case 2"; otherwise it takes the object for one
// global dict and writes the attribute beside the entries). No per-layer-type config class
// writes it while building the config: ZayaConfig's and Gemma4TextConfig's
// convert_rope_params_to_dict return the kwargs, and Gemma3TextConfig's, Gemma3nTextConfig's
// and Olmo3Config's run standardize_rope_params before PreTrainedConfig.__post_init__
// (configuration_utils.py) setattr()s the config's key. A rope type default then reads its own
// entry (ZayaRotaryEmbedding.compute_default_rope_parameters, modeling_zaya.py:
// rope_parameters[layer_type].get("partial_rotary_factor", 1.0)), and every scaled type's
// ROPE_INIT_FUNCTIONS entry calls standardize_rope_params before it reads its entry.
//
// The rotary embeddings (ZayaRotaryEmbedding, Gemma3RotaryEmbedding, Olmo3RotaryEmbedding,
// Gemma4TextRotaryEmbedding) build their types in list(set(layer_types)) order, which varies
// with PYTHONHASHSEED, so a default entry that reads its fraction (Zaya's) reads the attribute
// when built after a scaled one and its own when built before it; _init_weights (modeling_zaya.py
// ZayaPreTrainedModel._init_weights) then rebuilds every type from the rewritten entries and
// copies the inv_freq into the buffers built first, which fails when their sizes differ. vLLM's
// patch_rope_parameters (transformers_utils/config.py, 0036026e) sets the attribute and calls
// the same standardize_rope_params before any model is built.
type typePartial struct {
	attr  float64
	apath string // the key the attribute comes from; "" for the config class's default
	aok   bool
	// written: standardize_rope_params writes attr into every entry (Case 2).
	written bool
	// inUse are the layer types of layer_types, which the rotary embedding builds.
	inUse map[string]bool
	// scaled are the entries of types in use that a scaled type's init builds.
	scaled []string
	// takenBy are the entries of types in use that take attr; leftBy those that do not, by why.
	takenBy []string
	leftBy  []leftBy
}

// leftBy are entries that do not take the config's partial_rotary_factor, for one reason.
type leftBy struct {
	why   string
	paths []string
}

// readTypePartial reads, once, how the entries of rope object ri, keyed by layer type, take the
// config's partial_rotary_factor.
func (p *parser) readTypePartial(ri ropeInfo) (*typePartial, error) {
	if p.partialTypes != nil {
		return p.partialTypes, nil
	}
	tp := &typePartial{}
	var err error
	if tp.attr, tp.apath, tp.aok, err = p.partialAttribute(); err != nil {
		return nil, err
	}
	if tp.inUse, err = p.typesInUse(); err != nil {
		return nil, err
	}
	entries := map[string]node{}
	maps.Copy(entries, ri.types)
	if ri.main != nil {
		entries[rope.FullAttention] = *ri.main
	}
	keys := slices.Collect(maps.Keys(entries))
	if rule := p.fam.layers; rule != nil && rule.slidingBase != 0 {
		// Gemma3TextConfig, Gemma3nTextConfig and Olmo3Config add a sliding_attention entry.
		keys = append(keys, rope.SlidingAttention)
	}
	tp.written = tp.aok
	for _, k := range keys {
		tp.written = tp.written && tp.inUse[k]
	}
	for _, t := range slices.Sorted(maps.Keys(entries)) {
		if _, scaled := p.entryType(entries[t]); scaled && tp.inUse[t] {
			tp.scaled = append(tp.scaled, entries[t].path)
		}
	}
	p.partialTypes = tp
	return tp, nil
}

// typesInUse are the values of layer_types, as the family's config class fills them in when
// the config has none: its pattern, else every layer full_attention (ZayaConfig: "hybrid").
func (p *parser) typesInUse() (map[string]bool, error) {
	types, err := p.layerTypes()
	if err != nil {
		return nil, err
	}
	rule := p.fam.layers
	if types == nil && rule != nil && rule.lastFull {
		if types, err = p.lastFull(*rule, nil); err != nil {
			return nil, err
		}
	}
	in := map[string]bool{}
	for _, t := range types {
		in[t] = true
	}
	if types != nil {
		return in, nil
	}
	in[rope.FullAttention] = true
	if rule == nil {
		return in, nil
	}
	pattern, err := p.pattern(*rule)
	if err != nil {
		pattern = 0 // local refuses the key; both types are taken to be in use
		in[rope.SlidingAttention] = true
	}
	if pattern > 1 && p.m.NumLayers > 0 {
		in[rope.SlidingAttention] = true
		in[rope.FullAttention] = p.m.NumLayers >= pattern
	}
	return in, nil
}

// typeFactor is the rotary fraction of entry n (layer type t) of a rope object keyed by layer
// type, for a head of head dims: the entry's own, or the config's attribute where the reading
// writes it there (typePartial), else the family's fraction; ok is false when the whole head
// rotates.
func (p *parser) typeFactor(ri ropeInfo, n node, t string, head int) (float64, string, bool, error) {
	if p.opts.choice(RulePartialRotarySource) == "attribute-only" {
		return p.attributeOnly(&n)
	}
	tp, err := p.readTypePartial(ri)
	if err != nil {
		return 0, "", false, err
	}
	path := n.key("partial_rotary_factor")
	own, ownOK, err := n.number("partial_rotary_factor")
	if err != nil && !p.src.lenient {
		return 0, "", false, err
	}
	eff := own // the entry's fraction, as its own init reads it
	if !ownOK {
		eff = 1
		if p.fam.partial != 0 {
			eff = p.fam.partial
		}
	}
	from := tp.apath
	if from == "" {
		from = p.configClass() + "'s default partial_rotary_factor"
	}
	rt, scaled := p.entryType(n)
	attribute := p.opts.choice(RulePartialRotarySource) == "attribute"
	switch {
	case !tp.aok || tp.attr == eff:
	case tp.written && (scaled || attribute):
		why := attributeReader(rt, scaled)
		if scaled {
			why = fmt.Sprintf("as transformers main's %s init does (its ROPE_INIT_FUNCTIONS entry calls standardize_rope_params, which writes the config attribute into every entry of rope_parameters when each key is a value of layer_types)", rt)
		}
		p.takeAttribute(tp, n, t, ownOK, fmt.Sprintf("%s %v is taken, %s", from, tp.attr, why))
		return tp.attr, from, true, nil
	case tp.written && len(tp.scaled) > 0 && tp.inUse[t] && p.readsEntryFraction() && dims(head, tp.attr) != dims(head, eff):
		ownDesc := fmt.Sprintf("its own %v", eff)
		if !ownOK {
			ownDesc = fmt.Sprintf("%v, as it gives none,", eff)
		}
		p.takeAttribute(tp, n, t, true, fmt.Sprintf("%s %v is taken, but transformers main's result for this config is undefined: its rotary embedding builds the layer types "+
			"in list(set(layer_types)) order, which varies with PYTHONHASHSEED; the init of %s (standardize_rope_params) writes %v into every entry, so this rope type default "+
			"entry reads it when built after, and %s when built before, and then _init_weights, which rebuilds every type from the rewritten entries, fails copying "+
			"%d inverse frequencies into its %d (vLLM's patch_rope_parameters writes %v before the model is built)",
			from, tp.attr, strings.Join(tp.scaled, " and "), tp.attr, ownDesc, dims(head, tp.attr)/2, dims(head, eff)/2, tp.attr))
		return tp.attr, from, true, nil
	case tp.inUse[t]:
		why := fmt.Sprintf("%s writes the config's key into no entry, and a rope type default entry's init reads the entry alone (the whole head where it gives no fraction)", p.configClass())
		switch {
		case scaled || attribute && !tp.written:
			why = "standardize_rope_params writes it into the entries only when every key of rope_parameters is a value of layer_types, and this object's are not"
		case tp.written:
			why += "; transformers main's scaled types and vLLM (--as vllm) take the config's"
		}
		i := slices.IndexFunc(tp.leftBy, func(l leftBy) bool { return l.why == why })
		if i < 0 {
			i = len(tp.leftBy)
			tp.leftBy = append(tp.leftBy, leftBy{why: why})
		}
		tp.leftBy[i].paths = append(tp.leftBy[i].paths, n.path)
	}
	if !ownOK {
		return 0, "", false, nil
	}
	return own, path, true, nil
}

// takeAttribute records that entry n of layer type t takes the config attribute, and, when it
// has its own fraction, that its own is not read, for why.
func (p *parser) takeAttribute(tp *typePartial, n node, t string, own bool, why string) {
	if tp.inUse[t] {
		tp.takenBy = append(tp.takenBy, n.path)
	}
	if own {
		p.overridden = append(p.overridden, UnreadKey{Path: n.key("partial_rotary_factor"), Why: why})
	}
}

// typePartialNotes says which entries of a rope object keyed by layer type do not take the
// config's partial_rotary_factor: a warning when none does.
func (p *parser) typePartialNotes() {
	tp := p.partialTypes
	if tp == nil || !tp.aok || tp.apath == "" || len(tp.leftBy) == 0 {
		return
	}
	var why []string
	for _, l := range tp.leftBy {
		why = append(why, fmt.Sprintf("%s: %s", strings.Join(l.paths, ", "), l.why))
	}
	if len(tp.takenBy) == 0 {
		p.overridden = append(p.overridden, UnreadKey{Path: tp.apath, Why: "transformers main sizes these layer types by their own entries: " + strings.Join(why, "; ")})
		return
	}
	p.note("%s %v taken by %s only; transformers main sizes these layer types by their own entries: %s", tp.apath, tp.attr, strings.Join(tp.takenBy, ", "), strings.Join(why, "; "))
}

// readsEntryFraction reports whether the family's rotary embedding sizes a rope type default
// entry by its partial_rotary_factor (Zaya's does; the classes partialIgnoredTypes lists size
// it by head_dim alone).
func (p *parser) readsEntryFraction() bool {
	_, ignored := partialIgnoredTypes[p.m.ModelType]
	return !ignored
}

// dims is the rotary dim a fraction f of a head of head dims gives, truncated as HF does.
func dims(head int, f float64) int {
	d, _ := truncInt(float64(head) * f)
	return d
}

// attributeOnly reads the rotary fraction as transformers v4.57 does (RulePartialRotarySource
// "attribute-only"): its _compute_default_rope_parameters, _compute_dynamic_ntk_parameters,
// _compute_yarn_parameters and _compute_longrope_parameters (modeling_rope_utils.py, 59eba492)
// take getattr(config, "partial_rotary_factor", 1.0), the linear and llama3 ones through the
// first, and no model reads the key inside rope_scaling: the top-level key, else the config
// class's default. Rope object n's key, when it gives one, is not read.
func (p *parser) attributeOnly(n *node) (float64, string, bool, error) {
	s := &p.src
	f, path, ok, err := s.number(p.fractionKeys()...)
	if err != nil {
		return 0, "", false, err
	}
	if !ok && p.fam.partialKwarg {
		f, path, ok = p.fam.partial, p.configClass()+"'s default partial_rotary_factor", true
	}
	if n == nil {
		return f, path, ok, nil
	}
	own, ownOK, err := n.number("partial_rotary_factor")
	if ownOK && (!ok || own != f) {
		took := "the whole head rotates"
		if ok {
			took = fmt.Sprintf("%s %v is taken", path, f)
		} else if p.fam.partial != 0 {
			took = fmt.Sprintf("%s's fraction %v is taken", p.m.ModelType, p.fam.partial)
		}
		p.overridden = append(p.overridden, UnreadKey{Path: n.key("partial_rotary_factor"), Why: took + ", as transformers v4.57 does: its _compute_*_parameters read " +
			`getattr(config, "partial_rotary_factor", 1.0), never the rope object's`})
	}
	if err != nil && !s.lenient {
		return 0, "", false, err
	}
	return f, path, ok, nil
}

// wholeHeadDefault checks rope type default entry n (layer type t, for a head of head dims) of
// a family whose rotary embedding sizes that type's inv_freq by the entry's partial_rotary_factor
// while its attention rotates the whole head (layerRule.defaultSizedBy): the whole head rotates,
// and each fraction transformers main would read there whose table is not the head's is a
// warning. That is the entry's own, and in Case 2, beside a scaled entry, the config's
// attribute, which that entry's init writes into every entry (typePartial).
func (p *parser) wholeHeadDefault(ri ropeInfo, n node, t string, head int) error {
	rule := p.fam.layers
	if rule == nil || rule.defaultSizedBy == "" || ri.perType == "" {
		return nil
	}
	if rt, err := ropeType(n); err != nil || rt != "" && rt != "default" {
		return nil // scaling reports a bad type; proportional spans the head
	}
	own, ownOK, err := n.number("partial_rotary_factor")
	if err != nil && !p.src.lenient {
		return err
	}
	if inUse, err := p.typesInUse(); err == nil && !inUse[t] {
		return nil // never built
	}
	if what, fails := wholeHeadTable(rule.defaultSizedBy, head, own); ownOK && fails {
		p.fail(HFFailure{Key: n.key("partial_rotary_factor"), Fails: "apply_rotary_pos_emb", Error: "a shape mismatch: " + what, Reading: wholeHeadReading})
	} else if ownOK && what != "" {
		p.overridden = append(p.overridden, UnreadKey{Path: n.key("partial_rotary_factor"), Why: what})
	}
	if !ownOK {
		own = 1
	}
	if p.opts.choice(RulePartialRotarySource) == "attribute-only" {
		return nil
	}
	tp, err := p.readTypePartial(ri)
	if err != nil || !tp.aok || !tp.written || len(tp.scaled) == 0 || !tp.inUse[t] || tp.attr == own {
		return err
	}
	what, fails := wholeHeadTable(rule.defaultSizedBy, head, tp.attr)
	if what == "" {
		return nil
	}
	path := tp.apath
	if path == "" {
		path = n.key("partial_rotary_factor")
	}
	written := fmt.Sprintf("the init of %s (standardize_rope_params) writes %v into every entry of rope_parameters, and the rotary embedding builds the layer types "+
		"in list(set(layer_types)) order, so this entry is built with %v or with %v, and _init_weights rebuilds it with %v", strings.Join(tp.scaled, " and "), tp.attr, tp.attr, own, tp.attr)
	if fails {
		p.fail(HFFailure{Key: path, Fails: "apply_rotary_pos_emb", Error: fmt.Sprintf("a shape mismatch for %s: %s; %s", n.path, written, what), Reading: wholeHeadReading})
		return nil
	}
	p.overridden = append(p.overridden, UnreadKey{Path: path, Why: fmt.Sprintf("for %s, %s; %s", n.path, what, written)})
	return nil
}

// wholeHeadReading is the reading rotary takes for a rope type default entry whose table
// transformers main cannot apply (wholeHeadDefault).
const wholeHeadReading = "rotates the whole head with the entry's base, as the attention applies cos/sin"

// wholeHeadTable says what transformers main does with a rope type default entry whose rotary
// embedding emb sizes inv_freq by fraction f of a head of head dims that its attention rotates
// whole: "" when the table is the head's; fails when the cos/sin cannot be applied.
func wholeHeadTable(emb string, head int, f float64) (what string, fails bool) {
	d, ok := truncInt(float64(head) * f)
	width := 0 // torch.arange(0, d, 2) frequencies, each twice in cos/sin
	if d > 0 {
		width = 2 * ((d + 1) / 2)
	}
	sized := fmt.Sprintf("int(%d · %v) = %d dims", head, f, d)
	if !ok {
		sized = fmt.Sprintf("int(%d · %v), which overflows", head, f)
	}
	switch {
	case ok && d == head:
		return "", false
	case ok && width == head:
		return fmt.Sprintf("transformers main rotates the whole %d-wide head with %s.compute_default_rope_parameters' inv_freq over %s (base^(-2i/%d)), "+
			"which rotary does not model: the whole head's frequencies (base^(-2i/%d)) are taken", head, emb, sized, d, head), false
	}
	return fmt.Sprintf("%s.compute_default_rope_parameters sizes this rope type default entry's inv_freq by it (%s), and the %d-wide cos/sin are multiplied into the whole %d-wide head",
		emb, sized, width, head), true
}

// wholeHeadScaled records that transformers main cannot run a config whose scaled entry n sizes
// its tables by fraction factor (at path) to rd dims of a head of head dims, in a family whose
// attention multiplies cos/sin into the whole head (layerRule.defaultWholeHead: Gemma 4's
// apply_rotary_pos_emb never slices; partialIgnoredTypes: Llama's and the others'). The fraction
// is kept. t is the entry's layer type in a rope object keyed by layer type, whose rotary
// embedding builds only the types in use; "" for a rope object of one set of parameters.
func (p *parser) wholeHeadScaled(n node, t, path string, factor float64, rd, head int) {
	emb, whole := partialIgnoredTypes[p.m.ModelType]
	if rule := p.fam.layers; rule != nil && rule.defaultWholeHead {
		emb, whole = rotaryEmbeddings[p.m.ModelType], true
	}
	rt, scaled := p.entryType(n)
	if !whole || !scaled || rd == head {
		return
	}
	if inUse, err := p.typesInUse(); t != "" && err == nil && !inUse[t] {
		return // never built
	}
	p.fail(HFFailure{Key: path, Fails: "apply_rotary_pos_emb", Error: fmt.Sprintf("a shape mismatch: %s.__init__ sizes the cos/sin of %s by it through %s "+
		"(int(%d · %v) = %d of the %d-wide head), and the attention multiplies them into the whole head", emb, n.path, ropeInit(rt), head, factor, rd, head),
		Reading: fmt.Sprintf("keeps the fraction: %d of the %d dims rotate", rd, head)})
}
