package hf

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/rope"
)

// TestNoRoPEFamilies2026: families without RoPE whose configs keep a rope_theta (or MLA keys)
// are refused as models without RoPE, not read as a generic decoder.
func TestNoRoPEFamilies2026(t *testing.T) {
	for name, cfg := range map[string]string{
		"kimi_linear": `{"model_type": "kimi_linear", "hidden_size": 2304, "num_attention_heads": 32, "rope_theta": 10000,
			"kv_lora_rank": 512, "qk_rope_head_dim": 64}`,
		"glm5_next": `{"model_type": "glm5_next", "text_config": {"model_type": "glm5_next_text", "hidden_size": 4096,
			"num_attention_heads": 64, "head_dim": 0, "qk_rope_head_dim": 0, "rope_theta": 10000}}`,
		"glm5_next_text without head_dim": `{"model_type": "glm5_next_text", "hidden_size": 4096, "num_attention_heads": 64, "rope_theta": 10000}`,
	} {
		if _, err := Parse([]byte(cfg)); !errors.Is(err, ErrNoRoPE) {
			t.Errorf("%s: %v, want ErrNoRoPE", name, err)
		}
	}
}

// TestUnrepresentableFamilies: families whose RoPE rope.Spec cannot describe are refused with
// the reason, not read as a generic NeoX decoder.
func TestUnrepresentableFamilies(t *testing.T) {
	for _, c := range []struct{ modelType, why string }{
		{"nanochat", "-θ"},
		{"deepseek_v41", "compress_ratios"},
		{"k2_horizon", "rope_head_dim"},
		{"bailing_hybrid", "pairing"},
		{"cohere2_moe", "prefix"},
	} {
		cfg := `{"model_type": "` + c.modelType + `", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 10000}`
		_, err := Parse([]byte(cfg))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.why) || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("%s: %v, want a refusal naming %q", c.modelType, err, c.why)
		}
	}
	// Nested under a composite config too.
	_, err := Parse([]byte(`{"model_type": "deepseek_v41", "text_config": {"model_type": "deepseek_v41_text", "hidden_size": 5120,
		"num_attention_heads": 64, "rope_theta": 10000}}`))
	if err == nil || !strings.Contains(err.Error(), "compress_ratios") {
		t.Errorf("nested deepseek_v41: %v", err)
	}
}

