package bench

import (
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestDerivedShapes: with Config.Shape the cases time the model's heads and head size, not
// their built-in Llama shapes: the query (or x) operand holds T·Heads·HeadSize elements and
// the key T·KVHeads·HeadSize; ops that cannot take a model's shape are refused when named and
// skipped under "all".
func TestDerivedShapes(t *testing.T) {
	const T = 3
	s := Shape{Name: "odd", Heads: 5, KVHeads: 3, Spec: rotary.Spec{HeadSize: 80, RotaryDim: 32, Base: 10000, Style: rotary.GPTJ, MaxPositions: 64}}
	qBytes, kBytes := T*5*80*4, T*3*80*4
	c := Config{Shape: &s, Ops: []string{"all"}, Backends: []string{ops.Native}, DTypes: []tensor.DType{tensor.F32}, Tokens: []int{T}}
	ts, err := c.tasks()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tk := range ts {
		seen[tk.c.Op] = true
		if tk.c.Model != "odd" {
			t.Errorf("%s: model %q, want the shape's name", tk.c.Op, tk.c.Model)
		}
		_, touched, err := tk.c.Setup(tensor.F32, T, ops.Default)
		if err != nil {
			t.Fatalf("%s: %v", tk.c.Op, err)
		}
		want := qBytes
		if tk.c.Op == ops.InterleaveRoPE.Name() {
			want = T * 5 * 32 * 4 // x is the heads' rotary part
		}
		if got := len(touched[0].Bytes); got != want {
			t.Errorf("%s: first operand %d bytes, want %d", tk.c.Op, got, want)
		}
		if tk.c.Op == ops.RotaryEmbedding.Name() || tk.c.Op == ops.RotaryEmbeddingGather.Name() {
			if got := len(touched[1].Bytes); got != kBytes {
				t.Errorf("%s: key %d bytes, want %d", tk.c.Op, got, kBytes)
			}
		}
	}
	for _, op := range []string{"rotary_embedding", "rotary_embedding_gathered", "apply_rotary_emb", "apply_rotary_emb_thd", "qk_rmsnorm_rope", "interleave_rope"} {
		if !seen[op] {
			t.Errorf("all on a model's shape: %s not timed", op)
		}
	}
	for _, op := range []string{"mrope", "kv_rmsnorm_rope_cache", "query_scale"} {
		if seen[op] {
			t.Errorf("all on a plain model's shape timed %s", op)
		}
		named := c
		named.Ops = []string{op}
		if _, err := named.tasks(); err == nil {
			t.Errorf("--op %s on a plain model's shape: no error", op)
		}
	}
	// A model with a query scale and an MLA latent takes query_scale and kv_rmsnorm_rope_cache
	// on its shape too: a query of its heads; kv of kv_lora_rank + the rotary dim per token.
	full := s
	full.QueryScale = rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}
	full.KVLoRARank = 24
	for op, want := range map[string]int{"query_scale": qBytes, "kv_rmsnorm_rope_cache": T * (24 + 32) * 4} {
		c := Config{Shape: &full, Ops: []string{op}, Backends: []string{ops.Native}, DTypes: []tensor.DType{tensor.F32}, Tokens: []int{T}}
		ts, err := c.tasks()
		if err != nil || len(ts) != 1 {
			t.Fatalf("%s on a shape with its parameters: %d tasks, %v", op, len(ts), err)
		}
		call, touched, err := ts[0].c.Setup(tensor.F32, T, ops.Default)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(touched[0].Bytes); got != want {
			t.Errorf("%s: first operand %d bytes, want %d", op, got, want)
		}
		if err := call(); err != nil {
			t.Errorf("%s on the shape: %v", op, err)
		}
	}
	// The default list times the one rotation the model has.
	mr := s
	mr.Spec.MRoPE = &rotary.MRoPE{Sections: []int{4, 6, 6}}
	for _, sh := range []Shape{s, mr} {
		d := Config{Shape: &sh, Backends: []string{ops.Native}, DTypes: []tensor.DType{tensor.F32}, Tokens: []int{T}}
		ts, err := d.tasks()
		want := "rotary_embedding"
		if sh.Spec.MRoPE != nil {
			want = "mrope"
		}
		if err != nil || len(ts) != 1 || ts[0].c.Op != want {
			t.Errorf("default ops on %v: %d tasks, err %v: want one %s", sh.Spec.MRoPE, len(ts), err, want)
		}
	}
	bad := Config{Shape: &Shape{Name: "x", Heads: 0, KVHeads: 1, Spec: s.Spec}}
	if _, err := bad.tasks(); err == nil {
		t.Errorf("0 heads: no error")
	}
	both := Config{Shape: &s, Models: []string{"llama-3-8b"}}
	if _, err := both.tasks(); err == nil {
		t.Errorf("Models and Shape: no error")
	}
}

