package bench

import (
	"testing"

	"github.com/rotary-go/rotary"
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
