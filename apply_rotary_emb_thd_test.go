package rotary_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// rawBytes is the backing memory of a tensor, to tell whether a failed call wrote anything.
func rawBytes(t tensor.Tensor) []byte {
	var b bytes.Buffer
	switch {
	case t.F32 != nil:
		for _, v := range t.F32 {
			binary.Write(&b, binary.LittleEndian, math.Float32bits(v))
		}
	case t.Bits != nil:
		binary.Write(&b, binary.LittleEndian, t.Bits)
	}
	return b.Bytes()
}

// expectRefused runs call and wants an error holding every substring of want, with each of
// watched left exactly as it was.
func expectRefused(t *testing.T, name string, call func() error, want []string, watched ...tensor.Tensor) {
	t.Helper()
	before := make([][]byte, len(watched))
	for i, w := range watched {
		before[i] = rawBytes(w)
	}
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s: panic %v", name, p)
			}
		}()
		err = call()
	}()
	if err == nil {
		t.Errorf("%s: accepted", name)
		return
	}
	for _, s := range want {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%s: error %q lacks %q", name, err, s)
		}
	}
	for i, w := range watched {
		if !bytes.Equal(before[i], rawBytes(w)) {
			t.Errorf("%s: tensor %d was written", name, i)
		}
	}
}

func thdFilled(shape ...int) tensor.Tensor {
	t := tensor.Zeros(tensor.F32, shape...)
	for i := range t.F32 {
		t.F32[i] = float32(i%13)/7 - 0.9
	}
	return t
}

