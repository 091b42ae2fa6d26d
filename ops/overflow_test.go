package ops_test

import (
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// thdBoth runs the forward and the backward checks of apply_rotary_emb_thd on the same
// arguments (x in place) and returns their errors.
func thdBoth(x, cos tensor.Tensor, seqs ops.PackedSeqs) (fwd, bwd error) {
	_, fwd = ops.NewApplyRotaryEmbTHD(ops.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: cos, Out: x, Seqs: seqs, Style: rope.NeoX})
	_, bwd = ops.NewApplyRotaryEmbTHDBackward(ops.ApplyRotaryEmbTHDBackwardParams{DY: x, Cos: cos, Sin: cos, DX: x, Seqs: seqs, Style: rope.NeoX})
	return fwd, bwd
}

// TestTHDTokenCountOverflow: cu_seqlens must end at x's tokens × cp_size. An x without elements
// (zero heads) can claim any token count, and 2^62 tokens × cp_size 4 wrapped to 0, so
// cu_seqlens [0, 0] was accepted for 2^62 tokens that no sequence covers.
func TestTHDTokenCountOverflow(t *testing.T) {
	cos := tensor.FromF32(make([]float32, 8), 4, 2)
	for _, c := range []struct {
		tokens, cp int
		cu         []int64
	}{
		{1 << 62, 4, []int64{0, 0}},
		{1 << 48, ops.MaxCPSize, []int64{0, 0}},
		{1<<62 + 2, 4, []int64{0, 8}},
	} {
		x := tensor.FromF32(nil, c.tokens, 0, 4)
		seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI64(c.cu, len(c.cu)), CPSize: c.cp}
		fwd, bwd := thdBoth(x, cos, seqs)
		for _, err := range []error{fwd, bwd} {
			if err == nil || !strings.Contains(err.Error(), "cu_seqlens: ends at") {
				t.Errorf("%d tokens, cp_size %d, cu_seqlens %v: %v, want an error about where cu_seqlens ends", c.tokens, c.cp, c.cu, err)
			}
		}
	}
}

// TestTHDLastPositionOverflow: a sequence's last position is its start plus its index; with a
// table broadcast over nearly 2^63 rows, a start of 2^62+5 and 2^62 tokens the sum wrapped
// negative and passed the "< rows" test, handing the kernels position −2^63+4.
func TestTHDLastPositionOverflow(t *testing.T) {
	x := tensor.FromF32(nil, 1<<62, 0, 4)
	cos := tensor.Tensor{DType: tensor.F32, Shape: []int{math.MaxInt, 2}, Strides: []int{0, 1}, F32: make([]float32, 2)}
	for _, start := range []int64{1<<62 + 5, math.MaxInt64 - 1, 1 << 62} {
		seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI64([]int64{0, 1 << 62}, 2), StartPositions: tensor.FromI64([]int64{start}, 1)}
		fwd, bwd := thdBoth(x, cos, seqs)
		for _, err := range []error{fwd, bwd} {
			if err == nil || !strings.Contains(err.Error(), "cos:") {
				t.Errorf("start %d + 2^62 tokens over %d rows: %v, want an error about the table", start, math.MaxInt, err)
			}
		}
	}
	// Up to the last row it fits.
	seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI64([]int64{0, 1 << 62}, 2), StartPositions: tensor.FromI64([]int64{math.MaxInt64 - 1<<62}, 1)}
	a, err := ops.NewApplyRotaryEmbTHD(ops.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: cos, Out: x, Seqs: seqs, Style: rope.NeoX})
	if err != nil {
		t.Fatalf("a sequence ending on the last row: %v", err)
	}
	if p := a.Position(0, 1<<62-1); p != math.MaxInt64-1 {
		t.Errorf("last position %d, want %d", p, int64(math.MaxInt64-1))
	}
}

