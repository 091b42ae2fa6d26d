package hf

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/rope"
)

// layerRule is a family's per-layer RoPE as its HF config class and modeling code define it.
// The zero value: every layer has the same RoPE unless rope_parameters gives one per layer
// type.
type layerRule struct {
	// pattern: without layer_types, layer l is full_attention when (l+1) % pattern == 0 and
	// sliding_attention otherwise; the first of patternKeys the config gives overrides it.
	pattern     int
	patternKeys []string
	// slidingBase, when set, gives sliding layers a RoPE of their own even when the config
	// has no sliding_attention entry: default type (a flat rope_scaling or rope_parameters is
	// the full layers' alone) and rope_theta from the entry, else the config's slidingBaseKey,
	// else slidingBase.
	slidingBaseKey string
	slidingBase    float64
	nope           nopeRule
	// fullHeadKey names the full_attention layers' head size where it differs from head_dim
	// (the spec's head; fullHead when the config lacks the key); the other types keep head_dim.
	fullHeadKey string
	fullHead    int
	// defaultWholeHead: the family's default rope type rotates the whole head whatever
	// partial_rotary_factor says, and its attention multiplies cos/sin into the whole head, so
	// that a scaled entry's tables sized by a fraction below 1 cannot be applied
	// (wholeHeadScaled).
	defaultWholeHead bool
	// defaultSizedBy names the rotary embedding whose rope type default sizes inv_freq by the
	// entry's partial_rotary_factor although the family's attention rotates the whole head:
	// the whole head rotates, and a fraction whose table is not the head's is a warning
	// (wholeHeadDefault).
	defaultSizedBy string
	// lastFull: the last layer is full_attention whatever layer_types says, and layer types
	// derived from pattern end with a full layer.
	lastFull bool
	// deepseekV4Types: without layer_types, DeepSeek-V4's compress_ratios or default pattern
	// (deepseekV4Types).
	deepseekV4Types bool
}

// nopeRule says which layers a family leaves unrotated.
type nopeRule uint8

const (
	nopeNone nopeRule = iota
	// nopeList: no_rope_layers (1 = RoPE, 0 = none), else every no_rope_layer_interval-th
	// layer has none.
	nopeList
	// nopeListFalsy: nopeList where an empty list counts as absent.
	nopeListFalsy
	// nopeUnlessSliding: only sliding_attention layers rotate, and none when sliding_window
	// is null.
	nopeUnlessSliding
	// nopeUnlessSlidingWindowed: with a sliding_window, only sliding_attention layers rotate;
	// with a null one, every layer does.
	nopeUnlessSlidingWindowed
)

