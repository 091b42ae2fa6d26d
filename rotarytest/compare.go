package rotarytest

import (
	"fmt"
	"math"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// qkCase runs Embedding.Forward through both dispatchers, for each token count, on strided q
// and k with guard values around them: the in-place rotations must write their views only.
func (s *sweep) qkCase(op, name string, sp rotary.Spec, d tensor.DType, tokens []int, positions func(r *rng, T int) tensor.Tensor) {
	if s.lacks(op, name) {
		return
	}
	res := &Result{Op: op, Case: name}
	defer s.record(res)
	embRef, err := rotary.New(sp, rotary.WithCacheLen(4096), rotary.WithDispatcher(s.ref))
	if err != nil {
		res.Err = err
		return
	}
	embUnder, _ := rotary.New(sp, rotary.WithCacheLen(4096), rotary.WithDispatcher(s.under))
	r := rng(len(name))
	for _, T := range tokens {
		pos := positions(&r, T)
		q := newGuarded(d, T, 4, sp.HeadSize, 3, r.next())
		k := newGuarded(d, T, 2, sp.HeadSize, 5, r.next())
		q2, k2 := q.clone(), k.clone()
		if err := embRef.Forward(pos, q.t, k.t); err != nil {
			res.Err = err
			return
		}
		if err := embUnder.Forward(pos, q2.t, k2.t); err != nil {
			res.Err = err
			return
		}
		for _, pair := range [][2]guarded{{q, q2}, {k, k2}} {
			u, err := compare(pair[0], pair[1])
			if err != nil {
				res.Err = fmt.Errorf("%d tokens: %v", T, err)
				return
			}
			res.MaxULP = max(res.MaxULP, u)
		}
	}
}

// guarded is a strided [T, H, D] tensor whose gaps hold guard values that must survive.
type guarded struct {
	t     tensor.Tensor
	guard []bool // backing index is a guard
}

const (
	guardBits   = 0x7fc0dead // NaN payloads no kernel produces
	guardBits16 = 0x7dad
)

func newGuarded(d tensor.DType, T, H, D, pad int, seed uint64) guarded {
	ts := H*D + pad
	n := T*ts + pad
	t := tensor.Zeros(d, n)
	t.Shape, t.Strides, t.Offset = []int{T, H, D}, []int{ts, D, 1}, pad/2
	g := guarded{t: t, guard: make([]bool, n)}
	for i := range g.guard {
		g.guard[i] = true
	}
	r := rng(seed)
	for tok := range T {
		for h := range H {
			for j := range D {
				i := t.Index(tok, h, j)
				g.guard[i] = false
				v := r.value()
				if d == tensor.F32 {
					t.F32[i] = v
				} else {
					t.Bits[i] = tensor.FromFloat32(d, v)
				}
			}
		}
	}
	for i, isGuard := range g.guard {
		if !isGuard {
			continue
		}
		if d == tensor.F32 {
			t.F32[i] = math.Float32frombits(guardBits)
		} else {
			t.Bits[i] = guardBits16
		}
	}
	return g
}

func (g guarded) clone() guarded {
	c := g
	c.t.F32 = append([]float32(nil), g.t.F32...)
	c.t.Bits = append([]uint16(nil), g.t.Bits...)
	return c
}

// compare returns the worst ULP difference between two runs and checks the guards.
func compare(ref, got guarded) (int64, error) {
	d := ref.t.DType
	worst := int64(0)
	for i, isGuard := range ref.guard {
		var a, b float64
		var same bool
		if d == tensor.F32 {
			same = math.Float32bits(ref.t.F32[i]) == math.Float32bits(got.t.F32[i])
			a, b = float64(ref.t.F32[i]), float64(got.t.F32[i])
		} else {
			same = ref.t.Bits[i] == got.t.Bits[i]
			a, b = float64(tensor.ToFloat32(d, ref.t.Bits[i])), float64(tensor.ToFloat32(d, got.t.Bits[i]))
		}
		if same {
			continue
		}
		if isGuard {
			return 0, fmt.Errorf("wrote outside the view (backing index %d)", i)
		}
		worst = max(worst, tensor.ULPDiff(d, a, b))
	}
	return worst, nil
}

func whole(t tensor.Tensor) guarded { return guarded{t: t, guard: make([]bool, t.Len())} }

// compareOp runs f once under the reference dispatcher and once under the backend's, on inputs
// f must not modify (it allocates its outputs), and records the worst ULP difference over the
// outputs it returns (F32, F16 or BF16 tensors; integer outputs must match exactly).
func (s *sweep) compareOp(op, name string, f func(disp *ops.Dispatcher) ([]tensor.Tensor, error)) {
	if s.lacks(op, name) {
		return
	}
	res := &Result{Op: op, Case: name}
	defer s.record(res)
	want, err := f(s.ref)
	if err != nil {
		res.Err = err
		return
	}
	got, err := f(s.under)
	if err != nil {
		res.Err = err
		return
	}
	for i := range want {
		u, err := compareAny(want[i], got[i])
		if err != nil {
			res.Err = fmt.Errorf("output %d: %v", i, err)
			return
		}
		res.MaxULP = max(res.MaxULP, u)
	}
}

// compareAny compares two contiguous tensors of the same type: floats in ULP, others exactly.
func compareAny(want, got tensor.Tensor) (int64, error) {
	if want.DType != got.DType || want.Len() != got.Len() {
		return 0, fmt.Errorf("dtype/shape %v%v vs %v%v", want.DType, want.Shape, got.DType, got.Shape)
	}
	if want.DType.IsFloat() {
		return compare(whole(want), whole(got))
	}
	for i := range want.Len() {
		if want.Float64At(i) != got.Float64At(i) {
			return 0, fmt.Errorf("element %d: %v, want %v", i, got.Float64At(i), want.Float64At(i))
		}
	}
	return 0, nil
}

// record appends a case's result when the case returns, a panic in it becoming its error; it
// must be deferred directly so that its recover sees the panic.
func (s *sweep) record(res *Result) {
	if p := recover(); p != nil {
		res.Err = fmt.Errorf("panic: %v", p)
	}
	s.results = append(s.results, *res)
}
