package hf

import (
	"maps"
	"math"

	"github.com/rotary-go/rotary/rope"
)

// DeepSeek-V4 as transformers main has it (models/deepseek_v4/, at the mirror's decba1d):
// DeepseekV4Config.__post_init__ and DeepseekV4RotaryEmbedding. Each 512-wide head is
// [nope | rope], and apply_rotary_pos_emb rotates the trailing qk_rope_head_dim = head_dim ·
// partial_rotary_factor (64) dims with interleaved pairs (2i, 2i+1) and frequencies over those
// dims; the spec covers that slice, as it covers an MLA model's q_pe/k_pe. Two RoPEs, keyed by
// rope-type label, not by layer type: "main" (rope_theta, no scaling) for sliding_attention
// layers, "compress" (compress_rope_theta, the config's YaRN with attention_factor 1) for the
// compressed_sparse_attention and heavily_compressed_attention layers.

// The DeepSeek-V4 layer types and what a legacy compress_ratios entry names.
const (
	dsv4CSA = "compressed_sparse_attention"
	dsv4HCA = "heavily_compressed_attention"
)

var dsv4CompressRatio = map[int]string{0: rope.SlidingAttention, 4: dsv4CSA, 128: dsv4HCA}

// deepseekV4Head sets the spec's head to the rope slice: head_dim × partial_rotary_factor,
// the factor the config's, else the legacy qk_rope_head_dim / head_dim, else 64 / 512.
func (p *parser) deepseekV4Head() error {
	head, _, ok, err := p.src.positive("head_dim")
	if err != nil {
		return err
	}
	if !ok {
		head = 512
		p.note("head_dim absent: using DeepseekV4Config's default 512")
	}
	factor, path, ok, err := p.src.number("partial_rotary_factor")
	if err != nil {
		return err
	}
	if !ok {
		if rd, rpath, rok, err := p.src.positive("qk_rope_head_dim"); err != nil {
			return err
		} else if rok {
			factor, path, ok = float64(rd)/float64(head), rpath, true
		}
	}
	if !ok {
		factor, path = 64.0/512, "partial_rotary_factor"
		p.note("partial_rotary_factor and qk_rope_head_dim absent: using DeepseekV4Config's 64 / 512")
	}
	rd := int(math.Trunc(float64(head) * factor))
	if (!(factor > 0 && factor <= 1) || rd <= 0 || rd%2 != 0) && !p.src.lenient {
		return configErr("%s: %v of head_dim %d gives a rope slice of %d: want a positive even number ≤ head_dim", path, factor, head, rd)
	}
	p.m.Spec.HeadSize, p.m.Spec.RotaryDim = rd, rd
	p.note("DeepSeek-V4: the spec covers each head's rope slice, its last %d of %d dims (the first %d are not rotated), for queries, keys and the compressed entries; the attention output's slice is rotated back by the query's position (cos, −sin), the inverse of the same table", rd, head, head-rd)
	// DeepseekV4Indexer.forward rotates its queries and compressed keys with the "compress"
	// table through the same apply_rotary_pos_emb: the trailing rope slice of its own head.
	index, _, ok, err := p.src.positive("index_head_dim")
	if err != nil {
		return err
	}
	if !ok {
		index = 128 // DeepseekV4Config's default
	}
	if index >= rd {
		p.note("DeepSeek-V4: the compressed_sparse_attention layers' lightning indexer rotates the last %d of its %d dims with the compressed layers' RoPE (index_head_dim)", rd, index)
	}
	return nil
}

// deepseekV4Rope reads the two RoPEs: the nested {"main": …, "compress": …} form as
// transformers main saves it, or the legacy flat form, whose rope object is the compress
// layers' (with compress_rope_theta, and attention_factor 1 for YaRN) while the main RoPE is
// default at rope_theta. The compress RoPE serves both compressed layer types.
func (p *parser) deepseekV4Rope() (ropeInfo, error) {
	var main, compress node
	path, v, ok := p.src.first("rope_parameters", "rope_scaling")
	flat := object{}
	if ok {
		obj, err := asObject(path, v)
		if err != nil {
			return ropeInfo{}, err
		}
		mv, mok := obj["main"].(object)
		cv, cok := obj["compress"].(object)
		if mok && cok {
			main, compress = node{path: path + ".main", m: withoutPartial(mv)}, node{path: path + ".compress", m: withoutPartial(cv)}
			// DeepseekV4RotaryEmbedding reads each entry's rope_theta, whatever the config's.
			return ropeInfo{main: &main, types: map[string]node{dsv4CSA: compress, dsv4HCA: compress}, parameters: true}, nil
		}
		flat = obj
	}
	// The theta values are copied as the config spells them; the entries' readers check them.
	m := object{"rope_type": "default"}
	if _, t, ok := p.src.first("rope_theta"); ok {
		m["rope_theta"] = t
	}
	c := withoutPartial(flat)
	delete(c, "main")
	delete(c, "compress")
	if _, t, ok := p.src.first("compress_rope_theta"); ok {
		c["rope_theta"] = t
	}
	if rt, _ := ropeType(node{m: c}); rt == "" {
		c["rope_type"] = "default"
	} else if rt == "yarn" || rt == "deepseek_yarn" {
		if _, given := c["attention_factor"]; !given {
			// DeepseekV4Config.__post_init__: the reference does not scale cos/sin by YaRN's mscale.
			c["attention_factor"] = num("1")
		}
	}
	main, compress = node{path: "rope main (rope_theta)", m: m}, node{path: path + " (compress layers)", m: c}
	if path == "" {
		compress.path = "rope compress (compress_rope_theta)"
	}
	return ropeInfo{main: &main, types: map[string]node{dsv4CSA: compress, dsv4HCA: compress}}, nil
}

// withoutPartial copies a rope entry without partial_rotary_factor, which DeepSeek-V4 gives
// relative to head_dim, not to the rope slice the spec covers (deepseekV4Head applied it).
func withoutPartial(m object) object {
	out := maps.Clone(m)
	delete(out, "partial_rotary_factor")
	return out
}

// deepseekV4Types is DeepseekV4Config.__post_init__'s layer_types when the config has none:
// the legacy compress_ratios (0 sliding, 4 CSA, 128 HCA), else two HCA layers and then CSA
// and HCA alternating; both cut to num_hidden_layers.
func (p *parser) deepseekV4Types() ([]string, error) {
	n := p.m.NumLayers
	if n == 0 {
		return nil, nil
	}
	if n > maxDerivedLayers {
		return nil, configErr("num_hidden_layers %d: too many to derive layer_types from (at most %d)", n, maxDerivedLayers)
	}
	if path, v, ok := p.src.given("compress_ratios"); ok {
		ratios, err := asInts(path, v)
		if err != nil {
			return nil, err
		}
		types := make([]string, 0, n)
		for i, r := range ratios[:min(n, len(ratios))] {
			t, known := dsv4CompressRatio[r]
			if !known {
				return nil, configErr("%s[%d]: %d: want 0 (sliding), 4 (CSA) or 128 (HCA)", path, i, r)
			}
			types = append(types, t)
		}
		if len(types) < n {
			return nil, configErr("%s: %d entries: want one per layer (num_hidden_layers = %d)", path, len(ratios), n)
		}
		return types, nil
	}
	types := make([]string, n)
	for i := range types {
		types[i] = dsv4HCA
		if i >= 2 && (i-2)%2 == 1 {
			types[i] = dsv4CSA
		}
	}
	p.note("layer_types and compress_ratios absent: DeepseekV4Config's default, two heavily_compressed_attention layers and then CSA and HCA alternating")
	return types, nil
}