// TestApplyRotaryEmbTHDBadInput: each refused argument names itself, and neither out nor (in
// place) x changes.
func TestApplyRotaryEmbTHDBadInput(t *testing.T) {
	const T, H, D, S, d = 6, 2, 8, 16, 8
	cu := func(v ...int32) tensor.Tensor { return tensor.FromI32(v, len(v)) }
	type args struct {
		x, cos, sin, out tensor.Tensor
		seqs             ops.PackedSeqs
	}
	base := func() args {
		return args{x: thdFilled(T, H, D), cos: thdFilled(S, d), sin: thdFilled(S, d), out: thdFilled(T, H, D),
			seqs: ops.PackedSeqs{CuSeqlens: cu(0, 2, 6)}}
	}
	cases := []struct {
		name string
		mod  func(a *args)
		want []string
	}{
		{"cu_seqlens decreasing", func(a *args) { a.seqs.CuSeqlens = cu(0, 4, 2, 6) }, []string{"cu_seqlens", "decreases"}},
		{"cu_seqlens short of T", func(a *args) { a.seqs.CuSeqlens = cu(0, 2, 5) }, []string{"cu_seqlens", "ends at 5", "6 tokens"}},
		{"cu_seqlens past T", func(a *args) { a.seqs.CuSeqlens = cu(0, 2, 7) }, []string{"cu_seqlens", "ends at 7"}},
		{"cu_seqlens not from 0", func(a *args) { a.seqs.CuSeqlens = cu(1, 2, 6) }, []string{"cu_seqlens", "starts at 1"}},
		{"cu_seqlens empty", func(a *args) { a.seqs.CuSeqlens = cu() }, []string{"cu_seqlens", "empty"}},
		{"cu_seqlens missing", func(a *args) { a.seqs.CuSeqlens = tensor.Tensor{} }, []string{"cu_seqlens", "missing"}},
		{"cu_seqlens float", func(a *args) { a.seqs.CuSeqlens = tensor.FromF32([]float32{0, 2, 6}, 3) }, []string{"cu_seqlens", "dtype"}},
		{"cu_seqlens 2-D", func(a *args) { a.seqs.CuSeqlens = tensor.FromI32([]int32{0, 2, 6, 0}, 2, 2) }, []string{"cu_seqlens", "shape"}},
		{"cu_seqlens outside its buffer", func(a *args) {
			a.seqs.CuSeqlens = tensor.Tensor{DType: tensor.I32, Shape: []int{3}, Offset: 1, I32: []int32{0, 2, 6}}
		}, []string{"cu_seqlens", "outside"}},
		{"cp_rank = cp_size", func(a *args) { a.seqs.CPSize, a.seqs.CPRank = 2, 2 }, []string{"cp_rank 2"}},
		{"cp_rank negative", func(a *args) { a.seqs.CPSize, a.seqs.CPRank = 2, -1 }, []string{"cp_rank -1"}},
		{"cp_size negative", func(a *args) { a.seqs.CPSize = -2 }, []string{"cp_size -2"}},
		{"cp_size huge", func(a *args) { a.seqs.CPSize = 1 << 40 }, []string{"cp_size"}},
		{"length not a multiple of 2·cp", func(a *args) { a.seqs.CuSeqlens, a.seqs.CPSize = cu(0, 6, 12), 2 }, []string{"cu_seqlens", "sequence 0", "6 tokens", "multiple"}},
		{"cp end is not cp·T", func(a *args) { a.seqs.CuSeqlens, a.seqs.CPSize = cu(0, 4, 8), 2 }, []string{"cu_seqlens", "ends at 8", "× cp_size 2"}},
		{"table too short", func(a *args) { a.cos, a.sin = thdFilled(3, d), thdFilled(3, d) }, []string{"cos", "3 rows", "sequence 1", "position 3"}},
		{"table too short for cp", func(a *args) {
			a.seqs.CuSeqlens, a.seqs.CPSize, a.seqs.CPRank = cu(0, 4, 12), 2, 0
			a.cos, a.sin = thdFilled(7, d), thdFilled(7, d)
		}, []string{"cos", "7 rows", "sequence 1", "position 7"}},
		{"start position past the table", func(a *args) { a.seqs.StartPositions = tensor.FromI64([]int64{0, 16}, 2) }, []string{"cos", "starts at position 16"}},
		{"start position runs past the table", func(a *args) { a.seqs.StartPositions = tensor.FromI64([]int64{0, 13}, 2) }, []string{"cos", "reaches position 16"}},
		{"start position negative", func(a *args) { a.seqs.StartPositions = tensor.FromI32([]int32{-1, 0}, 2) }, []string{"start_positions", "negative"}},
		{"start positions count", func(a *args) { a.seqs.StartPositions = tensor.FromI64([]int64{0, 1, 2}, 3) }, []string{"start_positions", "3 values for 2 sequences"}},
		{"start positions float", func(a *args) { a.seqs.StartPositions = tensor.FromF32([]float32{0, 1}, 2) }, []string{"start_positions", "dtype"}},
		{"x not THD", func(a *args) { a.x, a.out = thdFilled(1, T, H, D), thdFilled(1, T, H, D) }, []string{"x", "shape"}},
		{"x integer", func(a *args) { a.x = tensor.FromI32(make([]int32, T*H*D), T, H, D) }, []string{"x", "dtype"}},
		{"x missing", func(a *args) { a.x = tensor.Tensor{} }, []string{"x", "missing"}},
		{"x head not contiguous", func(a *args) {
			a.x = tensor.Tensor{DType: tensor.F32, Shape: []int{T, H, D}, Strides: []int{H * D * 2, D * 2, 2}, F32: make([]float32, T*H*D*2)}
		}, []string{"x", "contiguous"}},
		{"out shape", func(a *args) { a.out = thdFilled(T, H, D+2) }, []string{"out", "shape"}},
		{"out dtype", func(a *args) { a.out = tensor.Zeros(tensor.BF16, T, H, D) }, []string{"out", "dtype"}},
		{"cos 3-D", func(a *args) { a.cos, a.sin = thdFilled(S, 1, d), thdFilled(S, 1, d) }, []string{"cos", "shape"}},
		{"cos odd width", func(a *args) { a.cos, a.sin = thdFilled(S, 7), thdFilled(S, 7) }, []string{"cos", "rotary dim 7"}},
		{"cos wider than the head", func(a *args) { a.cos, a.sin = thdFilled(S, 10), thdFilled(S, 10) }, []string{"cos", "rotary dim 10"}},
		{"sin shape", func(a *args) { a.sin = thdFilled(S+1, d) }, []string{"sin", "shape"}},
		{"sin dtype", func(a *args) { a.sin = tensor.Zeros(tensor.F16, S, d) }, []string{"sin", "dtype"}},
	}
	for _, c := range cases {
		for _, inPlace := range []bool{false, true} {
			a := base()
			c.mod(&a)
			if inPlace && a.x.DType == a.out.DType && slices.Equal(a.x.Shape, a.out.Shape) {
				a.out = a.x
			}
			expectRefused(t, c.name, func() error {
				return rotary.ApplyRotaryEmbTHD(nil, rotary.ApplyRotaryEmbTHDParams{X: a.x, Cos: a.cos, Sin: a.sin, Out: a.out, Seqs: a.seqs, Style: rotary.NeoX})
			}, c.want, a.x, a.out)
			if !strings.HasPrefix(c.name, "x") && !strings.HasPrefix(c.name, "out") {
				dy := a.x
				expectRefused(t, c.name+" (backward)", func() error {
					return rotary.ApplyRotaryEmbTHDBackward(nil, rotary.ApplyRotaryEmbTHDBackwardParams{DY: dy, Cos: a.cos, Sin: a.sin, DX: a.out, Seqs: a.seqs, Style: rotary.GPTJ})
				}, c.want, dy, a.out)
			}
		}
	}
	// The backward pass names its own tensors.
	a := base()
	expectRefused(t, "dx shape", func() error {
		return rotary.ApplyRotaryEmbTHDBackward(nil, rotary.ApplyRotaryEmbTHDBackwardParams{DY: a.x, Cos: a.cos, Sin: a.sin, DX: thdFilled(T, H, 4), Seqs: a.seqs, Style: rotary.NeoX})
	}, []string{"dx", "shape"}, a.x)
	expectRefused(t, "dy rank", func() error {
		return rotary.ApplyRotaryEmbTHDBackward(nil, rotary.ApplyRotaryEmbTHDBackwardParams{DY: thdFilled(T, H*D), Cos: a.cos, Sin: a.sin, DX: a.out, Seqs: a.seqs, Style: rotary.NeoX})
	}, []string{"dy", "shape"}, a.out)
}

