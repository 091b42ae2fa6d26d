package native_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// The reference here builds what each context-parallel rank holds the way the split is
// described, not with the kernel's closed form: every full sequence is cut into 2·cp equal
// chunks and rank r takes chunk r, then chunk 2·cp−1−r. Each local token so knows its index in
// its full sequence; it rotates by table row start + index, in float64 (fwdRow64).

// thdBatch is one packed batch: full sequence lengths and start offsets (nil: zeros).
type thdBatch struct {
	lens   []int
	starts []int64
	cp     int
}

// thdLocal lists, for rank r, each local token's (sequence, index in the full sequence).
func thdLocal(b thdBatch, r int) (seq, idx []int) {
	for s, n := range b.lens {
		if b.cp == 1 { // one rank holds every sequence whole
			for i := range n {
				seq = append(seq, s)
				idx = append(idx, i)
			}
			continue
		}
		c := n / (2 * b.cp)
		for _, chunk := range []int{r, 2*b.cp - 1 - r} {
			for i := range c {
				seq = append(seq, s)
				idx = append(idx, chunk*c+i)
			}
		}
	}
	return seq, idx
}

func (b thdBatch) seqs(r int, i64 bool) ops.PackedSeqs {
	cu := make([]int64, len(b.lens)+1)
	for s, n := range b.lens {
		cu[s+1] = cu[s] + int64(n)
	}
	p := ops.PackedSeqs{CPSize: b.cp, CPRank: r}
	if i64 {
		p.CuSeqlens = tensor.FromI64(cu, len(cu))
	} else {
		c32 := make([]int32, len(cu))
		for i, v := range cu {
			c32[i] = int32(v)
		}
		p.CuSeqlens = tensor.FromI32(c32, len(c32))
	}
	if b.starts != nil {
		p.StartPositions = tensor.FromI64(b.starts, len(b.starts))
	}
	return p
}

func (b thdBatch) start(s int) int64 {
	if b.starts == nil {
		return 0
	}
	return b.starts[s]
}

// thdX is a [T, H, D] view whose heads sit in rows of D+pad elements (pad 0: contiguous), with
// guard values around and between them.
func thdX(dt tensor.DType, T, H, D, pad int, gen func(int) float64) tensor.Tensor {
	x := newTensor(dt, []int{T, H, D + pad}, 2, gen)
	x.Shape = []int{T, H, D}
	x.Strides = []int{H * (D + pad), D + pad, 1}
	return x
}

var thdBatches = []thdBatch{
	{lens: []int{7}, cp: 1},
	{lens: []int{3, 0, 5, 1}, starts: []int64{0, 4, 11, 2}, cp: 1},
	{lens: []int{8, 4, 12}, cp: 2},
	{lens: []int{12, 0, 6}, starts: []int64{1, 0, 30}, cp: 3},
}

// TestApplyRotaryEmbTHD: every rank of every batch, half and interleave, full and partial
// rotary, strided and in place, against the float64 evaluation of the described split.
func TestApplyRotaryEmbTHD(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const H, S = 3, 64
	for bi, b := range thdBatches {
		for _, dims := range [][2]int{{64, 64}, {80, 48}} {
			D, d := dims[0], dims[1]
			for _, gptj := range []bool{false, true} {
				for _, dts := range dtPairs {
					cos, sin := newTensor(dts.c, []int{S, d}, 0, uniform(rng)), newTensor(dts.c, []int{S, d}, 0, uniform(rng))
					for r := range b.cp {
						for _, inPlace := range []bool{false, true} {
							name := fmt.Sprintf("batch%d D%d d%d gptj=%v %v/%v rank %d inplace=%v", bi, D, d, gptj, dts.x, dts.c, r, inPlace)
							seq, idx := thdLocal(b, r)
							T := len(seq)
							x := thdX(dts.x, T, H, D, 3*bi%4, uniform(rng))
							x0 := cloneT(x)
							out := x
							if !inPlace {
								out = thdX(dts.x, T, H, D, 2, func(int) float64 { return 99 })
							}
							out0 := cloneT(out)
							a, err := ops.NewApplyRotaryEmbTHD(ops.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Out: out, Seqs: b.seqs(r, bi%2 == 0), Style: styleOf(gptj)})
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							native.ApplyRotaryEmbTHD(&a)
							thdCheck(t, name, x0, cos, sin, out0, out, gptj, func(tok int) int { return int(b.start(seq[tok])) + idx[tok] }, false)
						}
					}
				}
			}
		}
	}
}

