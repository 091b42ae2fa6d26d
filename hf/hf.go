package hf

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/rope"
)

// Model is what a config.json says about a model's attention and RoPE.
type Model struct {
	// ModelType is the text model's model_type: text_config's when the text model is
	// nested (e.g. "qwen3_vl_text"), else the top-level one.
	ModelType string
	// TopModelType is the top-level model_type (e.g. "qwen3_vl"); equal to ModelType when
	// the config does not nest a text_config.
	TopModelType string
	Spec         rope.Spec
	NumLayers    int // 0 when the config does not say
	NumHeads     int
	NumKVHeads   int
	HeadSize     int // == Spec.HeadSize (for MLA models: qk_rope_head_dim)
	// Notes are non-fatal observations: keys that were defaulted or read from the top
	// level of a nested config, parts of the model the Spec does not describe.
	Notes []string
	// Unread are the keys that may change the RoPE but were not read: rope-object keys the
	// variant does not use, near misses of RoPE keys (UnreadKey). Each is a warning:
	// rotary inspect and check print them, and --strict refuses the config.
	Unread []UnreadKey
	// HFFails are the reasons transformers main cannot run the config (HFFailure), each with
	// the reading Spec takes in its place. Each is a warning, as Unread's are.
	HFFails []HFFailure
	// StyleAssumed is true when the model_type is not a family hf knows and no
	// ParseOptions.Style named the pairing: Spec.Style is NeoX by assumption, not by record.
	StyleAssumed bool
	styleWhy     string // the reason for the assumed pairing, for Assumption
	mropeWhy     string // the MRoPE layout an unknown family's sections were read as, for Assumption
	// Indexer is the RoPE of DeepSeek-V3.2's lightning indexer (deepseek_v32 configs with
	// index_head_dim), which rotates the same positions as Spec with the same cos/sin but pairs
	// NeoX-wise over the first qk_rope_head_dim dims of a wider head; nil for other models.
	Indexer *rope.Spec
}

// MaxConfigSize is the largest config.json LoadFile reads (64 MiB). Real configs are a few
// kilobytes; anything near this is not a config, and reading it would cost its size.
const MaxConfigSize = 64 << 20

// LoadFile reads and parses a config.json: path names the file, or a model directory (a
// checkpoint as Hugging Face downloads it) holding one. The file must be regular and of at most
// MaxConfigSize bytes; anything else (a pipe, a device, a directory without config.json, a
// larger file) is refused with an error naming the path, before it is read.
func LoadFile(path string) (*Model, error) { return ParseOptions{}.LoadFile(path) }

// ReadConfig reads a config.json's bytes under LoadFile's rules (path a file, or a model
// directory holding config.json), for readers that want the JSON rather than a Model.
func ReadConfig(path string) ([]byte, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		inner := filepath.Join(path, "config.json")
		if _, err := os.Stat(inner); err != nil {
			return nil, fmt.Errorf("hf: %s: not a regular file, and no config.json in it (want a config.json or a model directory holding one)", path)
		}
		path = inner
	}
	data, err := fileio.ReadFile(path, MaxConfigSize)
	if err != nil {
		return nil, fmt.Errorf("hf: %w", err)
	}
	return data, nil
}

// Parse derives a Model from the bytes of a HuggingFace config.json. Every error wraps
// ErrConfig and names the key and what was expected; an error from Spec.Validate also
// wraps rope.ErrSpec, and the error for a model without RoPE wraps ErrNoRoPE. Parse never
// panics on any input. ParseOptions.Parse takes options.
func Parse(data []byte) (*Model, error) { return ParseOptions{}.Parse(data) }

