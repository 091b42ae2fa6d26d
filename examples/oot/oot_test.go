package oot_test

import (
	"fmt"
	"log"
	"math"
	"slices"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/examples/oot"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// register installs the override for one test and removes it afterwards: overrides are global.
func register(t *testing.T) {
	t.Helper()
	if err := oot.Register(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ops.ClearOOT(oot.Op) })
}

// batch is one Forward call's inputs for Llama 3.1 8B: 32 query and 8 key heads of 128.
type batch struct {
	pos  tensor.Tensor
	q, k []uint16 // bf16 bits
	T    int
}

const qHeads, kHeads = 32, 8

func newBatch(spec rotary.Spec, T int, seed uint64) batch {
	x := seed*0x9E3779B97F4A7C15 + 1
	next := func() float32 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float32(int64(x>>40)-(1<<23)) / (1 << 22)
	}
	p := make([]int32, T)
	for i := range p {
		p[i] = int32((i*977 + int(seed)) % 8192)
	}
	b := batch{pos: tensor.FromI32(p, T), T: T}
	b.q = make([]uint16, T*qHeads*spec.HeadSize)
	b.k = make([]uint16, T*kHeads*spec.HeadSize)
	for i := range b.q {
		b.q[i] = tensor.BF16FromFloat32(next())
	}
	for i := range b.k {
		b.k[i] = tensor.BF16FromFloat32(next())
	}
	return b
}

// forward rotates copies of the batch with emb and returns them.
func (b batch) forward(t *testing.T, emb *rotary.Embedding) (q, k []uint16) {
	t.Helper()
	q, k = slices.Clone(b.q), slices.Clone(b.k)
	d := emb.Spec().HeadSize
	if err := emb.Forward(b.pos, tensor.FromBits(tensor.BF16, q, b.T, qHeads, d), tensor.FromBits(tensor.BF16, k, b.T, kHeads*d)); err != nil {
		t.Fatal(err)
	}
	return q, k
}

func llama(t *testing.T) rotary.Spec {
	t.Helper()
	m, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	return m.Spec
}

func embedding(t *testing.T, spec rotary.Spec, customOps string) *rotary.Embedding {
	t.Helper()
	opts := []rotary.Option{rotary.WithCacheLen(8192)}
	if customOps != "" {
		d, err := ops.NewDispatcher(customOps, ops.Auto)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, rotary.WithDispatcher(d))
	}
	emb, err := rotary.New(spec, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return emb
}

func TestOverrideServesDefaultDispatch(t *testing.T) {
	spec := llama(t)
	native := embedding(t, spec, "none")
	// Built before Register: the dispatch cache of ops.Default must still pick the override up.
	emb := embedding(t, spec, "")
	batches := []batch{newBatch(spec, 1, 1), newBatch(spec, 7, 2), newBatch(spec, 64, 3)}
	for _, b := range batches {
		b.forward(t, emb) // warm the cache with the in-tree choice
	}
	if w := ops.Default.Which(oot.Op); w == oot.Backend {
		t.Fatalf("Which = %q before Register", w)
	}

	register(t)
	if w := ops.Default.Which(oot.Op); w != oot.Backend {
		t.Fatalf("ops.Default.Which(%s) = %q after Register, want %q", oot.Op, w, oot.Backend)
	}
	counter, calls := oot.Calls.Load(), ops.Calls(oot.Op)[oot.Backend]
	for _, b := range batches {
		wantQ, wantK := b.forward(t, native)
		gotQ, gotK := b.forward(t, emb)
		if !slices.Equal(gotQ, wantQ) || !slices.Equal(gotK, wantK) {
			t.Errorf("%d tokens: the override's result differs from native", b.T)
		}
		if slices.Equal(gotQ, b.q) {
			t.Errorf("%d tokens: the override did not rotate the query", b.T)
		}
	}
	n := uint64(len(batches))
	if got := oot.Calls.Load() - counter; got != n {
		t.Errorf("oot.Calls grew by %d, want %d", got, n)
	}
	if got := ops.Calls(oot.Op)[oot.Backend] - calls; got != n {
		t.Errorf("ops.Calls(%s)[%s] grew by %d, want %d", oot.Op, oot.Backend, got, n)
	}
	// The table shows the override.
	for _, r := range ops.Default.Table() {
		if r.Op == oot.Op && (r.Override != oot.Backend || r.Serves != oot.Backend) {
			t.Errorf("Table row %+v: want override and serves %s", r, oot.Backend)
		}
	}
}