// TestModelShape: a model's shape is its head counts, its first rotated layer's RoPE and, for
// MLA models, kv_lora_rank; a model none of whose layers rotates has nothing to time.
func TestModelShape(t *testing.T) {
	llama, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ModelShape("", llama, nil)
	if err != nil || s.Name != "llama" || s.Heads != 32 || s.KVHeads != 8 || s.KVLoRARank != 0 || s.Spec.HeadSize != 128 {
		t.Errorf("llama-3.1-8b: %+v, %v", s, err)
	}
	data, err := hf.PresetJSON("deepseek-v3")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := hf.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := ModelShape("deepseek-v3", ds, data); err != nil || s.Name != "deepseek-v3" || s.KVLoRARank != 512 || s.Spec.RotaryDim != 64 {
		t.Errorf("deepseek-v3: %+v, %v", s, err)
	}
	for _, c := range []struct {
		config []byte
		want   int
	}{{nil, 0}, {[]byte(`{"kv_lora_rank": 0.5}`), 0}, {[]byte(`{"kv_lora_rank": 2e6}`), 0}, {[]byte(`{"text_config": {"kv_lora_rank": 64}}`), 64}} {
		if s, err := ModelShape("x", ds, c.config); err != nil || s.KVLoRARank != c.want {
			t.Errorf("kv_lora_rank of %s: %+v, %v; want %d", c.config, s, err, c.want)
		}
	}
	// Llama 4 with its first layer unrotated: the shape is layer 1's.
	nope, err := hf.Parse([]byte(`{"model_type": "llama4_text", "hidden_size": 512, "head_dim": 64, "num_attention_heads": 8,
		"num_key_value_heads": 2, "num_hidden_layers": 4, "rope_theta": 500000.0, "no_rope_layers": [0, 1, 1, 1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if l0, _ := nope.Spec.ForLayer(0); !l0.NoRoPE {
		t.Fatal("layer 0 rotates: the test needs a model whose first layer does not")
	}
	if s, err := ModelShape("", nope, nil); err != nil || s.Spec.NoRoPE || s.Heads != 8 || s.KVHeads != 2 || s.Spec.RotaryDim != 64 {
		t.Errorf("llama4_text: %+v, %v", s, err)
	}
	// Its one layer unrotated.
	unrotated := *nope
	unrotated.NumLayers = 1
	if _, err := ModelShape("", &unrotated, nil); err == nil || err.Error() != "model llama4_text: no layer has RoPE: nothing to time" {
		t.Errorf("no rotated layer: error %v", err)
	}
	if _, err := ModelShape("", nil, nil); err == nil {
		t.Error("nil model: no error")
	}
	// The zero Model does not panic; Run refuses the shape it gives (Shape.check).
	if s, err := ModelShape("", &hf.Model{}, nil); err == nil && s.check() == nil {
		t.Errorf("zero Model: shape %+v passes Run's check", s)
	}
}
