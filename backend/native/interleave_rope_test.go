package native_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// The reference follows aclnnInterleaveRope's documented formula literally, in float64:
// q = reshape(x, [D/2, 2]).transpose(-1, -2).reshape(D); out = q·cos + RotateHalf(q)·sin with
// RotateHalf(q) = cat(−q[D/2:], q[:D/2]).

func ilrRow64(x, c, s []float64) []float64 {
	D := len(x)
	// reshape [D/2, 2] then transpose to [2, D/2]: element (k, i) of the transpose is x[2i+k].
	q := make([]float64, D)
	for k := range 2 {
		for i := range D / 2 {
			q[k*D/2+i] = x[2*i+k]
		}
	}
	rh := append(make([]float64, 0, D), q[D/2:]...)
	for i := range rh {
		rh[i] = -rh[i]
	}
	rh = append(rh, q[:D/2]...)
	out := make([]float64, D)
	for j := range D {
		out[j] = q[j]*c[j] + rh[j]*s[j]
	}
	return out
}

// TestInterleaveRoPE: the documented shapes (cos per batch and sequence, per batch only), full
// broadcast, other head dims, a strided x, in place, every dtype pairing.
func TestInterleaveRoPE(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	shapes := []struct {
		x, c     []int
		permuted bool
	}{
		{[]int{2, 3, 4, 64}, []int{2, 1, 4, 64}, false},
		{[]int{3, 2, 1, 64}, []int{3, 1, 1, 64}, false},
		{[]int{2, 2, 5, 64}, []int{1, 1, 1, 64}, false},
		{[]int{1, 3, 2, 128}, []int{1, 1, 2, 128}, false},
		{[]int{2, 3, 5, 6}, []int{2, 3, 5, 6}, false},
		{[]int{2, 3, 5, 64}, []int{2, 1, 5, 64}, true}, // x is a BNSD view of BSND memory
	}
	for _, sh := range shapes {
		for _, dts := range dtPairs {
			for _, inPlace := range []bool{false, true} {
				name := fmt.Sprintf("x%v cos%v permuted=%v %v/%v inplace=%v", sh.x, sh.c, sh.permuted, dts.x, dts.c, inPlace)
				x := newTensor(dts.x, sh.x, 3, uniform(rng))
				if sh.permuted {
					mem := []int{sh.x[0], sh.x[2], sh.x[1], sh.x[3]}
					x = newTensor(dts.x, mem, 3, uniform(rng))
					st := tensor.ContiguousStrides(mem)
					x.Shape, x.Strides = append([]int(nil), sh.x...), []int{st[0], st[2], st[1], st[3]}
				}
				cos, sin := newTensor(dts.c, sh.c, 0, uniform(rng)), newTensor(dts.c, sh.c, 0, uniform(rng))
				x0 := cloneT(x)
				out := x
				if !inPlace {
					out = newTensor(dts.x, sh.x, 2, func(int) float64 { return 55 })
				}
				out0 := cloneT(out)
				a, err := ops.NewInterleaveRoPE(ops.InterleaveRoPEParams{X: x, Cos: cos, Sin: sin, Out: out})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				native.InterleaveRoPE(&a)

				D := sh.x[3]
				exact := dts.x != tensor.F32 && dts.c != tensor.F32
				var st roundStats
				touched := map[int]bool{}
				for _, rc := range rowsOf(sh.x) {
					cc := bcast(sh.c, rc)
					xv := readRow(x0, rc, D)
					cv, sv := readRow(cos, cc, D), readRow(sin, cc, D)
					want := ilrRow64(xv, cv, sv)
					oi := out.Index(rc...)
					for j := range D {
						touched[oi+j] = true
						// The first product of element j is its q value times cos.
						qj := xv[2*(j%(D/2))+j/(D/2)]
						a := qj * cv[j]
						if err := checkVal(out.DType, out.Float64At(oi+j), want[j], sumBound(a, want[j]-a, exact), &st); err != nil {
							t.Fatalf("%s: row %v element %d: %v", name, rc, j, err)
						}
					}
				}
				st.check(t, name)
				for i := range backing(out) {
					if !touched[i] && rawAt(out, i) != rawAt(out0, i) {
						t.Fatalf("%s: element %d outside out's view changed", name, i)
					}
				}
			}
		}
	}
}

// TestInterleaveRoPEIsDeinterleavedGPTJ: with cos/sin of real angles, interleave_rope equals
// a GPT-J rotation (apply_rotary_emb, interleave mode, cos/sin repeat_interleaved) followed by
// moving the even elements to the front and the odd ones to the back, bit for bit.
func TestInterleaveRoPEIsDeinterleavedGPTJ(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	const S, D = 6, 64
	shape := []int{1, 2, S, D}
	x := newTensor(tensor.BF16, shape, 0, uniform(rng))
	neoxCos, neoxSin := properCosSin(tensor.F32, []int{1, 1, S, D}, false, 1)
	gptjCos, gptjSin := properCosSin(tensor.F32, []int{1, 1, S, D}, true, 1)
	out := tensor.Zeros(tensor.BF16, shape...)
	a, err := ops.NewInterleaveRoPE(ops.InterleaveRoPEParams{X: x, Cos: neoxCos, Sin: neoxSin, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	native.InterleaveRoPE(&a)
	ref := tensor.Zeros(tensor.BF16, shape...)
	b, err := ops.NewApplyRotaryEmb(ops.ApplyRotaryEmbParams{Layout: ops.BNSD, X: x, Cos: gptjCos, Sin: gptjSin, Out: ref, Style: rope.GPTJ})
	if err != nil {
		t.Fatal(err)
	}
	native.ApplyRotaryEmb(&b)
	for row := range 2 * S {
		for i := range D / 2 {
			for k := range 2 {
				got, want := out.Bits[row*D+k*D/2+i], ref.Bits[row*D+2*i+k]
				if got != want {
					t.Fatalf("row %d pair %d half %d: %#x, want the GPT-J result %#x", row, i, k, got, want)
				}
			}
		}
	}
}
