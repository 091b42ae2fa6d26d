package ops_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// garbageHeads has every field set, so that a field QueryKeyInto leaves alone shows.
func garbageHeads() ops.Heads {
	return ops.Heads{DType: tensor.F16, F32: make([]float32, 3), Bits: make([]uint16, 3), Off: 7, Tokens: 9,
		NumHeads: 9, HeadSize: 9, TokenStride: 11, HeadStride: 13}
}

// TestQueryKeyInto: QueryKeyInto over views that already hold something leaves q and k exactly
// as NewQueryKey returns them, accepted or refused, with the same error; an accepted view's
// strides are the tensor's own (Tensor.Stride), which it reads from the fields directly.
func TestQueryKeyInto(t *testing.T) {
	f32 := make([]float32, 4*2*8)
	strided := tensor.Tensor{DType: tensor.F32, Shape: []int{2, 2, 8}, Strides: []int{32, 8, 1}, Offset: 0, F32: f32}
	flatStrided := tensor.Tensor{DType: tensor.F32, Shape: []int{2, 16}, Strides: []int{24, 1}, Offset: 8, F32: f32}
	cases := []struct {
		name       string
		query, key tensor.Tensor
	}{
		{"3-D and 2-D", tensor.FromF32(f32[:32], 2, 2, 8), tensor.FromF32(f32[:16], 2, 8)},
		{"strided, no key", strided, tensor.Tensor{}},
		{"2-D strided", flatStrided, strided},
		{"bf16", tensor.FromBits(tensor.BF16, make([]uint16, 48), 3, 2, 8), tensor.FromBits(tensor.BF16, make([]uint16, 24), 3, 8)},
		{"no query", tensor.Tensor{}, strided},
		{"bad query", tensor.FromF32(f32[:8], 2, 8), strided},
		{"bad key", strided, tensor.FromF32(f32, 2, 3, 7)},
		{"dtypes differ", strided, tensor.FromBits(tensor.BF16, make([]uint16, 16), 2, 8)},
		{"tokens differ", strided, tensor.FromF32(f32[:24], 3, 8)},
		{"int query", tensor.FromI32(make([]int32, 16), 2, 8), tensor.Tensor{}},
	}
	for _, c := range cases {
		wq, wk, werr := ops.NewQueryKey(c.query, c.key, 8)
		q, k := garbageHeads(), garbageHeads()
		err := ops.QueryKeyInto(&q, &k, &c.query, &c.key, 8)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%s: error %v, NewQueryKey's %v", c.name, err, werr)
		}
		if !reflect.DeepEqual(q, wq) || !reflect.DeepEqual(k, wk) {
			t.Errorf("%s: views\n%+v\n%+v\nwant NewQueryKey's\n%+v\n%+v", c.name, q, k, wq, wk)
		}
		if err != nil {
			continue
		}
		for _, v := range []struct {
			h ops.Heads
			t tensor.Tensor
		}{{q, c.query}, {k, c.key}} {
			if !v.h.Present() {
				continue
			}
			head := v.t.Stride(1)
			if v.t.Rank() == 2 {
				head = 8
			}
			if v.h.TokenStride != v.t.Stride(0) || v.h.HeadStride != head || v.h.Off != v.t.Offset {
				t.Errorf("%s: token/head stride, offset %d, %d, %d; want %d, %d, %d", c.name, v.h.TokenStride, v.h.HeadStride, v.h.Off, v.t.Stride(0), head, v.t.Offset)
			}
		}
	}
}

// TestIntoNilPointers: the pointer-taking checks are public, so nil pointers are bad input, not a
// panic: each returns an error naming what is missing and writes nothing it was not given.
func TestIntoNilPointers(t *testing.T) {
	q := tensor.Zeros(tensor.F32, 1, 2, 8)
	var hq, hk ops.Heads
	for _, c := range []struct {
		name       string
		call       func() error
		wantSubstr string
	}{
		{"nil query", func() error { return ops.QueryKeyInto(&hq, &hk, nil, nil, 8) }, "query: missing"},
		{"nil q view", func() error { return ops.QueryKeyInto(nil, &hk, &q, nil, 8) }, "views"},
		{"nil k view", func() error { return ops.QueryKeyInto(&hq, nil, &q, nil, 8) }, "views"},
		{"nil positions", func() error { var p ops.Positions; return ops.PositionsInto(&p, nil, 1, nil, ops.NoLimit) }, "positions: missing"},
		{"nil positions view", func() error { p := tensor.Zeros(tensor.I64, 1); return ops.PositionsInto(nil, &p, 1, nil, ops.NoLimit) }, "view"},
	} {
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			err = c.call()
		}()
		if err == nil || !strings.Contains(err.Error(), c.wantSubstr) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.wantSubstr)
		}
	}
	// A nil key is no key, as the zero Tensor is.
	if err := ops.QueryKeyInto(&hq, &hk, &q, nil, 8); err != nil || !reflect.DeepEqual(hk, ops.Heads{}) {
		t.Errorf("nil key: %v, key view %+v: want no error and the zero view", err, hk)
	}
}