// thdCheck compares out (before the call: out0) with the float64 forward (or, backward, the
// transposed rotation) of x0 at table row row(t) for each token t, and checks that nothing
// outside out's view changed.
func thdCheck(t *testing.T, name string, x0, cos, sin, out0, out tensor.Tensor, gptj bool, row func(int) int, backward bool) {
	t.Helper()
	T, H, D, d := x0.Shape[0], x0.Shape[1], x0.Shape[2], cos.Shape[1]
	exact := cos.DType != tensor.F32 && x0.DType != tensor.F32
	touched := map[int]bool{}
	var st roundStats
	defer st.check(t, name)
	fails := 0
	for tok := range T {
		p := row(tok)
		cv, sv := readRow(cos, []int{p, 0}, d), readRow(sin, []int{p, 0}, d)
		if backward {
			// The gradient of a rotation by θ is the rotation by −θ: x·cos + rotate(x)·sin with
			// sin's partner slots (the transposed rotation); evaluate it by probing instead.
			for j := range sv {
				sv[j] = -sv[j]
			}
			sv = thdPartnerSin(sv, gptj)
		}
		for h := range H {
			xv := readRow(x0, []int{tok, h, 0}, D)
			want := fwdRow64(xv, cv, sv, d, gptj)
			oi, xi := out.Index(tok, h, 0), x0.Index(tok, h, 0)
			for j := range D {
				touched[oi+j] = true
				if j >= d {
					if rawAt(out, oi+j) != rawAt(x0, xi+j) {
						t.Fatalf("%s: token %d head %d pass-through element %d: %#x, want %#x", name, tok, h, j, rawAt(out, oi+j), rawAt(x0, xi+j))
					}
					continue
				}
				a := xv[j] * cv[j]
				if err := checkVal(out.DType, out.Float64At(oi+j), want[j], sumBound(a, want[j]-a, exact), &st); err != nil {
					fails++
					t.Errorf("%s: token %d (row %d) head %d element %d: %v", name, tok, p, h, j, err)
					if fails > 10 {
						t.FailNow()
					}
				}
			}
		}
	}
	for i := range backing(out) {
		if !touched[i] && rawAt(out, i) != rawAt(out0, i) {
			t.Fatalf("%s: element %d outside out's view changed", name, i)
		}
	}
}

// thdPartnerSin moves each sin value to its pair partner's slot: with it, x·cos + rotate(x)·s'
// is the transposed rotation dy·cos + rotateᵀ(dy·sin) (checked against probing below).
func thdPartnerSin(s []float64, gptj bool) []float64 {
	d := len(s)
	p := make([]float64, d)
	for j := range d {
		switch {
		case gptj && j%2 == 0:
			p[j] = s[j+1]
		case gptj:
			p[j] = s[j-1]
		case j < d/2:
			p[j] = s[j+d/2]
		default:
			p[j] = s[j-d/2]
		}
	}
	return p
}

// TestTHDPartnerSinIsTranspose: the backward formula thdCheck uses is the transpose of the
// forward map, found by probing the forward with basis vectors.
func TestTHDPartnerSinIsTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, gptj := range []bool{false, true} {
		const d = 8
		c, s := make([]float64, d), make([]float64, d)
		for j := range d {
			c[j], s[j] = rng.Float64()*2-1, rng.Float64()*2-1
		}
		ns := make([]float64, d)
		for j := range d {
			ns[j] = -s[j]
		}
		ps := thdPartnerSin(ns, gptj)
		for k := range d {
			e := make([]float64, d)
			e[k] = 1
			row := fwdRow64(e, c, ps, d, gptj)
			// row is column k of the claimed transpose: it must equal row k of the forward.
			for j := range d {
				ej := make([]float64, d)
				ej[j] = 1
				fwdJK := fwdRow64(ej, c, s, d, gptj)[k]
				if math.Abs(row[j]-fwdJK) > 1e-15 {
					t.Fatalf("gptj=%v: transpose[%d][%d] = %v, forward[%d][%d] = %v", gptj, j, k, row[j], k, j, fwdJK)
				}
			}
		}
	}
}

// TestApplyRotaryEmbTHDBackward: dx against the transposed rotation, every rank, dx separate
// or aliasing dy.
func TestApplyRotaryEmbTHDBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const H, S = 2, 64
	for bi, b := range thdBatches {
		for _, gptj := range []bool{false, true} {
			for _, dts := range dtPairs {
				D, d := 64, 48
				cos, sin := newTensor(dts.c, []int{S, d}, 0, uniform(rng)), newTensor(dts.c, []int{S, d}, 0, uniform(rng))
				for r := range b.cp {
					for _, alias := range []bool{false, true} {
						name := fmt.Sprintf("batch%d gptj=%v %v/%v rank %d alias=%v", bi, gptj, dts.x, dts.c, r, alias)
						seq, idx := thdLocal(b, r)
						T := len(seq)
						dy := thdX(dts.x, T, H, D, 1, uniform(rng))
						dy0 := cloneT(dy)
						dx := dy
						if !alias {
							dx = thdX(dts.x, T, H, D, 0, func(int) float64 { return 7 })
						}
						dx0 := cloneT(dx)
						a, err := ops.NewApplyRotaryEmbTHDBackward(ops.ApplyRotaryEmbTHDBackwardParams{DY: dy, Cos: cos, Sin: sin, DX: dx, Seqs: b.seqs(r, true), Style: styleOf(gptj)})
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						native.ApplyRotaryEmbTHDBackward(&a)
						thdCheck(t, name, dy0, cos, sin, dx0, dx, gptj, func(tok int) int { return int(b.start(seq[tok])) + idx[tok] }, true)
					}
				}
			}
		}
	}
}