// Family rules, each from huggingface/transformers main, src/transformers/models/<type>/, as
// mirrored at zucchini-nlp/transformers decba1d (2026-08-19).
var (
	// Gemma3TextConfig (configuration_gemma3.py): convert_rope_params_to_dict gives sliding
	// layers rope_local_base_freq and no scaling; __post_init__ builds layer_types from
	// sliding_window_pattern (default 6) when they are absent.
	gemma3Layers = &layerRule{pattern: 6, patternKeys: []string{"sliding_window_pattern", "_sliding_window_pattern"},
		slidingBaseKey: "rope_local_base_freq", slidingBase: 10000}
	// Gemma3nTextConfig.convert_rope_params_to_dict (configuration_gemma3n.py): rope_scaling
	// updates full_attention only; sliding_attention takes rope_local_base_freq (default
	// 10000). __post_init__: layer_types default to full when (i+1) % 5 == 0.
	gemma3nLayers = &layerRule{pattern: 5, slidingBaseKey: "rope_local_base_freq", slidingBase: 10000}
	// Olmo3Config.convert_rope_params_to_dict (configuration_olmo3.py): rope_scaling updates
	// full_attention only; full_attention's setdefault pops the config's rope_theta, so
	// sliding_attention falls back to default_theta 500000. __post_init__: layer_types default
	// to full when (i+1) % 4 == 0. Olmo3RotaryEmbedding (modeling_olmo3.py) builds one
	// inv_freq per layer type.
	olmo3Layers = &layerRule{pattern: 4, slidingBase: 500000}
	// Cohere2Attention.forward (modeling_cohere2.py) rotates only when the layer has a
	// sliding window: sliding layers whose config.sliding_window is not None. Cohere2Config:
	// layer_types default to sliding when (i+1) % sliding_window_pattern (default 4) != 0.
	cohere2Layers = &layerRule{pattern: 4, patternKeys: []string{"sliding_window_pattern"}, nope: nopeUnlessSliding}
	// Exaone4Attention.forward (modeling_exaone4.py): "if self.sliding_window is None or
	// self.is_sliding" rotate. Exaone4Config: layer_types default to sliding when
	// (i+1) % sliding_window_pattern (default 4) != 0.
	exaone4Layers = &layerRule{pattern: 4, patternKeys: []string{"sliding_window_pattern"}, nope: nopeUnlessSlidingWindowed}
	// Llama4TextConfig.__post_init__ (configuration_llama4.py): "self.no_rope_layers if
	// self.no_rope_layers else default", the default 0 when (i+1) % no_rope_layer_interval
	// == 0; Llama4TextAttention rotates when no_rope_layers[layer_idx] is 1.
	llama4Layers = &layerRule{nope: nopeListFalsy}
	// SmolLM3Config.__post_init__ (configuration_smollm3.py): the default list only when
	// no_rope_layers is None; SmolLM3Attention rotates when no_rope_layers[layer_idx] is 1.
	smollm3Layers = &layerRule{nope: nopeList}
	// Gemma4TextConfig.__post_init__ (configuration_gemma4.py): layer_types default to full
	// when (i+1) % 6 == 0, and the last layer is forced to full_attention; full layers take
	// head_dim from global_head_dim (default 512) through per_layer_config.
	// Gemma4TextRotaryEmbedding (modeling_gemma4.py) builds each type's inv_freq from that
	// type's config; its compute_default_rope_parameters spans the whole head_dim.
	gemma4Layers = &layerRule{pattern: 6, fullHeadKey: "global_head_dim", fullHead: 512, defaultWholeHead: true, lastFull: true}
	// DiffusionGemmaTextConfig (configuration_diffusion_gemma.py) has Gemma 4's layer types and
	// heads, and DiffusionGemmaTextAttention (modeling_diffusion_gemma.py) Gemma 4's
	// apply_rotary_pos_emb, which multiplies cos/sin into the whole head; but
	// DiffusionGemmaTextRotaryEmbedding.compute_default_rope_parameters sizes inv_freq by
	// int(head_dim · rope_parameters[layer_type].get("partial_rotary_factor", 1.0)).
	diffusionGemmaLayers = withDefaultSizedBy(gemma4Layers, "DiffusionGemmaTextRotaryEmbedding")
	// MellumRotaryEmbedding (modeling_mellum.py, LagunaRotaryEmbedding's) builds each layer
	// type's inv_freq from its rope_parameters entry, compute_default_rope_parameters over
	// int(head_dim · rope_parameters[layer_type].get("partial_rotary_factor", 1.0)) ("key
	// difference to gemma3: partial rope"); MellumAttention is Qwen3MoeAttention, whose
	// apply_rotary_pos_emb multiplies cos/sin into the whole head. MellumConfig.__post_init__
	// makes every layer full_attention when layer_types is absent.
	mellumLayers = &layerRule{defaultWholeHead: true, defaultSizedBy: "MellumRotaryEmbedding"}
)

// withDefaultSizedBy is rule r with defaultSizedBy emb.
func withDefaultSizedBy(r *layerRule, emb string) *layerRule {
	c := *r
	c.defaultSizedBy = emb
	return &c
}

// fullHeadSize gives the spec (the full_attention layers) the family's full-layer head size
// and keeps head for the other layer types; it returns the spec's head size.
func (p *parser) fullHeadSize(head int) (int, error) {
	rule := p.fam.layers
	if rule == nil || rule.fullHeadKey == "" {
		return head, nil
	}
	full, other, ok, err := p.perLayerHeads(*rule, head)
	if err != nil {
		return 0, err
	}
	if !ok {
		other = head
		if full, _, ok, err = p.src.positive(rule.fullHeadKey); err != nil {
			return 0, err
		}
		if !ok {
			full = rule.fullHead
			p.note("%s absent: full_attention layers use %s's default head size %d", rule.fullHeadKey, p.m.ModelType, full)
		}
	}
	p.typeHead = other
	p.m.Spec.HeadSize = full
	return full, nil
}