// TestFamilies2026: the families transformers main added that the generic reading misread,
// each as its configuration and modeling files define it.
func TestFamilies2026(t *testing.T) {
	// GLM-5: MLA interleaved on the rope part, and its DSA indexer interleaved too.
	m := mustParse(t, `{"model_type": "glm_moe_dsa", "head_dim": 64, "rope_parameters": {"rope_type": "default", "rope_theta": 8000000}}`)
	if s := m.Spec; s.HeadSize != 64 || s.Style != rope.GPTJ || s.Base != 8e6 || m.Indexer == nil ||
		m.Indexer.HeadSize != 128 || m.Indexer.RotaryDim != 64 || m.Indexer.Style != rope.GPTJ {
		t.Errorf("glm_moe_dsa: spec %+v indexer %+v", s, m.Indexer)
	}
	// DeepSeek-V3.2's indexer stays NeoX.
	if m := mustParse(t, `{"model_type": "deepseek_v32"}`); m.Indexer == nil || m.Indexer.Style != rope.NeoX {
		t.Errorf("deepseek_v32 indexer %+v, want neox", m.Indexer)
	}
	// HY-V4: MLA paired rotate_half-wise; its indexer's trailing rope slice has no spec.
	m = mustParse(t, `{"model_type": "hy_v4", "index_head_dim": 128}`)
	if m.Spec.Style != rope.NeoX || m.Spec.HeadSize != 64 || m.Indexer != nil ||
		!slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "last 64 of its 128") }) {
		t.Errorf("hy_v4: spec %+v indexer %+v notes %q", m.Spec, m.Indexer, m.Notes)
	}
	// Kolibri1: every 5th layer is full attention without RoPE; with sliding_window null every
	// layer rotates.
	m = mustParse(t, `{"model_type": "kolibri1", "num_hidden_layers": 10}`)
	for l := range 10 {
		s, err := m.Spec.ForLayer(l)
		if err != nil {
			t.Fatal(err)
		}
		if want := (l+1)%5 == 0; s.NoRoPE != want {
			t.Errorf("kolibri1 layer %d: NoRoPE %v, want %v", l, s.NoRoPE, want)
		}
	}
	m = mustParse(t, `{"model_type": "kolibri1", "num_hidden_layers": 10, "sliding_window": null}`)
	if s, _ := m.Spec.ForLayer(4); s.NoRoPE {
		t.Errorf("kolibri1 sliding_window null: layer 4 unrotated")
	}
	// GLM-OCR: chunked MRoPE with GLM's interleaved pairs over the whole head.
	m = mustParse(t, `{"model_type": "glm_ocr", "text_config": {"model_type": "glm_ocr_text", "head_dim": 128, "hidden_size": 1536,
		"rope_parameters": {"rope_type": "default", "mrope_section": [16, 24, 24], "partial_rotary_factor": 1.0, "rope_theta": 10000}}}`)
	if s := m.Spec; s.MRoPE == nil || s.MRoPE.Interleaved || s.Style != rope.GPTJ || s.RotaryDim != 128 {
		t.Errorf("glm_ocr: %+v mrope %+v", s, s.MRoPE)
	}
	// JetMoE: heads from KV heads × experts per token, head size kv_channels.
	m = mustParse(t, `{"model_type": "jetmoe", "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 16,
		"num_experts_per_tok": 2, "kv_channels": 128}`)
	if m.NumHeads != 32 || m.Spec.HeadSize != 128 {
		t.Errorf("jetmoe: %d heads of %d", m.NumHeads, m.Spec.HeadSize)
	}
	// Zamba2: no RoPE unless use_mem_rope; then a head of 2·hidden / heads.
	for _, cfg := range []string{`{"model_type": "zamba2"}`, `{"model_type": "zamba2", "use_mem_rope": false}`} {
		if _, err := Parse([]byte(cfg)); !errors.Is(err, ErrNoRoPE) {
			t.Errorf("%s: %v, want ErrNoRoPE", cfg, err)
		}
	}
	// Zgcm: the rotary dim rounded down to even; rope_scaling ignored, as ZgcmRotaryEmbedding does.
	m = mustParse(t, `{"model_type": "zgcm", "head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": 4}}`)
	if s := m.Spec; s.RotaryDim != 20 || s.Scaling.Type != rope.ScalingDefault || s.Base != 1e7 || len(m.Unread) > 0 {
		t.Errorf("zgcm: rotary %d scaling %v base %v unread %v", s.RotaryDim, s.Scaling.Type, s.Base, m.Unread)
	}
	// Qwen4-Exp: Qwen3.5's partial interleaved MRoPE.
	m = mustParse(t, `{"model_type": "qwen4_exp_text"}`)
	if s := m.Spec; s.MRoPE == nil || !s.MRoPE.Interleaved || !slices.Equal(s.MRoPE.Sections, []int{11, 11, 10}) || s.RotaryDim != 64 {
		t.Errorf("qwen4_exp_text: %+v mrope %+v", s, s.MRoPE)
	}
	// Helium: GPT-J pairs, theta 1e5 by default.
	if m := mustParse(t, `{"model_type": "helium"}`); m.Spec.Style != rope.GPTJ || m.Spec.Base != 1e5 {
		t.Errorf("helium: %+v", m.Spec)
	}
}