func TestNoneBypassesOverride(t *testing.T) {
	spec := llama(t)
	register(t)
	for _, customOps := range []string{"none", "all,-rotary_embedding", "none,+mrope"} {
		d, err := ops.NewDispatcher(customOps, ops.Auto)
		if err != nil {
			t.Fatal(err)
		}
		if w := d.Which(oot.Op); w != ops.Native {
			t.Errorf("%s: Which = %q, want native", customOps, w)
		}
		emb := embedding(t, spec, customOps)
		counter, native := oot.Calls.Load(), ops.Calls(oot.Op)[ops.Native]
		newBatch(spec, 5, 4).forward(t, emb)
		if oot.Calls.Load() != counter {
			t.Errorf("%s: the override ran", customOps)
		}
		if got := ops.Calls(oot.Op)[ops.Native] - native; got != 1 {
			t.Errorf("%s: native served %d calls, want 1", customOps, got)
		}
		// enforce_enable brings the override back for one instance.
		if w := d.Enforced().Which(oot.Op); w != oot.Backend {
			t.Errorf("%s enforced: Which = %q, want %q", customOps, w, oot.Backend)
		}
	}
	// Enabled explicitly, it serves.
	if w := embeddingDispatcher(t, "none,+rotary_embedding").Which(oot.Op); w != oot.Backend {
		t.Errorf("none,+rotary_embedding: Which = %q, want %q", w, oot.Backend)
	}
}

func embeddingDispatcher(t *testing.T, customOps string) *ops.Dispatcher {
	t.Helper()
	d, err := ops.NewDispatcher(customOps, ops.Auto)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestClearOOTRestoresInTree(t *testing.T) {
	spec := llama(t)
	before := ops.Default.Which(oot.Op)
	emb := embedding(t, spec, "")
	native := embedding(t, spec, "none")
	b := newBatch(spec, 9, 5)
	register(t)
	b.forward(t, emb)
	ops.ClearOOT(oot.Op)
	if w := ops.Default.Which(oot.Op); w != before {
		t.Errorf("Which after ClearOOT = %q, want %q as before Register", w, before)
	}
	counter := oot.Calls.Load()
	gotQ, gotK := b.forward(t, emb)
	if oot.Calls.Load() != counter {
		t.Errorf("the override ran after ClearOOT")
	}
	wantQ, wantK := b.forward(t, native)
	if !slices.Equal(gotQ, wantQ) || !slices.Equal(gotK, wantK) {
		t.Errorf("after ClearOOT, %s's result differs from native", before)
	}
	for _, r := range ops.Default.Table() {
		if r.Op == oot.Op && r.Override != "" {
			t.Errorf("Table still shows override %q", r.Override)
		}
	}
}

// TestF32BitForBit compares the override with native on F32 strided views with a partial rotary
// dim, where only the first rotary-dim elements of each head may change.
func TestF32BitForBit(t *testing.T) {
	spec := rotary.Spec{HeadSize: 96, RotaryDim: 64, Base: 10000, Style: rotary.GPTJ, MaxPositions: 4096}
	native := embedding(t, spec, "none")
	emb := embedding(t, spec, "")
	register(t)
	const T, H, pad = 6, 3, 5
	// Heads padded: token stride H*96+pad.
	stride := H*spec.HeadSize + pad
	src := make([]float32, T*stride)
	for i := range src {
		src[i] = float32(math.Sin(float64(i)*0.37)) * 3
	}
	pos := tensor.FromI64([]int64{0, 1, 2, 4095, 100, 3}, T)
	view := func(data []float32) tensor.Tensor {
		return tensor.Tensor{DType: tensor.F32, Shape: []int{T, H, spec.HeadSize}, Strides: []int{stride, spec.HeadSize, 1}, F32: data}
	}
	want, got := slices.Clone(src), slices.Clone(src)
	if err := native.Forward(pos, view(want), tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	counter := oot.Calls.Load()
	if err := emb.Forward(pos, view(got), tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	if oot.Calls.Load() != counter+1 {
		t.Fatalf("the override did not serve")
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("element %d: %v, native %v", i, got[i], want[i])
		}
		if j := i % stride; (j >= H*spec.HeadSize || j%spec.HeadSize >= spec.RotaryDim) && got[i] != src[i] {
			t.Fatalf("element %d outside the rotary dims changed", i)
		}
	}
}

// Register an out-of-tree implementation of rotary_embedding; every enabled call in the
// process then goes to it, while a dispatcher that disables the op keeps running native.
func ExampleRegister() {
	if err := oot.Register(); err != nil {
		log.Fatal(err)
	}
	defer ops.ClearOOT(oot.Op)

	emb, err := rotary.New(rotary.Spec{HeadSize: 4, RotaryDim: 4, Base: 10000, Style: rotary.NeoX, MaxPositions: 16})
	if err != nil {
		log.Fatal(err)
	}
	q := []float32{1, 1, 1, 1}
	before := oot.Calls.Load()
	if err := emb.Forward(tensor.FromI64([]int64{1}, 1), tensor.FromF32(q, 1, 1, 4), tensor.Tensor{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("serves:", ops.Default.Which("rotary_embedding"))
	fmt.Println("override calls:", oot.Calls.Load()-before)
	fmt.Printf("q: %.4f\n", q)

	none, err := ops.NewDispatcher("none", ops.Auto)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("with custom ops none:", none.Which("rotary_embedding"))
	// Output:
	// serves: oot-example
	// override calls: 1
	// q: [-0.3012 0.9900 1.3818 1.0099]
	// with custom ops none: native
}