// perLayerHeads reads the head sizes from per_layer_config, the layer overrides keyed by layer
// index that transformers main writes (configuration_utils.py, HeterogeneousConfigMixin) and
// that take the place of global_head_dim (Gemma4TextConfig.__post_init__ derives them only
// when the config has none): the full_attention layers' head_dim and the other layers', each
// one size for all layers of its kind, as Gemma4TextRotaryEmbedding reads one config per
// layer type. ok is false when the config has no per_layer_config.
func (p *parser) perLayerHeads(rule layerRule, head int) (full, other int, ok bool, err error) {
	path, v, given := p.src.given("per_layer_config")
	if !given {
		return 0, 0, false, nil
	}
	obj, err := asObject(path, v)
	if err != nil {
		return 0, 0, false, err
	}
	types, err := p.layerTypes()
	if err == nil {
		types, err = p.lastFull(rule, types)
	}
	if err != nil {
		return 0, 0, false, err
	}
	if types == nil {
		return 0, 0, false, configErr("%s: needs layer_types or num_hidden_layers to say which layers are full_attention", path)
	}
	heads := make([]int, len(types))
	for i := range heads {
		heads[i] = head
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		l, err := strconv.Atoi(k)
		if err != nil || l < 0 || l >= len(types) {
			return 0, 0, false, configErr("%s.%s: want a layer index 0..%d", path, k, len(types)-1)
		}
		ov, err := asObject(path+"."+k, obj[k])
		if err != nil {
			return 0, 0, false, err
		}
		n := node{path: path + "." + k, m: ov}
		if h, hok, err := n.integer("head_dim"); err != nil {
			return 0, 0, false, err
		} else if hok {
			if h <= 0 || h > 1<<16 {
				return 0, 0, false, configErr("%s: %d: want 1..65536", n.key("head_dim"), h)
			}
			heads[l] = h
		}
	}
	full, other = -1, -1
	for l, t := range types {
		size := &other
		if t == rope.FullAttention {
			size = &full
		}
		if *size >= 0 && *size != heads[l] {
			return 0, 0, false, configErr("%s: layer %d's head_dim %d differs from %d on another %s layer: want one head size per layer type", path, l, heads[l], *size, t)
		}
		*size = heads[l]
	}
	if full < 0 {
		full = head
	}
	if other < 0 {
		other = head
	}
	return full, other, true, nil
}

// local sets Spec.Local from the per-layer-type entries of the rope object, the family's
// sliding rule and its layers without RoPE; it stays nil when every layer has the spec's RoPE.
func (p *parser) local(ri ropeInfo) error {
	rule := layerRule{}
	if p.fam.layers != nil {
		rule = *p.fam.layers
	}
	entries := maps.Clone(ri.types)
	if entries == nil {
		entries = map[string]node{}
	}
	if _, ok := entries[rope.SlidingAttention]; !ok && rule.slidingBase != 0 {
		entries[rope.SlidingAttention] = node{path: "sliding_attention", m: object{}}
	}
	lr := &rope.LocalRoPE{}
	var ruled []string // the entries that gave a rule, for the note when nothing places them
	for _, t := range slices.Sorted(maps.Keys(entries)) {
		given, err := p.typeRule(ri, lr, t, entries[t], rule)
		if err != nil {
			return err
		}
		if given {
			ruled = append(ruled, entries[t].path)
		}
	}
	types, err := p.layerTypes()
	if err != nil {
		return err
	}
	if types == nil && rule.deepseekV4Types {
		if types, err = p.deepseekV4Types(); err != nil {
			return err
		}
	}
	if rule.lastFull {
		if types, err = p.lastFull(rule, types); err != nil {
			return err
		}
	}
	if err := p.entriesCover(ri, entries, types); err != nil {
		return err
	}
	if err := p.nope(lr, rule, types); err != nil {
		return err
	}
	typed := lr.Base != 0 || len(lr.Types) > 0
	if !typed && lr.NoRoPE == nil {
		return nil
	}
	if typed && types == nil {
		if lr.Pattern, err = p.pattern(rule); err != nil {
			return err
		}
		if lr.Pattern == 0 {
			for _, path := range ruled {
				p.note("%s ignored: no layer_types to say which layers slide", path)
			}
			lr.Base, lr.Types = 0, nil
			if lr.NoRoPE == nil {
				return nil
			}
		}
	}
	if typed && types != nil {
		if p.m.NumLayers > 0 && len(types) != p.m.NumLayers {
			return configErr("layer_types: %d entries: want one per layer (num_hidden_layers = %d)", len(types), p.m.NumLayers)
		}
		lr.LayerTypes = types
		// A type whose entry matched the spec's own RoPE gave no rule; Validate wants every
		// type other than full and sliding named, and a type with no entry at all is an error
		// (HF's rotary embeddings look every layer type up in rope_parameters).
		for _, t := range types {
			_, ruled := lr.Types[t]
			if _, entry := entries[t]; entry && !ruled && t != rope.SlidingAttention {
				setType(lr, t, rope.LayerRoPE{Base: p.m.Spec.Base, Scaling: p.m.Spec.Scaling})
			}
		}
	}
	p.m.Spec.Local = lr
	p.noteUnrotated()
	return nil
}

