package hf

import (
	"fmt"
	"maps"
	"slices"

	"github.com/rotary-go/rotary/internal/textdist"
)

// UnreadKey is a key of config.json that hf did not read and that may change the RoPE: a key
// of the rope object (rope_parameters or rope_scaling, and its per-layer-type entries) that the
// model's RoPE variant does not read, a text-model key one or two edits from a RoPE key hf
// knows, or a rope_theta that another one given elsewhere overrides (Why). A misspelt key is otherwise silently ignored and its default taken:
// transformers' rope_config_validation warns about the first kind for the same reason.
type UnreadKey struct {
	// Path is the key with its place in the config ("rope_scaling.orginal_max_position_embeddings").
	Path string
	// Variant is the rope type of the object that holds the key; "" for a text-model key.
	Variant string
	// Suggest is the closest key hf reads there, "" when none is near.
	Suggest string
	// Why, when set, says why a key hf knows was not read: another key sets the same thing and
	// was taken (a rope_theta both in the rope object and at the top level, with values that
	// differ, between which versions of transformers choose differently).
	Why string
}

func (u UnreadKey) String() string {
	switch {
	case u.Why != "":
		return fmt.Sprintf("%s: not read: %s", u.Path, u.Why)
	case u.Variant != "" && u.Suggest == "":
		return fmt.Sprintf("%s: not read: rope type %s does not use it", u.Path, u.Variant)
	case u.Variant != "":
		return fmt.Sprintf("%s: not read: no rope type has it; did you mean %s?", u.Path, u.Suggest)
	case u.Suggest != "":
		return fmt.Sprintf("%s: not read; did you mean %s?", u.Path, u.Suggest)
	}
	return u.Path + ": not read"
}

// ropeObjectKeys are the keys hf reads in a rope object, for some variant or family: the
// candidates for a misspelt one.
var ropeObjectKeys = []string{
	"rope_type", "type", "rope_theta", "factor", "original_max_position_embeddings",
	"beta_fast", "beta_slow", "attention_factor", "mscale", "mscale_all_dim", "truncate",
	"low_freq_factor", "high_freq_factor", "short_factor", "long_factor", "short_mscale",
	"long_mscale", "alpha", "max_trained_positions", "mixed_b", "partial_rotary_factor",
	"mrope_section", "mrope_interleaved", "xdrope_section", "llama_4_scaling_beta",
}

// textRopeKeys are the text-model keys that set the RoPE or the head it rotates: a key one or
// two edits from one of these that hf did not read is reported.
var textRopeKeys = []string{
	"rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor", "rotary_dim",
	"rotary_pct", "rotary_emb_base", "rotary_emb_fraction", "head_dim", "hidden_size",
	"num_attention_heads", "max_position_embeddings", "original_max_position_embeddings",
	"rope_local_base_freq", "sliding_window_pattern", "layer_types", "no_rope_layers",
	"no_rope_layer_interval", "qk_rope_head_dim", "kv_channels", "global_head_dim",
	"rope_interleave", "mrope_section", "rope_ratio",
}

// textOtherKeys are text-model keys near a RoPE key that mean something else.
var textOtherKeys = []string{"qk_nope_head_dim", "v_head_dim"}

// unread lists the keys UnreadKey describes, after the parse has read what it reads.
func (p *parser) unread(ri ropeInfo) []UnreadKey {
	out := p.overridden
	objects := []node{}
	if ri.main != nil {
		objects = append(objects, *ri.main)
	}
	for _, t := range slices.Sorted(maps.Keys(ri.types)) {
		objects = append(objects, ri.types[t])
	}
	for _, n := range objects {
		if n.read == nil {
			continue
		}
		variant, _ := ropeType(n)
		if variant == "" {
			variant = "default"
		}
		for _, k := range slices.Sorted(maps.Keys(n.m)) {
			if n.read[k] {
				continue
			}
			u := UnreadKey{Path: n.key(k), Variant: variant}
			if !slices.Contains(ropeObjectKeys, k) {
				u.Suggest = textdist.Closest(k, ropeObjectKeys)
			}
			out = append(out, u)
		}
	}
	for _, n := range []*node{&p.src.text, p.src.top} {
		if n == nil || n.read == nil {
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(n.m)) {
			if n.read[k] || slices.Contains(textRopeKeys, k) || slices.Contains(textOtherKeys, k) {
				continue
			}
			if s := textdist.Closest(k, textRopeKeys); s != "" {
				out = append(out, UnreadKey{Path: n.key(k), Suggest: s})
			}
		}
	}
	return out
}