// source looks keys up in the text model, then (for a nested text_config) the top level,
// then the family's defaults; JSON null counts as absent at every level.
type source struct {
	text     node
	top      *node // nil unless text is a nested text_config
	defaults map[string]any
	famName  string
	// ignored are keys the family's config class does not read (family.ignores): given skips
	// them in the config.
	ignored []string
	// aliases are the family's names for hf's keys (family.attributeMap).
	aliases map[string]string
	// topWins are the keys the wrapper (a class named wrapper) takes from the top level of a
	// nested config over text_config's (configClass.topWins).
	topWins []string
	// wrapper is the class of a nested config's top level when hf knows it: it builds the text
	// model from text_config (and the topWins keys) alone, so no other top-level key is read.
	// Under a wrapper hf does not know, a key text_config lacks is read from the top level.
	wrapper string
	// headsDivide: the config class refuses a hidden_size the heads do not divide
	// (configClass.headsDivide); famName names it.
	headsDivide bool
	notes       *[]string
	// lenient reads for ReadRaw: a value of the wrong kind or out of range counts as absent,
	// and the head-size rules take what the config gives without refusing it.
	lenient bool
}

// first returns the first of keys present, searching every key at one level before the next.
func (s *source) first(keys ...string) (string, any, bool) {
	if path, v, ok := s.given(keys...); ok {
		return path, v, true
	}
	for _, k := range keys {
		for _, name := range []string{k, s.aliases[k]} {
			if v, ok := s.defaults[name]; ok && name != "" {
				s.note("%s absent: using the %s default %v", name, s.famName, v)
				return name, v, true
			}
		}
	}
	return "", nil, false
}

// given is first without the family defaults.
func (s *source) given(keys ...string) (string, any, bool) {
	for _, k := range keys {
		if slices.Contains(s.ignored, k) {
			continue
		}
		if path, v, ok, folded := s.topFirst(k); ok || folded {
			if ok {
				return path, v, true
			}
			continue
		}
		if path, v, ok := s.text.get(k); ok {
			return path, v, true
		}
		if alias, ok := s.aliases[k]; ok {
			if path, v, ok := s.text.dotted(alias); ok {
				return path, v, true
			}
		}
	}
	if s.top != nil {
		for _, k := range keys {
			if slices.Contains(s.ignored, k) {
				continue
			}
			if s.wrapper != "" {
				if path, _, ok := s.top.get(k); ok {
					s.note("%s at the top level not read: %s builds its text model from text_config alone, and text_config lacks it", path, s.wrapper)
				}
				continue
			}
			if path, v, ok := s.top.get(k); ok {
				s.note("%s read from the top level (text_config lacks it; the wrapper's config class is not one hf knows)", k)
				return path, v, true
			}
		}
	}
	return "", nil, false
}

func (s *source) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, n := range *s.notes {
		if n == msg {
			return
		}
	}
	*s.notes = append(*s.notes, msg)
}

func (s *source) number(keys ...string) (float64, string, bool, error) {
	path, v, ok := s.first(keys...)
	if !ok {
		return 0, "", false, nil
	}
	f, err := asNumber(path, v)
	if err != nil && s.lenient {
		return 0, path, false, nil
	}
	return f, path, err == nil, err
}

func (s *source) integer(keys ...string) (int, string, bool, error) {
	path, v, ok := s.first(keys...)
	if !ok {
		return 0, "", false, nil
	}
	i, err := asInt(path, v)
	if err != nil && s.lenient {
		return 0, path, false, nil
	}
	return i, path, err == nil, err
}

func (s *source) boolean(keys ...string) (bool, bool, error) {
	path, v, ok := s.first(keys...)
	if !ok {
		return false, false, nil
	}
	b, err := asBool(path, v)
	if err != nil && s.lenient {
		return false, false, nil
	}
	return b, err == nil, err
}

// positive reads a required-when-present integer that must be ≥ 1.
func (s *source) positive(keys ...string) (int, string, bool, error) {
	i, path, ok, err := s.integer(keys...)
	if err != nil || !ok {
		return 0, path, ok, err
	}
	if i <= 0 {
		if s.lenient {
			return 0, path, false, nil
		}
		return 0, path, false, configErr("%s: %d: want a positive integer", path, i)
	}
	return i, path, true, nil
}

