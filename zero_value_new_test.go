package rotary

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValueNew: CosSin.FullWidth on a nil or zero CosSin, the cos/sin streams
// (StreamFullWidth, StreamFullWidthRange, WriteCosSinCache, FullWidthStream) of a nil or zero
// Embedding or with zero, negative or huge arguments, and VisionRoPE2D with a nil dispatcher or
// zero parameters return an error, never panic.
func TestZeroValueNew(t *testing.T) {
	out := tensor.FromF32(make([]float32, 4), 1, 4)
	for _, c := range []struct {
		name string
		cs   *CosSin
	}{{"nil CosSin", nil}, {"zero CosSin", &CosSin{}}} {
		cs := c.cs
		noPanic(t, c.name+".FullWidth", func() {
			if err := cs.FullWidth(NeoX, out, out); err == nil || !strings.Contains(err.Error(), "cos/sin") {
				t.Errorf("%s.FullWidth: %v, want an error naming cos/sin", c.name, err)
			}
			if err := cs.FullWidth(NeoX, tensor.Tensor{}, tensor.Tensor{}); err == nil {
				t.Errorf("%s.FullWidth(zero outputs): no error", c.name)
			}
		})
	}
	for _, c := range []struct {
		name string
		e    *Embedding
	}{{"nil Embedding", nil}, {"zero Embedding", &Embedding{}}} {
		e := c.e
		noPanic(t, c.name+" streams", func() {
			if _, err := e.StreamFullWidth(tensor.FromI64([]int64{0}, 1), NeoX, tensor.F32); err == nil {
				t.Errorf("%s.StreamFullWidth: no error", c.name)
			}
			for _, n := range []int{-1, 0, math.MaxInt} {
				if _, err := e.StreamFullWidthRange(n, NeoX, tensor.F32); err == nil {
					t.Errorf("%s.StreamFullWidthRange(%d): no error", c.name, n)
				}
				if err := e.WriteCosSinCache(io.Discard, n, false); err == nil {
					t.Errorf("%s.WriteCosSinCache(%d): no error", c.name, n)
				}
			}
		})
	}
	noPanic(t, "zero FullWidthStream", func() {
		var s FullWidthStream
		if err := s.WriteCos(nil); err == nil || s.Tokens() != 0 {
			t.Errorf("zero FullWidthStream.WriteCos(nil): %v, %d tokens", err, s.Tokens())
		}
	})
	noPanic(t, "zero arguments of a built Embedding", func() {
		e, err := New(Spec{HeadSize: 4, RotaryDim: 4, Base: 10000, MaxPositions: 8})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.StreamFullWidth(tensor.Tensor{}, 0, tensor.Invalid); err == nil {
			t.Error("StreamFullWidth(zero Tensor, zero style, Invalid): no error")
		}
		if _, err := e.StreamFullWidthRange(0, Style(255), tensor.Invalid); err == nil {
			t.Error("StreamFullWidthRange(0, unknown style, Invalid): no error")
		}
		if err := e.WriteCosSinCache(nil, 0, true); err == nil {
			t.Error("WriteCosSinCache(nil, 0, long): no error")
		}
		if err := e.WriteCosSinCache(io.Discard, math.MaxInt, false); err == nil {
			t.Error("WriteCosSinCache(MaxInt rows): no error")
		}
	})
	d, err := ops.NewDispatcher("", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		d    *ops.Dispatcher
	}{{"nil dispatcher", nil}, {"dispatcher", d}} {
		noPanic(t, "VisionRoPE2D "+c.name, func() {
			if err := VisionRoPE2D(c.d, VisionRoPE2DParams{}); err == nil {
				t.Errorf("VisionRoPE2D(%s, zero params): no error", c.name)
			}
		})
	}
	noPanic(t, "VisionRoPE2D nil dispatcher, good params", func() {
		p := VisionRoPE2DParams{
			Positions: tensor.FromI64([]int64{0, 0}, 2, 1),
			Query:     tensor.FromF32(make([]float32, 4), 1, 1, 4),
			HeadSize:  4,
		}
		if err := VisionRoPE2D(nil, p); err != nil {
			t.Errorf("VisionRoPE2D(nil dispatcher): %v, want ops.Default's result", err)
		}
	})
}