// kvBroadcast is a PA call whose kv and index are broadcast (stride 0) over B tokens: a few
// real values claiming B tokens, every index value 0.
func kvBroadcast(B int) ops.KVRMSNormRoPECacheParams {
	return ops.KVRMSNormRoPECacheParams{
		KV:        tensor.Tensor{DType: tensor.F32, Shape: []int{B, 1, 1, 24}, Strides: []int{0, 0, 0, 1}, F32: make([]float32, 24)},
		Gamma:     tensor.FromF32(make([]float32, 16), 16),
		Cos:       tensor.FromF32(make([]float32, 8), 1, 1, 1, 8),
		Sin:       tensor.FromF32(make([]float32, 8), 1, 1, 1, 8),
		Index:     tensor.Tensor{DType: tensor.I64, Shape: []int{B}, Strides: []int{0}, I64: []int64{0}},
		KCache:    tensor.Zeros(tensor.F32, 2, 4, 1, 8),
		CKVCache:  tensor.Zeros(tensor.F32, 2, 4, 1, 16),
		CacheMode: ops.CachePA,
	}
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestKVIndexCheckMemoryBounded: the duplicate check kept one key per token, B·S of them, so a
// kv and an index broadcast over 2^22 tokens (a few dozen real values) made it allocate 32 MiB,
// and over 2^40 tokens 8 TiB. Keys lie below the caches' slot count, so it keeps at most one
// more than that; and a cache must have memory of its own for every slot.
func TestKVIndexCheckMemoryBounded(t *testing.T) {
	const B = 1 << 22
	p := kvBroadcast(B)
	var err error
	if n := allocated(func() { _, err = ops.NewKVRMSNormRoPECache(p) }); n > 1<<20 {
		t.Errorf("checking %d broadcast tokens allocated %d bytes", B, n)
	}
	if err == nil || !strings.Contains(err.Error(), "slot already taken") {
		t.Errorf("error %v, want a repeated slot", err)
	}

	// Caches broadcast over 2^22 blocks: their slot count says nothing about real memory.
	p = kvBroadcast(B)
	p.KCache = tensor.Tensor{DType: tensor.F32, Shape: []int{B, 4, 1, 8}, Strides: []int{0, 8, 8, 1}, F32: make([]float32, 32)}
	p.CKVCache = tensor.Tensor{DType: tensor.F32, Shape: []int{B, 4, 1, 16}, Strides: []int{0, 16, 16, 1}, F32: make([]float32, 64)}
	if n := allocated(func() { _, err = ops.NewKVRMSNormRoPECache(p) }); n > 1<<20 {
		t.Errorf("checking %d broadcast tokens into broadcast caches allocated %d bytes", B, n)
	}
	if err == nil || !strings.Contains(err.Error(), "k_cache") || !strings.Contains(err.Error(), "memory of its own") {
		t.Errorf("error %v, want k_cache refused for sharing memory between slots", err)
	}
	// The same in each layout, with calls that are otherwise valid: a cache of 2^40 blocks
	// over the memory of one.
	for _, c := range []struct {
		mode  ops.CacheMode
		index tensor.Tensor
	}{
		{ops.CachePA, tensor.FromI64([]int64{0, 5, -1, 9, 2, 15}, kvB*kvS)},
		{ops.CacheNorm, tensor.FromI64([]int64{0, 3, -1, 2, 1, 0}, kvB, kvS)},
		{ops.CachePABlkBNSD, tensor.FromI64([]int64{8, -1}, kvB)},
	} {
		p := kvValid()
		p.CacheMode, p.Index = c.mode, c.index
		for _, cache := range []*tensor.Tensor{&p.KCache, &p.CKVCache} {
			w := cache.Shape[3]
			shape := []int{1 << 40, 4, 1, w}
			if c.mode == ops.CacheNorm {
				shape = []int{1 << 40, 1, 4, w}
			}
			*cache = tensor.Tensor{DType: cache.DType, Shape: shape, Strides: []int{0, w, w, 1}, Bits: make([]uint16, 4*w)}
		}
		if _, err := ops.NewKVRMSNormRoPECache(p); err == nil || !strings.Contains(err.Error(), "memory of its own") {
			t.Errorf("%s: caches of 2^40 blocks over the memory of one: %v, want them refused", c.mode, err)
		}
	}
}

// TestKVDvOverflow: gamma broadcast over a stride of 0 can claim any Dv; Dv + Dk wrapped and
// the error asked for a negative last dimension.
func TestKVDvOverflow(t *testing.T) {
	p := kvValid()
	p.Gamma = tensor.Tensor{DType: p.Gamma.DType, Shape: []int{math.MaxInt - 3}, Strides: []int{0}, Bits: make([]uint16, 1)}
	_, err := ops.NewKVRMSNormRoPECache(p)
	if err == nil || strings.Contains(err.Error(), "-9") || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("error %v, want kv's last dimension refused without a wrapped sum", err)
	}
}