type parser struct {
	opts    ParseOptions
	src     source
	fam     family
	unknown bool // the model_type is not in families: read as a generic decoder
	notes   []string
	m       Model

	// typeHead is the head size of the layer types other than full_attention when the family
	// gives full layers a head of their own (Gemma 4's global_head_dim); 0 otherwise.
	typeHead int
	// overridden are the keys a value given elsewhere was taken over (rope_theta.go,
	// partial_source.go), for Model.Unread.
	overridden []UnreadKey
	// partialTypes decides the rotary fraction of a rope object keyed by layer type
	// (partial_types.go); nil until an entry needs it.
	partialTypes *typePartial
	// fractionFrom are the keys a rotary dim was sized by (rotary_pct.go).
	fractionFrom map[string]bool
	// rotaryDimRead: a rotary dim was sized by the config's rotary_dim (rotary_dim.go).
	rotaryDimRead bool
	// fails are the reasons transformers main cannot run the config, for Model.HFFails.
	fails []HFFailure
	// baseFrom names where the spec's base was read (rope_theta.go), for the failures.
	baseFrom string
}

func (p *parser) note(format string, args ...any) { p.src.note(format, args...) }

func (p *parser) parse(top object) (*Model, error) {
	if err := p.resolve(top); err != nil {
		return nil, err
	}
	if err := p.unsupported(); err != nil {
		return nil, err
	}
	if err := p.heads(); err != nil {
		return nil, err
	}
	ri, err := p.ropeObject()
	if err != nil {
		return nil, err
	}
	if err := p.headSize(ri); err != nil {
		return nil, err
	}
	if err := p.base(ri); err != nil {
		return nil, err
	}
	if err := p.maxPositions(); err != nil {
		return nil, err
	}
	if err := p.style(); err != nil {
		return nil, err
	}
	if ri.main != nil {
		if p.m.Spec.Scaling, err = p.scaling(*ri.main); err != nil {
			return nil, err
		}
	} else {
		p.m.Spec.Scaling = rope.Scaling{Type: rope.ScalingDefault}
	}
	if ri.main != nil {
		if err := p.proportional(&p.m.Spec.Scaling, ri, rope.FullAttention, *ri.main, p.m.Spec.HeadSize); err != nil {
			return nil, err
		}
	}
	if err := p.mrope(ri.main); err != nil {
		return nil, err
	}
	if err := p.local(ri); err != nil {
		return nil, err
	}
	p.typePartialNotes()
	if err := p.dualChunk(); err != nil {
		return nil, err
	}
	if p.fam.note != "" {
		p.note("%s: %s", p.m.ModelType, p.fam.note)
	}
	if err := p.queryScale(ri); err != nil {
		return nil, err
	}

	if err := p.m.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := p.indexer(); err != nil {
		return nil, err
	}
	p.m.HeadSize = p.m.Spec.HeadSize
	p.aliasesUnread()
	p.ropePctUnread()
	p.rotaryDimUnread()
	p.m.Notes = p.notes
	p.m.HFFails = p.fails
	p.m.Unread = notFailed(p.unread(ri), p.fails)
	out := p.m
	return &out, nil
}

// textConfig finds the text model the spec describes in a decoded config.json: an Omni model's
// thinker_config (Qwen2_5OmniConfig, Qwen3OmniMoeConfig nest the thinker, whose text model it
// is), then a nested text_config. wrapper is the object holding text_config (the top level or
// the thinker), read after it; without a nested text_config, text is wrapper and nested false.
// Both the parse and the dialects' key rewriting look keys up through it, so they see the same
// objects.
func textConfig(top object) (wrapper, text node, nested bool, err error) {
	wrapper = node{m: top}
	if path, v, ok := wrapper.get("thinker_config"); ok {
		th, err := asObject(path, v)
		if err != nil {
			return node{}, node{}, false, err
		}
		wrapper = node{path: path, m: th}
	}
	text = wrapper
	if path, v, ok := wrapper.get("text_config"); ok {
		tc, err := asObject(path, v)
		if err != nil {
			return node{}, node{}, false, err
		}
		text, nested = node{path: path, m: tc}, true
	}
	return wrapper, text, nested, nil
}