// entriesCover refuses a rope object keyed by layer type that has no entry for one of the
// layer types: standardize_rope_params (modeling_rope_utils.py) and the per-type rotary
// embeddings (Gemma4TextRotaryEmbedding.__init__ among them) index rope_parameters by every
// layer_types value, so HF cannot build such a model, and its layers would otherwise take the
// full_attention entry's RoPE and head. A family rule that gives sliding layers their own RoPE
// supplies that entry (entries holds it).
func (p *parser) entriesCover(ri ropeInfo, entries map[string]node, types []string) error {
	if ri.perType == "" {
		return nil
	}
	for i, t := range types {
		if _, ok := entries[t]; !ok && t != rope.FullAttention {
			return configErr("layer_types[%d] %q: no entry in %s (HF indexes it by every layer type)", i, t, ri.perType)
		}
	}
	return nil
}

// maxDerivedLayers bounds the per-layer lists hf builds from a layer count alone, so that
// an absurd num_hidden_layers costs an error, not its size in memory and time.
const maxDerivedLayers = 1 << 16

// noteUnrotated lists the layers without RoPE, which the model's own spec does not show.
func (p *parser) noteUnrotated() {
	var layers []string
	for l := range min(p.m.NumLayers, maxDerivedLayers) {
		if s, err := p.m.Spec.ForLayer(l); err == nil && s.NoRoPE {
			layers = append(layers, strconv.Itoa(l))
		}
	}
	if len(layers) > 0 {
		p.note("layers without RoPE (ForLayer, --layer N): %s of %d", strings.Join(layers, ", "), p.m.NumLayers)
	}
}

// typeRule reads the rope_parameters entry of layer type t and records how it differs from
// the spec's own RoPE: a sliding layer with only another base gets Gemma 3's form (Base),
// anything else a Types entry. given is false when the entry is the spec's RoPE.
func (p *parser) typeRule(ri ropeInfo, lr *rope.LocalRoPE, t string, n node, rule layerRule) (given bool, err error) {
	spec := &p.m.Spec
	r := rope.LayerRoPE{Base: spec.Base}
	head := spec.HeadSize
	if p.typeHead != 0 && t != rope.FullAttention {
		head = p.typeHead
	}
	// An entry without rope_theta: the families with a sliding rule give sliding layers their
	// own default; entryTheta says what the others' rotary embeddings do.
	if b, ok, err := n.number("rope_theta"); err != nil {
		return false, err
	} else if ok {
		if !(b > 0) {
			return false, configErr("%s: %v: want a number > 0", n.key("rope_theta"), b)
		}
		r.Base = b
	} else if t == rope.SlidingAttention && rule.slidingBase != 0 {
		if r.Base, err = p.slidingBase(rule); err != nil {
			return false, err
		}
	} else if r.Base, err = p.entryTheta(ri, n, t, r.Base); err != nil {
		return false, err
	}
	if r.Scaling, err = p.scaling(n); err != nil {
		return false, err
	}
	if err := p.proportional(&r.Scaling, ri, t, n, head); err != nil {
		return false, err
	}
	if r.RotaryDim, err = p.typeRotaryDim(ri, t, n, head); err != nil {
		return false, err
	}
	sameDims := r.RotaryDim == spec.RotaryDim && head == spec.HeadSize
	switch {
	case r.Base == spec.Base && reflect.DeepEqual(r.Scaling, spec.Scaling) && sameDims:
		return false, nil
	case t == rope.SlidingAttention && r.Scaling.Type == rope.ScalingDefault && sameDims:
		lr.Base = r.Base
	default:
		if sameDims {
			r.RotaryDim = 0
		} else if head != spec.HeadSize {
			r.HeadSize = head
		}
		setType(lr, t, r)
	}
	return true, nil
}