// TestApplyRotaryEmbTHDEdges: empty sequences (padded cu_seqlens), zero tokens, and an empty
// sequence's start offset past the table (nothing reads it) are accepted; on every backend, the
// result equals apply_rotary_emb on the same rows.
func TestApplyRotaryEmbTHDEdges(t *testing.T) {
	const H, D, d = 2, 8, 8
	for _, backend := range []string{ops.Native, ops.Auto} {
		disp, err := ops.NewDispatcher("all", backend)
		if err != nil {
			t.Fatal(err)
		}
		// 5 tokens: sequences of 2 and 3 with empty ones around, padded at the end the way
		// fixed-size cu_seqlens are.
		x := thdFilled(5, H, D)
		seqs := ops.PackedSeqs{CuSeqlens: tensor.FromI64([]int64{0, 0, 2, 2, 5, 5, 5}, 7), StartPositions: tensor.FromI64([]int64{9, 1, 7, 0, 0, 0}, 6)}
		cos, sin := thdFilled(4, d), thdFilled(4, d)
		for i := range sin.F32 {
			sin.F32[i] = -sin.F32[i] / 2
		}
		out := tensor.Zeros(tensor.F32, 5, H, D)
		if err := rotary.ApplyRotaryEmbTHD(disp, rotary.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Out: out, Seqs: seqs, Style: rotary.NeoX}); err != nil {
			t.Fatalf("%s: %v", backend, err)
		}
		// Token rows: sequence 1 (tokens 0, 1) starts at 1; sequence 3 (tokens 2..4) at 0;
		// empty sequence 2's start 7 lies past the table, which is fine: no token uses it.
		rows := []int{1, 2, 0, 1, 2}
		gc, gs := tensor.Zeros(tensor.F32, 5, 1, d), tensor.Zeros(tensor.F32, 5, 1, d)
		for tok, r := range rows {
			copy(gc.F32[tok*d:(tok+1)*d], cos.F32[r*d:])
			copy(gs.F32[tok*d:(tok+1)*d], sin.F32[r*d:])
		}
		want := tensor.Zeros(tensor.F32, 5, H, D)
		if err := rotary.ApplyRotaryEmb(disp, rotary.ApplyRotaryEmbParams{Layout: ops.THD, X: x, Cos: gc, Sin: gs, Out: want, Style: rotary.NeoX}); err != nil {
			t.Fatal(err)
		}
		for i := range want.F32 {
			if math.Float32bits(want.F32[i]) != math.Float32bits(out.F32[i]) {
				t.Fatalf("%s: element %d: %v, want apply_rotary_emb's %v", backend, i, out.F32[i], want.F32[i])
			}
		}
		// Zero tokens, one empty sequence.
		empty := tensor.Zeros(tensor.F32, 0, H, D)
		if err := rotary.ApplyRotaryEmbTHD(disp, rotary.ApplyRotaryEmbTHDParams{X: empty, Cos: cos, Sin: sin, Out: empty, Seqs: ops.PackedSeqs{CuSeqlens: tensor.FromI32([]int32{0, 0}, 2), CPSize: 4, CPRank: 3}, Style: rotary.GPTJ}); err != nil {
			t.Errorf("%s: zero tokens: %v", backend, err)
		}
	}
}