// resolve finds the text model (nested or not) and its family, and sets up the key source.
func (p *parser) resolve(top object) error {
	topNode, text, nested, err := textConfig(top)
	if err != nil {
		return err
	}
	topType, hasTop, err := optString(topNode, "model_type")
	if err != nil {
		return err
	}
	innerType, hasInner, err := optString(text, "model_type")
	if err != nil {
		return err
	}
	// An empty model_type names no family, and would leave Model.ModelType empty.
	hasTop, hasInner = hasTop && topType != "", hasInner && innerType != ""
	if !hasTop && !hasInner {
		return configErr("model_type: missing (want one of %s)", knownList())
	}

	modelType := topType
	if nested && hasInner {
		modelType = innerType
	}
	famName := modelType
	fam, ok := families[modelType]
	if !ok && hasTop {
		// A wrapper whose nested text model_type is unknown or absent (qwen2_vl files).
		fam, ok = families[topType]
		famName = topType
	}
	if !hasTop {
		topType = modelType
	}
	if !ok {
		for _, t := range []string{modelType, topType} {
			if uses, no := noRoPE[t]; no {
				return noRoPEError(t, uses)
			}
		}
	}

	p.fam = fam
	p.m.ModelType, p.m.TopModelType = modelType, topType
	text.read = map[string]bool{}
	p.src = source{text: text, defaults: fam.defaults, famName: famName, notes: &p.notes, ignored: fam.ignores, aliases: fam.attributeMap}
	for _, k := range fam.ignores {
		if path, _, ok := text.get(k); ok {
			p.note("%s ignored: %s does not read it", path, fam.class)
		}
	}
	if nested {
		topNode.read = map[string]bool{}
		p.src.top = &topNode
	}
	wc := configClasses[topType]
	if hasTop {
		p.src.topWins, p.src.wrapper = wc.topWins, wc.wrapper
	}
	p.src.addClassDefaults(nested, p.opts.ignoresRopeParameters())
	// After the defaults, so that ReadRaw, which reads on past this error, has them.
	if hasTop && !nested && wc.flatText != "" {
		if err := refuseFlatWrapper(topNode, topType, wc); err != nil {
			return err
		}
	}
	if !ok {
		return p.unknownFamily(hasTop && modelType != topType)
	}
	return nil
}