// typeRotaryDim is the rotary dim of entry n (layer type t) of rope object ri for a head of head
// dims: the whole head where the entry's type ignores partial_rotary_factor (wholeHead); else a
// config-level rotary_dim where the class reads it; else the fraction typeFactor reads, else the
// family's, else the whole head.
func (p *parser) typeRotaryDim(ri ropeInfo, t string, n node, head int) (int, error) {
	spec := &p.m.Spec
	if p.wholeHead(n) || ri.perType == "" {
		// An object not keyed by layer type is DeepSeek-V4's, keyed by rope-type label: the
		// spec's head is the rope slice its partial_rotary_factor sizes (deepseek_v4.go).
		return head, p.wholeHeadDefault(ri, n, t, head)
	}
	if rd, rpath, rok, err := p.rotaryDim(); err != nil || rok {
		if err == nil && head == spec.HeadSize {
			return spec.RotaryDim, nil
		}
		if err == nil && (rd <= 0 || rd%2 != 0 || rd > head) {
			err = configErr("%s: %d: want a positive even number ≤ the %d-wide head", rpath, rd, head)
		}
		return rd, err
	}
	factor, path, ok, err := p.typeFactor(ri, n, t, head)
	if err != nil {
		return 0, err
	}
	if ok {
		p.tookFraction(path)
	} else if factor, path = p.fam.partial, "partial_rotary_factor"; factor == 0 {
		return head, nil
	}
	if !(factor > 0 && factor <= 1) {
		return 0, configErr("%s: %v: want a fraction in (0, 1]", path, factor)
	}
	rd, _ := truncInt(float64(head) * factor) // HF truncates; the head is ≤ 65536
	if rd <= 0 || rd%2 != 0 {
		return 0, configErr("%s: %v of head size %d gives rotary dim %d: want a positive even number", path, factor, head, rd)
	}
	p.wholeHeadScaled(n, t, path, factor, rd, head)
	return rd, nil
}

// slidingBase is the sliding layers' rope_theta when their entry has none.
func (p *parser) slidingBase(rule layerRule) (float64, error) {
	if rule.slidingBaseKey != "" {
		b, path, ok, err := p.src.number(rule.slidingBaseKey)
		if err != nil {
			return 0, err
		}
		if ok {
			if !(b > 0) {
				return 0, configErr("%s: %v: want a number > 0", path, b)
			}
			return b, nil
		}
		p.note("%s absent: using %v", rule.slidingBaseKey, rule.slidingBase)
		return rule.slidingBase, nil
	}
	if p.m.Spec.Base != rule.slidingBase {
		p.note("sliding_attention layers use %s's default rope_theta %v, not the config's %v (HF's convert_rope_params_to_dict gives the config's rope_theta to full_attention only)", p.m.ModelType, rule.slidingBase, p.m.Spec.Base)
	}
	return rule.slidingBase, nil
}

// pattern is the family's layer-type period, from the config's key when it gives one.
func (p *parser) pattern(rule layerRule) (int, error) {
	if len(rule.patternKeys) == 0 {
		return rule.pattern, nil
	}
	if path, v, ok := p.src.given(rule.patternKeys...); ok {
		if s, isString := v.(string); isString {
			// EXAONE 4's configs spell the pattern "LLLG"; HF's config classes read only an
			// integer, and give layer_types beside the string.
			return 0, configErr("%s: %q: want an integer period (or give layer_types)", path, s)
		}
	}
	n, _, ok, err := p.src.positive(rule.patternKeys...)
	if err != nil || ok {
		return n, err
	}
	return rule.pattern, nil
}

// nope records the layers the family leaves unrotated.
func (p *parser) nope(lr *rope.LocalRoPE, rule layerRule, types []string) error {
	switch rule.nope {
	case nopeList, nopeListFalsy:
		return p.nopeList(lr, rule.nope == nopeListFalsy)
	case nopeUnlessSliding, nopeUnlessSlidingWindowed:
		windowed := !p.src.null("sliding_window")
		if !windowed && rule.nope == nopeUnlessSlidingWindowed {
			return nil
		}
		for _, t := range append([]string{rope.FullAttention, rope.SlidingAttention}, types...) {
			if t != rope.SlidingAttention || !windowed {
				setType(lr, t, rope.LayerRoPE{NoRoPE: true})
			}
		}
		if !windowed {
			p.note("sliding_window null: no layer has a sliding window, so no layer is rotated")
		}
	}
	return nil
}

