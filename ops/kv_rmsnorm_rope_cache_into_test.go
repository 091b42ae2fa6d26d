package ops_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// kvcGarbageArgs are a checked call's arguments (so the unexported row and index addressing is
// set, to values no case shares: views at offsets, a linear call) with every exported field then
// changed too, so that a field NewKVRMSNormRoPECacheInto leaves alone shows.
func kvcGarbageArgs(t *testing.T) ops.KVRMSNormRoPECacheArgs {
	t.Helper()
	p := kvValid()
	view := func(base tensor.Tensor, off int) tensor.Tensor {
		return tensor.Tensor{DType: base.DType, Shape: base.Shape, Offset: off, Bits: make([]uint16, len(base.Bits)+off)}
	}
	p.KV, p.Cos, p.Sin = view(p.KV, 5), view(p.Cos, 7), view(p.Sin, 3)
	p.KRoPE, p.CKV = view(p.KRoPE, 11), view(p.CKV, 13)
	p.Index = tensor.Tensor{DType: tensor.I64, Shape: []int{kvB * kvS}, Offset: 2, I64: []int64{9, 9, 0, 1, 2, 3, 4, 15}}
	a, err := ops.NewKVRMSNormRoPECache(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Linear(); !ok {
		t.Fatal("the garbage call is not linear")
	}
	a.Batch, a.Seq, a.Dv, a.Dk = 91, 92, 93, 94
	a.KLayout = ops.KVCacheLayout{Blocks: 1, BlockSize: 2, Off: 3, BlockStride: 4, SlotStride: 5, GroupStride: 6, Group: 7}
	a.CKVLayout = ops.KVCacheLayout{Blocks: 8, BlockSize: 9, Off: 10, BlockStride: 11, SlotStride: 12, GroupStride: 13, Group: 14}
	q := ops.KVQuant{Scale: make([]float32, 3), Offset: make([]float32, 3), ScaleAt: 1, ScaleStep: 2, OffsetAt: 3, OffsetStep: 4}
	a.KQuant, a.CKVQuant = q, q
	a.KRoPEScale, a.CKVScale = tensor.FromF32(make([]float32, 2), 2), tensor.FromF32(make([]float32, 3), 3)
	a.KRoPEOffset, a.CKVOffset = tensor.FromF32(make([]float32, 4), 4), tensor.FromF32(make([]float32, 5), 5)
	a.Epsilon, a.CacheMode = 7, "garbage"
	return a
}

// kvcFieldDiff names the fields of two arguments that differ, unexported ones included.
func kvcFieldDiff(got, want *ops.KVRMSNormRoPECacheArgs) string {
	g, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	var diff []string
	for i := range g.NumField() {
		if gs, ws := fmt.Sprintf("%#v", g.Field(i)), fmt.Sprintf("%#v", w.Field(i)); gs != ws {
			diff = append(diff, fmt.Sprintf("%s: %.300s\n\twant %.300s", g.Type().Field(i).Name, gs, ws))
		}
	}
	return strings.Join(diff, "\n")
}

// kvcParamsEqual is reflect.DeepEqual with a NaN epsilon equal to itself.
func kvcParamsEqual(x, y ops.KVRMSNormRoPECacheParams) bool {
	if math.Float64bits(x.Epsilon) != math.Float64bits(y.Epsilon) {
		return false
	}
	x.Epsilon, y.Epsilon = 0, 0
	return reflect.DeepEqual(x, y)
}

// TestKVRMSNormRoPECacheInto: NewKVRMSNormRoPECacheInto, over arguments that already hold
// another call's, leaves them exactly as NewKVRMSNormRoPECache returns them (every field,
// unexported ones included), accepted or refused, with the same error text; it does not change
// the parameters; and it may be handed the arguments' own parameters.
func TestKVRMSNormRoPECacheInto(t *testing.T) {
	cases := kvcCases()
	valid := 0
	for _, c := range cases {
		want, werr := ops.NewKVRMSNormRoPECache(c.p)
		if werr == nil {
			valid++
		}
		a := kvcGarbageArgs(t)
		p := c.p
		err := ops.NewKVRMSNormRoPECacheInto(&a, &p)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%s: error %v, NewKVRMSNormRoPECache's %v", c.name, err, werr)
		}
		if !reflect.DeepEqual(a, want) {
			t.Errorf("%s: arguments differ from NewKVRMSNormRoPECache's:\n%s", c.name, kvcFieldDiff(&a, &want))
		}
		if !kvcParamsEqual(p, c.p) {
			t.Errorf("%s: the parameters changed", c.name)
		}
		// The arguments' own parameters: the embedded struct is both source and destination.
		own := kvcGarbageArgs(t)
		own.KVRMSNormRoPECacheParams = c.p
		err = ops.NewKVRMSNormRoPECacheInto(&own, &own.KVRMSNormRoPECacheParams)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%s, own parameters: error %v, NewKVRMSNormRoPECache's %v", c.name, err, werr)
		}
		if !reflect.DeepEqual(own, want) {
			t.Errorf("%s, own parameters: arguments differ from NewKVRMSNormRoPECache's:\n%s", c.name, kvcFieldDiff(&own, &want))
		}
	}
	if valid == 0 || valid == len(cases) {
		t.Fatalf("%d of %d cases valid: want both kinds", valid, len(cases))
	}
	// Nil pointers are bad input, not a panic.
	p := kvValid()
	if err := ops.NewKVRMSNormRoPECacheInto(nil, &p); err == nil || !strings.Contains(err.Error(), "nil arguments") {
		t.Errorf("nil arguments: %v", err)
	}
	a := kvcGarbageArgs(t)
	if err := ops.NewKVRMSNormRoPECacheInto(&a, nil); err == nil || !strings.Contains(err.Error(), "parameters missing") {
		t.Errorf("nil parameters: %v", err)
	}
	if !reflect.DeepEqual(a, ops.KVRMSNormRoPECacheArgs{}) {
		t.Errorf("nil parameters: arguments not zeroed:\n%s", kvcFieldDiff(&a, &ops.KVRMSNormRoPECacheArgs{}))
	}
}

// TestKVRMSNormRoPECacheIntoNoAllocs: the checks themselves allocate nothing, at DeepSeek-V3's
// decode widths, for PA_BNSD (the slot mapping in order) and PA_NZ with an int8 cache.
func TestKVRMSNormRoPECacheIntoNoAllocs(t *testing.T) {
	for _, mode := range []ops.CacheMode{ops.CachePABNSD, ops.CachePANZ} {
		const B, Dv, Dk = 8, 512, 64
		d := tensor.BF16
		p := ops.KVRMSNormRoPECacheParams{
			KV: tensor.Zeros(d, B, 1, 1, Dv+Dk), Gamma: tensor.Zeros(d, Dv),
			Cos: tensor.Zeros(d, B, 1, 1, Dk), Sin: tensor.Zeros(d, B, 1, 1, Dk),
			Index:  tensor.FromI64([]int64{0, 7, 9, 64, 65, 130, 300, 511}, B),
			KCache: tensor.Zeros(tensor.I8, 4, 128, 1, Dk), CKVCache: tensor.Zeros(d, 4, 128, 1, Dv),
			KRoPEScale: tensor.FromF32(make([]float32, Dk), Dk),
			Epsilon:    1e-6, CacheMode: mode,
		}
		var a ops.KVRMSNormRoPECacheArgs
		if n := testing.AllocsPerRun(20, func() {
			if err := ops.NewKVRMSNormRoPECacheInto(&a, &p); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per call", mode, n)
		}
	}
}