// unknownFamily reads a model_type outside the family table for what its config says. Keys
// that switch RoPE off (qk_rope_head_dim 0, use_rope false, a position_embedding_type other
// than rope) mean no RoPE (ErrNoRoPE). Otherwise it is read as a generic decoder when its
// config has the keys every RoPE decoder's does (hidden_size, num_attention_heads and
// rope_theta or a rope object), and anything else is refused: without those keys the config
// may not describe RoPE at all. MLA keys (qk_rope_head_dim, kv_lora_rank) mean only the
// qk_rope_head_dim part rotates, as in every MLA family, paired (2i, 2i+1) as all of them do
// (DeepseekV3, Mistral4, GlmMoeDsa, LongcatFlash); other models pair NeoX-wise, the layout of
// most Hugging Face checkpoints (rotate_half). config.json does not record the pairing, so
// unless ParseOptions.Style names it, or rope_interleave does for MLA, it is assumed and
// Model.Assumption says so.
func (p *parser) unknownFamily(wrapped bool) error {
	name := fmt.Sprintf("%q", p.m.ModelType)
	if wrapped {
		name = fmt.Sprintf("%q (top level %q)", p.m.ModelType, p.m.TopModelType)
	}
	for _, t := range []string{p.m.ModelType, p.m.TopModelType} {
		if why, ok := unrepresentable[t]; ok {
			return configErr("model_type %q is not supported: %s", t, why)
		}
	}
	if why, err := p.switchedOff(); err != nil || why != "" {
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: %w: model_type %s: %s", ErrConfig, ErrNoRoPE, name, why)
	}
	var missing []string
	for _, keys := range [][]string{{"hidden_size"}, {"num_attention_heads"}, {"rope_theta", "rope_parameters", "rope_scaling"}} {
		if _, _, ok := p.src.given(keys...); !ok {
			missing = append(missing, strings.Join(keys, " or "))
		}
	}
	if missing != nil {
		return configErr("model_type %s is not supported and its config lacks %s, so it cannot be read as a generic RoPE decoder; known: %s",
			name, strings.Join(missing, ", "), knownList())
	}
	p.fam, p.unknown = family{style: rope.NeoX}, true
	generic := "a generic RoPE decoder"
	p.m.styleWhy = "the layout of most Hugging Face checkpoints (rotate_half)"
	_, _, rank := p.src.given("kv_lora_rank")
	_, _, ropePart := p.src.given("qk_rope_head_dim")
	if rank || ropePart {
		p.fam = family{style: rope.GPTJ, kind: kindDeepSeek}
		generic = "an MLA decoder (kv_lora_rank / qk_rope_head_dim: only the qk_rope_head_dim part rotates)"
		p.m.styleWhy = "MLA: every MLA family rotary knows pairs its rope part (2i, 2i+1)"
		if _, _, ok := p.src.given("rope_interleave"); ok && p.opts.Style == nil {
			p.note("model_type %s is not a known family: read as %s, pairing as rope_interleave says", name, generic)
			return nil
		}
	}
	if p.opts.Style != nil {
		p.note("model_type %s is not a known family: read as %s, pairing %s as the caller gave it", name, generic, *p.opts.Style)
		return nil
	}
	p.m.StyleAssumed = true
	pairing := "NeoX (i, i+d/2)"
	if p.fam.style == rope.GPTJ {
		pairing = "GPT-J (2i, 2i+1)"
	}
	p.note("model_type %s is not a known family: read as %s with %s pairing assumed (%s); a checkpoint paired otherwise needs ParseOptions.Style (rotary --style)", name, generic, pairing, p.m.styleWhy)
	return nil
}

// switchedOff is why an unknown family's config says it has no RoPE, "" when it does not.
func (p *parser) switchedOff() (string, error) {
	if d, path, ok, err := p.src.integer("qk_rope_head_dim"); err != nil {
		return "", err
	} else if ok && d == 0 {
		return path + " is 0: no part of the head is rotated", nil
	}
	if on, ok, err := p.src.boolean("use_rope"); err != nil {
		return "", err
	} else if ok && !on {
		return "use_rope is false", nil
	}
	if t, ok, err := optString(p.src.text, "position_embedding_type"); err != nil {
		return "", err
	} else if ok && t != "rope" && t != "rotary" {
		return fmt.Sprintf("position_embedding_type is %q, not rope", t), nil
	}
	return "", nil
}

// Assumption says what was assumed for a model_type hf does not know: the pairing, why, and the
// --style that names the other (ParseOptions.Style in Go), unless the family, the config or the
// caller named it; and the MRoPE layout its mrope_section was read as, which nothing names.
// "" when nothing was assumed.
func (m *Model) Assumption() string {
	if m == nil {
		return ""
	}
	var parts []string
	if m.StyleAssumed {
		other, pairs := rope.GPTJ, "(2i, 2i+1)"
		if m.Spec.Style == rope.GPTJ {
			other, pairs = rope.NeoX, "(i, i+d/2)"
		}
		parts = append(parts, fmt.Sprintf("%s pairing assumed (%s); --style %s if the checkpoint pairs %s, --style %s to confirm",
			m.Spec.Style, m.styleWhy, other, pairs, m.Spec.Style))
	}
	if m.mropeWhy != "" {
		parts = append(parts, m.mropeWhy)
	}
	if parts == nil {
		return ""
	}
	return fmt.Sprintf("model_type %q is not a known family: %s", m.ModelType, strings.Join(parts, "; "))
}