// TestZaya: ZAYA1's layer types are "hybrid" (global attention) and "hybrid_sliding", each
// with its own rope_parameters entry and partial_rotary_factor; the published configs also
// carry a stray rope_type beside the entries, which ZayaConfig drops.
func TestZaya(t *testing.T) {
	m := mustParse(t, `{"model_type": "zaya", "num_hidden_layers": 2, "sliding_window": 4096, "layer_types": ["hybrid", "hybrid_sliding"],
		"rope_parameters": {"rope_type": "default",
			"hybrid": {"rope_type": "default", "rope_theta": 5000000.0, "partial_rotary_factor": 0.5},
			"hybrid_sliding": {"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5}}}`)
	for l, want := range []float64{5e6, 1e4} {
		s, err := m.Spec.ForLayer(l)
		if err != nil {
			t.Fatal(err)
		}
		if s.Base != want || s.HeadSize != 128 || s.RotaryDim != 64 || s.Style != rope.NeoX {
			t.Errorf("zaya layer %d: base %v head %d rotary %d style %v, want base %v, 64 of 128, neox", l, s.Base, s.HeadSize, s.RotaryDim, s.Style, want)
		}
	}
	if len(m.Unread) > 0 {
		t.Errorf("zaya: unread %v", m.Unread)
	}
	// The class's defaults: every layer "hybrid", its entry at 5e6 over half the head.
	m = mustParse(t, `{"model_type": "zaya"}`)
	if s := m.Spec; s.Base != 5e6 || s.RotaryDim != 64 || s.MaxPositions != 131072 {
		t.Errorf("zaya defaults: %+v", s)
	}
}

// TestAttributeMaps: families whose config classes name the keys otherwise (attribute_map),
// or keep them in a sub-object, read as their classes read them.
func TestAttributeMaps(t *testing.T) {
	// DbrxConfig: d_model, n_heads, max_seq_len, attn_config.kv_n_heads and
	// attn_config.rope_theta (the published DBRX config).
	m := mustParse(t, `{"model_type": "dbrx", "d_model": 6144, "n_heads": 48, "n_layers": 40, "max_seq_len": 32768,
		"attn_config": {"kv_n_heads": 8, "rope_theta": 500000, "clip_qkv": 8}}`)
	if s := m.Spec; s.HeadSize != 128 || s.RotaryDim != 128 || s.Base != 5e5 || s.MaxPositions != 32768 || s.Style != rope.NeoX ||
		m.NumHeads != 48 || m.NumKVHeads != 8 || m.NumLayers != 40 || m.StyleAssumed {
		t.Errorf("dbrx: %+v heads %d/%d layers %d", s, m.NumHeads, m.NumKVHeads, m.NumLayers)
	}
	// MoonshineConfig: the decoder's head keys, GLM's interleaved pairs over 0.9 of the head.
	m = mustParse(t, `{"model_type": "moonshine", "hidden_size": 288, "encoder_num_attention_heads": 8, "decoder_num_attention_heads": 8,
		"decoder_num_key_value_heads": 8, "decoder_num_hidden_layers": 6, "max_position_embeddings": 194}`)
	if s := m.Spec; s.HeadSize != 36 || s.RotaryDim != 32 || s.Style != rope.GPTJ || m.NumHeads != 8 || m.NumLayers != 6 {
		t.Errorf("moonshine: %+v heads %d layers %d", s, m.NumHeads, m.NumLayers)
	}
}

// TestMellum: MellumConfig (configuration_mellum.py, transformers decba1d2) keys rope_parameters
// by layer type (full_attention 500000, sliding_attention 10000 by default, every layer
// full_attention without layer_types). MellumRotaryEmbedding.compute_default_rope_parameters
// (modeling_mellum.py, Laguna's) sizes inv_freq by the entry's partial_rotary_factor, while
// MellumAttention (Qwen3MoeAttention) multiplies cos/sin into the whole head: the whole head
// rotates, and an entry below 1 is a failure of HF main (Model.HFFails).
func TestMellum(t *testing.T) {
	m := mustParse(t, `{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"]}`)
	for l, want := range []float64{1e4, 5e5} {
		s, err := m.Spec.ForLayer(l)
		if err != nil {
			t.Fatal(err)
		}
		if s.Base != want || s.HeadSize != 128 || s.RotaryDim != 128 || s.Style != rope.NeoX {
			t.Errorf("mellum layer %d: base %v head %d rotary %d style %v, want base %v, 128 of 128, neox", l, s.Base, s.HeadSize, s.RotaryDim, s.Style, want)
		}
	}
	if len(m.Unread) > 0 || m.StyleAssumed {
		t.Errorf("mellum: unread %v, style assumed %t", m.Unread, m.StyleAssumed)
	}
	// An entry's fraction below 1 sizes a table HF main's whole-head apply cannot take.
	m = mustParse(t, `{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
		"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0, "partial_rotary_factor": 0.5},
			"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}`)
	if s, err := m.Spec.ForLayer(1); err != nil || s.RotaryDim != 128 || s.Base != 5e5 {
		t.Errorf("mellum full layer with partial_rotary_factor 0.5: %+v, %v: want the whole head at 5e5", s, err)
	}
	if !failWith(m, "rope_parameters.full_attention.partial_rotary_factor", "cannot run") || len(m.Unread) > 0 {
		t.Errorf("mellum: failures %v, unread %v: want the entry's partial_rotary_factor a failure of HF main, and no key unread", m.HFFails, m.Unread)
	}
	// Every layer type needs its entry (MellumRotaryEmbedding indexes rope_parameters by it).
	if _, err := Parse([]byte(`{"model_type": "mellum", "num_hidden_layers": 2, "layer_types": ["sliding_attention", "full_attention"],
		"rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 500000.0}}}`)); !errors.Is(err, ErrConfig) {
		t.Errorf("mellum without a sliding_attention entry: %v, want ErrConfig", err)
	}
}