// TestApplyRotaryEmbTHDRanksMatchWhole: the ranks' outputs, put back in sequence order, are bit
// for bit the output of the same batch on one rank (cp_size 1), and a backward pass undoes a
// forward pass with proper cos/sin up to rounding.
func TestApplyRotaryEmbTHDRanksMatchWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	b := thdBatch{lens: []int{16, 8, 0, 24}, starts: []int64{5, 0, 3, 17}, cp: 4}
	const H, D, S = 2, 32, 64
	total := 0
	for _, n := range b.lens {
		total += n
	}
	for _, gptj := range []bool{false, true} {
		cos, sin := properCosSin(tensor.F32, []int{S, D}, gptj, 1)
		whole := newTensor(tensor.F32, []int{total, H, D}, 0, uniform(rng))
		wholeOut := tensor.Zeros(tensor.F32, total, H, D)
		one := b
		one.cp = 1
		a, err := ops.NewApplyRotaryEmbTHD(ops.ApplyRotaryEmbTHDParams{X: whole, Cos: cos, Sin: sin, Out: wholeOut, Seqs: one.seqs(0, false), Style: styleOf(gptj)})
		if err != nil {
			t.Fatal(err)
		}
		native.ApplyRotaryEmbTHD(&a)
		offsets := []int{0}
		for _, n := range b.lens {
			offsets = append(offsets, offsets[len(offsets)-1]+n)
		}
		for r := range b.cp {
			seq, idx := thdLocal(b, r)
			T := len(seq)
			x := tensor.Zeros(tensor.F32, T, H, D)
			for tok := range T {
				copy(x.F32[tok*H*D:(tok+1)*H*D], whole.F32[(offsets[seq[tok]]+idx[tok])*H*D:])
			}
			out := tensor.Zeros(tensor.F32, T, H, D)
			a, err := ops.NewApplyRotaryEmbTHD(ops.ApplyRotaryEmbTHDParams{X: x, Cos: cos, Sin: sin, Out: out, Seqs: b.seqs(r, false), Style: styleOf(gptj)})
			if err != nil {
				t.Fatal(err)
			}
			native.ApplyRotaryEmbTHD(&a)
			for tok := range T {
				g := offsets[seq[tok]] + idx[tok]
				for j := range H * D {
					if math.Float32bits(out.F32[tok*H*D+j]) != math.Float32bits(wholeOut.F32[g*H*D+j]) {
						t.Fatalf("gptj=%v rank %d token %d (sequence %d index %d): element %d differs from the whole batch", gptj, r, tok, seq[tok], idx[tok], j)
					}
				}
			}
			back := tensor.Zeros(tensor.F32, T, H, D)
			ab, err := ops.NewApplyRotaryEmbTHDBackward(ops.ApplyRotaryEmbTHDBackwardParams{DY: out, Cos: cos, Sin: sin, DX: back, Seqs: b.seqs(r, true), Style: styleOf(gptj)})
			if err != nil {
				t.Fatal(err)
			}
			native.ApplyRotaryEmbTHDBackward(&ab)
			for i := range back.F32 {
				if math.Abs(float64(back.F32[i]-x.F32[i])) > 1e-5 {
					t.Fatalf("gptj=%v rank %d: backward of forward differs at %d: %v, want %v", gptj, r, i, back.F32[i], x.F32[i])
				}
			}
		}
	}
}

// TestCPIndex pins the load-balanced split on a small case by hand: 2 ranks, a sequence of 8
// in chunks [0 1][2 3][4 5][6 7]: rank 0 holds chunks 0 and 3, rank 1 chunks 1 and 2.
func TestCPIndex(t *testing.T) {
	for r, want := range [][]int{{0, 1, 6, 7}, {2, 3, 4, 5}} {
		for s, w := range want {
			if got := ops.CPIndex(s, 4, 2, r); got != w {
				t.Errorf("rank %d local %d: index %d, want %d", r, s, got, w)
			}
		}
	}
	for s := range 5 {
		if got := ops.CPIndex(s, 5, 1, 0); got != s {
			t.Errorf("cp 1: index %d, want %d", got, s)
		}
	}
}