// unsupported rejects family variants whose positions are not RoPE as the Spec describes it.
func (p *parser) unsupported() error {
	var key, why string
	switch p.fam.kind {
	case kindGranite:
		path, v, ok := p.src.first("position_embedding_type")
		var pet string
		if ok {
			var err error
			if pet, err = asString(path, v); err != nil {
				return err
			}
		}
		if pet != "rope" {
			if !ok {
				pet = "absent (GraniteMoeHybridConfig's default None)"
			} else {
				pet = fmt.Sprintf("%q", pet)
			}
			return fmt.Errorf("%w: %w: model_type %q: position_embedding_type %s: its attention layers use no position embedding (NoPE); GraniteMoeHybridModel builds a rotary embedding only for \"rope\"",
				ErrConfig, ErrNoRoPE, p.m.ModelType, pet)
		}
		return nil
	case kindZamba2:
		on, ok, err := p.src.boolean("use_mem_rope")
		if err != nil {
			return err
		}
		if !on {
			given := "absent (Zamba2Config's default false)"
			if ok {
				given = "false"
			}
			return fmt.Errorf("%w: %w: model_type %q: use_mem_rope %s: Zamba2Attention rotates only with use_mem_rope, so its attention uses no position embedding",
				ErrConfig, ErrNoRoPE, p.m.ModelType, given)
		}
		return nil
	case kindFalcon:
		key, why = "alibi", "the model uses ALiBi, not RoPE"
	case kindChatGLM:
		key, why = "position_encoding_2d", "ChatGLM-6B's 2-D RoPE is not supported"
	default:
		return nil
	}
	on, ok, err := p.src.boolean(key)
	if err != nil {
		return err
	}
	if ok && on {
		return configErr("%s: true: %s", key, why)
	}
	return nil
}

// zamba2Head sets the head size and rotary dim of Zamba2's shared attention blocks:
// attention_head_dim when the config gives it, else 2·hidden_size / heads.
func (p *parser) zamba2Head() error {
	spec := &p.m.Spec
	head, _, ok, err := p.src.positive("attention_head_dim")
	if err != nil {
		return err
	}
	if !ok {
		hidden, hpath, hok, err := p.src.positive("hidden_size")
		if err != nil {
			return err
		}
		if p.src.lenient && (!hok || p.m.NumHeads == 0) {
			return nil
		}
		if !hok || 2*hidden%p.m.NumHeads != 0 && !p.src.lenient {
			return configErr("%s: 2 × %d is not divisible by the %d attention heads (and attention_head_dim is absent)", hpath, hidden, p.m.NumHeads)
		}
		head = 2 * hidden / p.m.NumHeads
		p.note("attention_head_dim absent: 2 × hidden_size / num_attention_heads = %d (Zamba2Config)", head)
	}
	spec.HeadSize, spec.RotaryDim = head, head
	return nil
}

func optString(n node, key string) (string, bool, error) {
	path, v, ok := n.get(key)
	if !ok {
		return "", false, nil
	}
	s, err := asString(path, v)
	if err != nil {
		return "", false, err
	}
	return s, true, nil
}

// heads reads the layer, attention-head and KV-head counts.
func (p *parser) heads() error {
	s := &p.src
	heads, _, ok, err := s.positive("num_attention_heads", "n_head", "num_heads")
	if err != nil {
		return err
	}
	if p.fam.kind == kindJetMoe {
		// JetMoeConfig.__post_init__ overwrites num_attention_heads, whatever the file says.
		kv, _, kok, err := s.positive("num_key_value_heads")
		if err != nil {
			return err
		}
		top, _, tok, err := s.positive("num_experts_per_tok")
		if err != nil {
			return err
		}
		if kok && tok {
			heads, ok = kv*top, true
			p.note("num_attention_heads = num_key_value_heads %d × num_experts_per_tok %d (JetMoeConfig)", kv, top)
		}
	}
	if !ok {
		return configErr("num_attention_heads: missing (also looked for n_head, num_heads)")
	}
	p.m.NumHeads = heads
	if err := p.headsDivideHidden(); err != nil {
		return err
	}

	layers, _, ok, err := s.positive("num_hidden_layers", "n_layer", "num_layers")
	if err != nil {
		return err
	}
	if !ok {
		p.note("num_hidden_layers absent: layer count unknown")
	}
	p.m.NumLayers = layers

	kv, kvPath, err := p.kvHeads(heads)
	if err != nil {
		return err
	}
	if kv > heads || heads%kv != 0 {
		return configErr("%s: %d: want a divisor of num_attention_heads (%d)", kvPath, kv, heads)
	}
	p.m.NumKVHeads = kv
	return nil
}

