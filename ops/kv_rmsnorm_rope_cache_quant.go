package ops

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// KVQuant is the int8 quantisation of one cache: channel c uses Scale[ScaleAt + c·ScaleStep]
// and, when Offset is set, Offset[OffsetAt + c·OffsetStep] (step 0: one value per tensor).
type KVQuant struct {
	Scale, Offset        []float32
	ScaleAt, ScaleStep   int
	OffsetAt, OffsetStep int
}

// At is channel c's scale and offset (0 without offsets).
func (q *KVQuant) At(c int) (scale, offset float32) {
	if q.Offset != nil {
		offset = q.Offset[q.OffsetAt+c*q.OffsetStep]
	}
	return q.Scale[q.ScaleAt+c*q.ScaleStep], offset
}

// kvcQuantParams checks a cache's scale and offset (named sn and on) against its dtype and sets
// q (every field, whatever it held).
func kvcQuantParams(q *KVQuant, sn string, scale *tensor.Tensor, on string, offset *tensor.Tensor, cacheName string, cacheType tensor.DType, width int) error {
	*q = KVQuant{}
	if cacheType != tensor.I8 {
		n := ""
		switch {
		case scale.DType != tensor.Invalid:
			n = sn
		case offset.DType != tensor.Invalid:
			n = on
		default:
			return nil
		}
		return fmt.Errorf("%s: given, but %s is %v, not I8: only int8 caches are quantised", n, cacheName, cacheType)
	}
	if scale.DType == tensor.Invalid {
		return fmt.Errorf("%s: missing: %s is I8 and needs it (q = round(y·scale + offset))", sn, cacheName)
	}
	var err error
	if q.Scale, q.ScaleAt, q.ScaleStep, err = kvcQuantVector(sn, scale, width); err != nil {
		return err
	}
	if offset.DType != tensor.Invalid {
		if q.Offset, q.OffsetAt, q.OffsetStep, err = kvcQuantVector(on, offset, width); err != nil {
			return err
		}
	}
	return nil
}

// kvcQuantVector checks a per-channel ([width] or [1, width]) or per-tensor ([1]) F32 vector.
func kvcQuantVector(name string, t *tensor.Tensor, width int) ([]float32, int, int, error) {
	if err := tensor.CheckPtr(t, name); err != nil {
		return nil, 0, 0, err
	}
	if t.DType != tensor.F32 {
		return nil, 0, 0, fmt.Errorf("%s: dtype %v: want F32", name, t.DType)
	}
	sh := t.Shape
	switch {
	case len(sh) <= 2 && tensor.NumElements(sh) == 1:
		return t.F32, t.Offset, 0, nil
	case len(sh) == 1 && sh[0] == width, len(sh) == 2 && sh[0] == 1 && sh[1] == width:
		return t.F32, t.Offset, tensor.StrideOf(t, len(sh)-1), nil
	}
	return nil, 0, 0, fmt.Errorf("%s: shape %s: want [%d] or [1,%d] (per channel) or [1] (per tensor)", name, tensor.ShapeString(sh), width, width)
}