// TestMiniMaxM3VL: MiniMaxM3VLConfig (configuration_minimax_m3_vl.py, transformers decba1d2)
// builds its text model as MiniMaxM3VLTextConfig(**text_config), or from that class's defaults.
// The class declares rotary_dim (default 64), but MiniMaxM3VLRotaryEmbedding
// (modeling_minimax_m3_vl.py, MiniMax-M2's) sizes inv_freq by rope_parameters'
// partial_rotary_factor alone and apply_rotary_pos_emb rotates the first cos.shape[-1] dims with
// rotate_half: rotary_dim is never read. The text model takes 1-D position_ids: no MRoPE.
func TestMiniMaxM3VL(t *testing.T) {
	// The shape of transformers' own test config (test_modeling_minimax_m3_vl.py): rotary_dim and
	// the fraction agree.
	m := mustParse(t, `{"model_type": "minimax_m3_vl", "text_config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4,
		"num_key_value_heads": 2, "head_dim": 32, "rotary_dim": 16, "max_position_embeddings": 512,
		"layer_types": ["full_attention", "minimax_m3_sparse"],
		"rope_parameters": {"rope_type": "default", "rope_theta": 5000000.0, "partial_rotary_factor": 0.5}}}`)
	for l := range 2 {
		s, err := m.Spec.ForLayer(l)
		if err != nil || s.HeadSize != 32 || s.RotaryDim != 16 || s.Base != 5e6 || s.Style != rope.NeoX || s.MRoPE != nil {
			t.Errorf("minimax_m3_vl layer %d: %+v, %v: want 16 of 32 at 5e6, neox, no MRoPE", l, s, err)
		}
	}
	if len(m.Unread) > 0 || m.StyleAssumed {
		t.Errorf("minimax_m3_vl: unread %v, style assumed %t", m.Unread, m.StyleAssumed)
	}
	// rotary_dim without a fraction: the whole head rotates, and rotary_dim is a warning.
	for _, d := range []Dialect{DialectReference, DialectHF, DialectVLLM} {
		for cfg, path := range map[string]string{
			`{"model_type": "minimax_m3_vl", "text_config": {"rotary_dim": 64, "rope_parameters": {"rope_type": "default", "rope_theta": 5000000.0}}}`: "text_config.rotary_dim",
			`{"model_type": "minimax_m3_vl_text", "rotary_dim": 64}`:                                                                                   "rotary_dim",
		} {
			m := parseAs(t, d, cfg)
			if m.Spec.RotaryDim != 128 || m.Spec.HeadSize != 128 || !unreadWith(m, path, "MiniMaxM3VLRotaryEmbedding") {
				t.Errorf("%s, %s: rotary %d of %d, unread %v: want the whole head, rotary_dim warned naming MiniMaxM3VLRotaryEmbedding",
					d, cfg, m.Spec.RotaryDim, m.Spec.HeadSize, m.Unread)
			}
		}
	}
}