func (p *parser) kvHeads(heads int) (int, string, error) {
	s := &p.src
	if kv, path, ok, err := s.positive("num_key_value_heads"); err != nil || ok {
		return kv, path, err
	}
	switch p.fam.kind {
	case kindChatGLM:
		mqa, present, err := s.boolean("multi_query_attention")
		if err != nil {
			return 0, "", err
		}
		if present && !mqa {
			return heads, "num_attention_heads", nil
		}
	case kindFalcon:
		newArch, _, err := s.boolean("new_decoder_architecture")
		if err != nil {
			return 0, "", err
		}
		mq, present, err := s.boolean("multi_query")
		if err != nil {
			return 0, "", err
		}
		if !newArch {
			if !present {
				// FalconConfig's default.
				p.note("multi_query absent: using the falcon default true")
				mq = true
			}
			if mq {
				return 1, "multi_query", nil
			}
		}
	}
	if kv, path, ok, err := s.positive("multi_query_group_num", "num_kv_heads", "n_head_kv"); err != nil || ok {
		return kv, path, err
	}
	p.note("num_key_value_heads absent: using num_attention_heads (%d)", heads)
	return heads, "num_attention_heads", nil
}

// headSize sets Spec.HeadSize and Spec.RotaryDim.
func (p *parser) headSize(ri ropeInfo) error {
	s := &p.src
	spec := &p.m.Spec
	if p.fam.kind == kindDeepSeekV4 {
		return p.deepseekV4Head()
	}
	if p.fam.kind == kindDeepSeek {
		// vLLM and torch_npu npu_kv_rmsnorm_rope_cache rotate q_pe/k_pe, a tensor of its own, so the head is the RoPE part.
		d, _, ok, err := s.positive("qk_rope_head_dim")
		if err != nil {
			return err
		}
		if !ok {
			if s.lenient {
				return nil
			}
			return configErr("qk_rope_head_dim: missing (MLA models rotate a qk_rope_head_dim-wide part)")
		}
		spec.HeadSize, spec.RotaryDim = d, d
		p.note("MLA: the spec covers the rotated q_pe/k_pe part (qk_rope_head_dim %d); the qk_nope_head_dim part is not rotated", d)
		return nil
	}

	keys := []string{"head_dim"}
	switch p.fam.kind {
	case kindChatGLM:
		keys = append(keys, "kv_channels")
	case kindZamba2:
		// Zamba2Config: attention_head_dim = 2·hidden_size // heads (attribute_map head_dim), the
		// shared attention blocks working on the concatenation of two hidden states.
		if err := p.zamba2Head(); err != nil {
			return err
		}
		return nil
	case kindCohere2:
		keys = nil // Cohere2Config.__post_init__ overwrites head_dim with hidden_size / heads
	}
	head, _, ok, err := s.positive(keys...)
	if err != nil {
		return err
	}
	if !ok {
		hidden, hpath, hok, err := s.positive("hidden_size", "n_embd", "d_model")
		if err != nil {
			return err
		}
		if s.lenient && (!hok || p.m.NumHeads == 0) {
			return nil
		}
		if !hok {
			return configErr("hidden_size: missing and no head_dim (also looked for n_embd, d_model)")
		}
		head = hidden / p.m.NumHeads
		if hidden%p.m.NumHeads != 0 {
			if !p.floorsHead() && !s.lenient {
				return configErr("%s: %d is not divisible by the %d attention heads (and head_dim is absent)", hpath, hidden, p.m.NumHeads)
			}
			p.note("head_dim absent: %s %d // %d heads = %d, the floor transformers' %s attention takes (it does not check that they divide)", hpath, hidden, p.m.NumHeads, head, p.m.ModelType)
		}
	}
	spec.HeadSize = head
	if full, err := p.fullHeadSize(head); err == nil {
		head = full
	} else if !s.lenient {
		return err
	}
	if ri.main != nil && p.wholeHead(*ri.main) {
		spec.RotaryDim = head
		return p.wholeHeadDefault(ri, *ri.main, rope.FullAttention, head)
	}

	if !p.fam.fractionFirst {
		if ok, err := p.rotaryDimPart(head); err != nil || ok {
			return err
		}
	}
	factor, path, ok, err := p.partialFactor(ri)
	if err != nil {
		return err
	}
	if !ok {
		if p.fam.fractionFirst {
			if ok, err := p.rotaryDimPart(head); err != nil || ok {
				return err
			}
		}
		spec.RotaryDim = head
		return nil
	}
	p.tookFraction(path)
	if !(factor > 0 && factor <= 1) && !s.lenient {
		return configErr("%s: %v: want a fraction in (0, 1]", path, factor)
	}
	rd, ok := truncInt(float64(head) * factor) // HF truncates the same way
	if !ok && s.lenient {
		return nil
	}
	if !ok {
		return configErr("%s: %v of head size %d gives a rotary dim past int", path, factor, head)
	}
	if p.fam.kind == kindZgcm && rd%2 != 0 {
		// ZgcmRotaryEmbedding: self.dim = dim - dim % 2.
		p.note("%s %v of head size %d gives %d: rounded down to %d, as ZgcmRotaryEmbedding does", path, factor, head, rd, rd-1)
		rd--
	}
	if (rd <= 0 || rd%2 != 0) && !s.lenient {
		return configErr("%s: %v of head size %d gives rotary dim %d: want a positive even number", path, factor, head, rd)
	}
	spec.RotaryDim = rd
	if ri.main != nil {
		t := ""
		if ri.perType != "" {
			t = rope.FullAttention
		}
		p.wholeHeadScaled(*ri.main, t, path, factor, rd, head)
	}
	p.rotaryDimBeside(path, factor, rd)
	return nil
}

