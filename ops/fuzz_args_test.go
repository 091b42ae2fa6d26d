package ops_test

import (
	"encoding/binary"
	"math/big"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// The argument checks are the only thing between user tensors and kernels that index without
// bounds checks of their own: whatever shape, strides, offset and buffer length they are given,
// they must return an error or a view whose every element lies inside its buffer.

// fuzzReader decodes fuzz bytes into numbers; past the end it yields zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) int() int {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// maxBacking bounds the buffers the fuzzer allocates.
const maxBacking = 1 << 12

// tensor decodes one tensor: dtype, rank, shape, optional strides, offset and buffer length.
func (r *fuzzReader) tensor() tensor.Tensor {
	t := tensor.Tensor{DType: tensor.DType(r.byte() % 10)}
	rank := int(r.byte() % 6)
	t.Shape = make([]int, rank)
	for k := range t.Shape {
		t.Shape[k] = r.int()
	}
	switch r.byte() % 3 {
	case 1:
		t.Strides = make([]int, rank)
		for k := range t.Strides {
			t.Strides[k] = r.int()
		}
	case 2: // strides of the wrong rank
		t.Strides = make([]int, int(r.byte()%6))
		for k := range t.Strides {
			t.Strides[k] = r.int()
		}
	}
	t.Offset = r.int()
	n := r.int()
	if n < 0 {
		n = -n
	}
	n %= maxBacking + 1
	switch t.DType {
	case tensor.F32:
		t.F32 = make([]float32, n)
	case tensor.F16, tensor.BF16:
		t.Bits = make([]uint16, n)
	case tensor.F64:
		t.F64 = make([]float64, n)
	case tensor.I32:
		t.I32 = make([]int32, n)
	case tensor.I64:
		t.I64 = make([]int64, n)
	case tensor.I8:
		t.I8 = make([]int8, n)
	case tensor.U8:
		t.U8 = make([]uint8, n)
	}
	return t
}

// fuzzEncode is the inverse of fuzzReader for seeds: each value is a byte (for dtype, rank,
// stride mode) or an int (everything else), in the order the reader takes them.
type fuzzEncode []byte

func (e fuzzEncode) b(v ...byte) fuzzEncode { return append(e, v...) }
func (e fuzzEncode) i(v ...int) fuzzEncode {
	for _, x := range v {
		e = binary.AppendVarint(e, int64(x))
	}
	return e
}

// contiguousSeed encodes a contiguous tensor of the given dtype and shape with an exact buffer.
func (e fuzzEncode) contiguous(d tensor.DType, shape ...int) fuzzEncode {
	e = e.b(byte(d), byte(len(shape))).i(shape...).b(0).i(0)
	return e.i(tensor.NumElements(shape))
}

// span is the inclusive range of backing indices of a view with the given counts and strides
// plus a base offset, computed without overflow. ok is false when the view has no element.
func span(off int, counts, strides []int) (lo, hi *big.Int, ok bool) {
	lo, hi = big.NewInt(int64(off)), big.NewInt(int64(off))
	for k, n := range counts {
		if n <= 0 {
			return nil, nil, false
		}
		s := new(big.Int).Mul(big.NewInt(int64(n-1)), big.NewInt(int64(strides[k])))
		if s.Sign() < 0 {
			lo.Add(lo, s)
		} else {
			hi.Add(hi, s)
		}
	}
	return lo, hi, true
}

func checkSpan(t *testing.T, what string, off int, counts, strides []int, length int) {
	t.Helper()
	lo, hi, ok := span(off, counts, strides)
	if !ok {
		return
	}
	if lo.Sign() < 0 || hi.Cmp(big.NewInt(int64(length))) >= 0 {
		t.Fatalf("%s: accepted view (counts %v, strides %v, offset %d) spans [%v, %v] of a %d-element buffer", what, counts, strides, off, lo, hi, length)
	}
}

// elements is the element count of a view, saturated at limit+1 so it cannot overflow.
func elements(counts []int, limit int) int {
	n := 1
	for _, c := range counts {
		if c <= 0 {
			return 0
		}
		if n > limit/c {
			n = limit + 1
		} else {
			n *= c
		}
	}
	return min(n, limit+1)
}

func checkTensorSpan(t *testing.T, what string, x tensor.Tensor) {
	t.Helper()
	st := make([]int, x.Rank())
	for k := range st {
		st[k] = x.Stride(k)
	}
	n := 0
	switch x.DType {
	case tensor.F32:
		n = len(x.F32)
	case tensor.F16, tensor.BF16:
		n = len(x.Bits)
	default:
		t.Fatalf("%s: accepted dtype %v", what, x.DType)
	}
	checkSpan(t, what, x.Offset, x.Shape, st, n)
}

// FuzzHeads feeds arbitrary tensors to NewHeads, NewQueryKey, NewPositions,
// NewApplyRotaryEmb and NewApplyRotaryEmbBackward: no panic, and an accepted view lies inside its buffer. Small accepted
// views also go through the kernels, which must not panic on them either.
func FuzzHeads(f *testing.F) {
	var e fuzzEncode
	// [T,H,D] F32 query, head size 8.
	f.Add([]byte(fuzzEncode(nil).i(8).contiguous(tensor.F32, 3, 2, 8).contiguous(tensor.I64, 3).contiguous(tensor.F32, 2, 3, 8).contiguous(tensor.F32, 2, 1, 8).contiguous(tensor.F32, 2, 1, 8).b(0)), []byte(nil))
	// [T,H·D] BF16, positions [3,T].
	f.Add([]byte(fuzzEncode(nil).i(4).contiguous(tensor.BF16, 2, 8).contiguous(tensor.I32, 3, 2).contiguous(tensor.BF16, 1, 2, 1, 4).contiguous(tensor.BF16, 1, 2, 1, 4).contiguous(tensor.BF16, 1, 2, 1, 4).b(1)), []byte(nil))
	// Strided heads: tokens 40 apart, heads 10 apart, head size 8, offset 2.
	e = fuzzEncode(nil).i(8).b(byte(tensor.F32), 3).i(4, 4, 8).b(1).i(40, 10, 1).i(2, 160)
	f.Add([]byte(e.contiguous(tensor.I32, 4).b(0)), []byte(nil))
	// Negative strides reaching below the offset.
	e = fuzzEncode(nil).i(8).b(byte(tensor.F32), 3).i(2, 2, 8).b(1).i(-16, -8, 1).i(24, 32)
	f.Add([]byte(e.contiguous(tensor.I64, 2)), []byte(nil))
	// Dimensions whose product overflows int.
	e = fuzzEncode(nil).i(8).b(byte(tensor.F32), 3).i(1<<32, 1<<28, 8).b(0).i(0, 64)
	f.Add([]byte(e.b(byte(tensor.I64), 1).i(1<<32).b(0).i(0, 8)), []byte(nil))
	e = fuzzEncode(nil).i(4).b(byte(tensor.F16), 2).i(1<<62, 4).b(0).i(0, 64)
	f.Add([]byte(e), []byte(nil))
	// Huge strides.
	e = fuzzEncode(nil).i(8).b(byte(tensor.F32), 3).i(2, 2, 8).b(1).i(1<<62, 1<<62, 1).i(0, 64)
	f.Add([]byte(e), []byte(nil))
	f.Add([]byte(nil), []byte{1, 2, 3})

	f.Fuzz(func(t *testing.T, data, extra []byte) {
		r := &fuzzReader{b: data}
		d := r.int()
		q := r.tensor()
		pos := r.tensor()
		x, cs, sn := r.tensor(), r.tensor(), r.tensor()
		mode := r.byte()
		var k tensor.Tensor
		if len(extra) > 0 {
			k = (&fuzzReader{b: extra}).tensor()
		}

		// NewHeads divides by the head size; a model's head size is positive (rotary.Spec
		// validates it), so the fuzzer gives it one.
		if d <= 0 {
			d = 1 + (-d)%512
		}
		h, err := ops.NewHeads("query", q, d)
		if err == nil {
			checkHeads(t, "NewHeads", h, d)
		}
		qh, kh, err := ops.NewQueryKey(q, k, d)
		qkOK := err == nil
		if qkOK {
			checkHeads(t, "NewQueryKey query", qh, d)
			if kh.Present() {
				checkHeads(t, "NewQueryKey key", kh, d)
				if kh.Tokens != qh.Tokens || kh.DType != qh.DType {
					t.Fatalf("NewQueryKey: key %d tokens %v, query %d tokens %v", kh.Tokens, kh.DType, qh.Tokens, qh.DType)
				}
			}
		}

		tokens := 0
		if qkOK {
			tokens = qh.Tokens
		} else if pos.Rank() > 0 && len(pos.Shape) > 0 {
			tokens = pos.Shape[pos.Rank()-1]
		}
		allow := [][]int{nil, {3}, {3, 4}, {1}}[mode%4]
		limit := []int64{ops.NoLimit, 1, 100, 1 << 20}[mode/4%4]
		// NewPositions reads every position; a zero-stride view of billions of tokens is valid
		// but slow, so only views it can scan quickly go in.
		rows := 1
		if pos.Rank() == 2 {
			rows = pos.Shape[0]
		}
		if elements([]int{rows, tokens}, 1<<16) <= 1<<16 {
			p, err := ops.NewPositions(pos, tokens, allow, limit)
			if err == nil {
				checkPositions(t, p, tokens, limit)
				if qkOK && elements([]int{qh.Tokens, qh.NumHeads, d}, 1<<14) <= 1<<14 && elements([]int{kh.Tokens, kh.NumHeads, d}, 1<<14) <= 1<<14 {
					runRotaryEmbedding(t, qh, kh, p, d, mode&1 == 1)
				}
			}
		}

		for _, layout := range []ops.Layout{"", ops.BSND, ops.THD} {
			out := x
			if mode&2 != 0 {
				if x.Check("x") != nil || elements(x.Shape, maxBacking) > maxBacking {
					continue
				}
				out = tensor.Zeros(x.DType, x.Shape...)
			}
			a, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: layout, X: x, Cos: cs, Sin: sn, Out: out, Style: styleOf(mode&1 == 1)})
			if err != nil {
				continue
			}
			for _, v := range []struct {
				n string
				t tensor.Tensor
			}{{"x", a.X}, {"cos", a.Cos}, {"sin", a.Sin}, {"out", a.Out}} {
				checkTensorSpan(t, "NewApplyRotaryEmb "+v.n, v.t)
			}
			if a.RotaryDim <= 0 || a.RotaryDim%2 != 0 || a.RotaryDim > a.X.Shape[a.X.Rank()-1] {
				t.Fatalf("NewApplyRotaryEmb: rotary dim %d for x %v", a.RotaryDim, a.X.Shape)
			}
			if elements(a.X.Shape, 1<<14) <= 1<<14 {
				if _, err := ops.Run(ops.Default, ops.ApplyRotaryEmb, a); err != nil {
					t.Fatal(err)
				}
			}
			// The backward pass with dy = out and dx = out (in place), and no cos/sin gradients.
			b, err := ops.NewApplyRotaryEmbBackward(ops.ApplyRotaryEmbBackwardParams{Layout: layout, DY: out, X: x, Cos: cs, Sin: sn, DX: out, Style: styleOf(mode&1 == 1)})
			if err != nil {
				t.Fatalf("NewApplyRotaryEmbBackward rejects what the forward accepted: %v", err)
			}
			for _, v := range []struct {
				n string
				t tensor.Tensor
			}{{"dy", b.DY}, {"x", b.X}, {"cos", b.Cos}, {"sin", b.Sin}, {"dx", b.DX}} {
				checkTensorSpan(t, "NewApplyRotaryEmbBackward "+v.n, v.t)
			}
			if elements(b.X.Shape, 1<<14) <= 1<<14 {
				if _, err := ops.Run(ops.Default, ops.ApplyRotaryEmbBackward, b); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func checkHeads(t *testing.T, what string, h ops.Heads, d int) {
	t.Helper()
	if h.Tokens < 0 || h.NumHeads < 0 || h.HeadSize != d {
		t.Fatalf("%s: accepted %d tokens × %d heads × %d (head size %d)", what, h.Tokens, h.NumHeads, h.HeadSize, d)
	}
	n := 0
	switch h.DType {
	case tensor.F32:
		n = len(h.F32)
	case tensor.F16, tensor.BF16:
		n = len(h.Bits)
	default:
		t.Fatalf("%s: accepted dtype %v", what, h.DType)
	}
	checkSpan(t, what, h.Off, []int{h.Tokens, h.NumHeads, h.HeadSize}, []int{h.TokenStride, h.HeadStride, 1}, n)
}

func checkPositions(t *testing.T, p ops.Positions, tokens int, limit int64) {
	t.Helper()
	if p.Tokens != tokens || p.Rows < 1 {
		t.Fatalf("NewPositions: %d rows × %d tokens, asked for %d tokens", p.Rows, p.Tokens, tokens)
	}
	n := len(p.I64)
	if p.I32 != nil {
		n = len(p.I32)
	}
	checkSpan(t, "NewPositions", p.Off, []int{p.Rows, p.Tokens}, []int{p.RowStride, p.Stride}, n)
	for r := range p.Rows {
		for i := range p.Tokens {
			v := p.At(r, i)
			if v < 0 || v > p.Max || (limit >= 0 && v >= limit) {
				t.Fatalf("NewPositions: position %d at [%d,%d] (max %d, limit %d)", v, r, i, p.Max, limit)
			}
		}
	}
}

// runRotaryEmbedding runs the accepted views through rotary_embedding on the native kernel and
// on the default dispatch, with a cos/sin cache covering every position.
func runRotaryEmbedding(t *testing.T, q, k ops.Heads, p ops.Positions, d int, gptj bool) {
	t.Helper()
	rd := d &^ 1
	if rd == 0 || p.Rows != 1 || p.Max >= 1<<12 {
		return
	}
	half := rd / 2
	rows := int(p.Max) + 1
	cache := ops.CosSinCache{Data: make([]float32, rows*2*half), Rows: rows, Half: half}
	for i := range cache.Data {
		cache.Data[i] = float32(i%7) / 7
	}
	a := ops.RotaryEmbeddingArgs{RoPE: ops.RoPE{RotaryDim: rd, GPTJ: gptj, Query: q, Key: k}, Positions: p, Cache: cache}
	native, err := ops.NewDispatcher("none", ops.Auto)
	if err != nil {
		t.Fatal(err)
	}
	for _, disp := range []*ops.Dispatcher{native, ops.Default} {
		if _, err := ops.Run(disp, ops.RotaryEmbedding, a); err != nil {
			t.Fatal(err)
		}
	}
}

// styleOf is the pair style a test's GPT-J flag names.
func styleOf(gptj bool) rope.Style {
	if gptj {
		return rope.GPTJ
	}
	return rope.NeoX
}