// nopeList reads no_rope_layers (1 = RoPE, 0 = none), or derives it from
// no_rope_layer_interval over num_hidden_layers as the config classes do.
func (p *parser) nopeList(lr *rope.LocalRoPE, emptyIsAbsent bool) error {
	n := p.m.NumLayers
	path, v, ok := p.src.first("no_rope_layers")
	var flags []int
	if ok {
		var err error
		if flags, err = asInts(path, v); err != nil {
			return err
		}
	}
	if !ok || (len(flags) == 0 && emptyIsAbsent) {
		interval, _, ok, err := p.src.positive("no_rope_layer_interval")
		if err != nil {
			return err
		}
		if !ok {
			interval = 4
			p.note("no_rope_layer_interval absent: using 4")
		}
		if n == 0 {
			p.note("no_rope_layers absent and the layer count unknown: every layer is taken to rotate")
			return nil
		}
		if n > maxDerivedLayers {
			return configErr("num_hidden_layers %d: too many to derive no_rope_layers from no_rope_layer_interval (at most %d)", n, maxDerivedLayers)
		}
		flags = make([]int, n)
		for i := range flags {
			if (i+1)%interval != 0 {
				flags[i] = 1
			}
		}
		path = "no_rope_layers"
	}
	if len(flags) < n {
		return configErr("%s: %d entries: want one per layer (num_hidden_layers = %d)", path, len(flags), n)
	}
	nope := make([]bool, len(flags))
	some := false
	for i, f := range flags {
		if f != 0 && f != 1 {
			return configErr("%s[%d]: %d: want 1 (RoPE) or 0 (no RoPE)", path, i, f)
		}
		nope[i] = f == 0
		some = some || nope[i]
	}
	if some {
		lr.NoRoPE = nope
	}
	return nil
}

// lastFull is the layer types of a family whose last layer is always full_attention: the
// config's with the last one forced to full (as the config class does, with a warning), or
// derived from the family's pattern over num_hidden_layers; nil when neither is known.
func (p *parser) lastFull(rule layerRule, types []string) ([]string, error) {
	if types == nil {
		n := p.m.NumLayers
		if n == 0 {
			return nil, nil
		}
		if n > maxDerivedLayers {
			return nil, configErr("num_hidden_layers %d: too many to derive layer_types from (at most %d)", n, maxDerivedLayers)
		}
		types = make([]string, n)
		for i := range types {
			types[i] = rope.SlidingAttention
			if (i+1)%rule.pattern == 0 {
				types[i] = rope.FullAttention
			}
		}
		types[n-1] = rope.FullAttention
		return types, nil
	}
	if last := len(types) - 1; last >= 0 && types[last] != rope.FullAttention {
		p.note("layer_types[%d] %q taken as full_attention: %s's last layer is always full (its config class forces it)", last, types[last], p.m.ModelType)
		types = slices.Clone(types)
		types[last] = rope.FullAttention
	}
	return types, nil
}

// setType gives layer type t the RoPE r.
func setType(lr *rope.LocalRoPE, t string, r rope.LayerRoPE) {
	if lr.Types == nil {
		lr.Types = map[string]rope.LayerRoPE{}
	}
	lr.Types[t] = r
}

func (p *parser) layerTypes() ([]string, error) {
	path, v, ok := p.src.first("layer_types")
	if !ok {
		return nil, nil
	}
	types, err := asStrings(path, v)
	if err != nil || p.fam.typeNames == nil {
		return types, err
	}
	for i, t := range types {
		if to, ok := p.fam.typeNames[t]; ok {
			types[i] = to
		}
	}
	return types, nil
}

// null reports whether the config gives key as JSON null (which the readers otherwise take
// for absent): in the text model, else at the top level of a nested config.
func (s *source) null(key string) bool {
	for _, n := range s.levels(key) {
		if n == nil {
			continue
		}
		if v, ok := n.m[key]; ok {
			return v == nil
		}
	}
	return false
}