func (p *parser) maxPositions() error {
	n, _, ok, err := p.src.positive("max_position_embeddings", "n_positions", "seq_length")
	if err != nil {
		return err
	}
	if !ok {
		p.note("max_position_embeddings absent: using 2048")
		n = 2048
	}
	p.m.Spec.MaxPositions = n
	return nil
}

func (p *parser) style() error {
	spec := &p.m.Spec
	spec.Style = p.fam.style
	if s := p.opts.Style; s != nil {
		if *s != p.fam.style && !p.unknown {
			p.note("pairing %s as the caller gave it (the %s family's checkpoints pair %s)", *s, p.m.ModelType, p.fam.style)
		}
		spec.Style = *s
		return nil
	}
	key := ""
	switch p.fam.kind {
	case kindChatGLM:
		// THUDM's code rotates interleaved pairs unless original_rope is false (cogagent).
		key = "original_rope"
	case kindDeepSeek:
		// HF's DeepseekV3 rotates interleaved pairs unless rope_interleave is false.
		key = "rope_interleave"
	default:
		return nil
	}
	on, ok, err := p.src.boolean(key)
	if err != nil {
		return err
	}
	if ok && !on {
		spec.Style = rope.NeoX
		p.note("%s false: NeoX pairing", key)
	}
	return nil
}

func (p *parser) dualChunk() error {
	path, v, ok := p.src.first("dual_chunk_attention_config")
	if !ok {
		return nil
	}
	obj, err := asObject(path, v)
	if err != nil {
		return err
	}
	n := node{path: path, m: obj}
	chunk, ok, err := n.integer("chunk_size")
	if err != nil {
		return err
	}
	if !ok {
		return configErr("%s: chunk_size: missing", path)
	}
	local, ok, err := n.integer("local_size")
	if err != nil {
		return err
	}
	if !ok {
		return configErr("%s: local_size: missing", path)
	}
	p.m.Spec.DualChunk = &rope.DualChunk{ChunkSize: chunk, LocalSize: local}
	return nil
}
