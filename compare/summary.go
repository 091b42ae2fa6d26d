package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/rotary-go/rotary/tensor"
)

// Summary is one tensor's figures, what rotary show prints. Its JSON form is a contract for
// tools: {"name", "dtype", "shape", "elements", "min", "max", "mean", "nan", "inf", "values"},
// values as the dtype holds them (an F32's shortest float32 text, an integer exactly), "min",
// "max" and "mean" null when there is no finite value, "values" left out when none was asked.
type Summary struct {
	Name     string
	DType    tensor.DType
	Shape    []int
	Elements int
	// Min and Max are the extremes of the finite values, nil when there is none. An integer
	// tensor's are exact.
	Min, Max *Value
	// Mean is the mean of the finite values, nil when there is none.
	Mean *Float
	// NaN and Inf count a float tensor's NaN and infinite elements.
	NaN, Inf int
	// Values are the first elements in row-major order, as many as Summarize was asked for.
	Values []Value
}

// Summarize computes the figures of tensor t, called name, and keeps its first values
// elements (row-major). Integers are exact (min and max as integers); floats count NaN and Inf
// apart and summarize the finite values. A view is gathered first. An invalid tensor
// (tensor.Tensor.Check) and a negative values are errors.
func Summarize(name string, t tensor.Tensor, values int) (Summary, error) {
	if err := t.Check(name); err != nil {
		return Summary{}, err
	}
	if values < 0 {
		return Summary{}, fmt.Errorf("values %d: want a count ≥ 0", values)
	}
	if !t.Contiguous() || t.Offset != 0 {
		c := t.Clone()
		if c.IsZero() {
			return Summary{}, fmt.Errorf("%s: shape %s of %v is too large to copy", name, tensor.ShapeString(t.Shape), t.DType)
		}
		t = c
	}
	s := Summary{Name: name, DType: t.DType, Shape: t.Shape, Elements: t.Len()}
	isFloat := t.DType.IsFloat() || t.DType == tensor.F64
	finite := 0
	var sum float64
	var lo, hi float64
	var ilo, ihi int64
	for i := range s.Elements {
		if !isFloat {
			v := t.Int64At(i)
			if finite == 0 || v < ilo {
				ilo = v
			}
			if finite == 0 || v > ihi {
				ihi = v
			}
			finite++
			sum += float64(v)
			continue
		}
		v := t.Float64At(i)
		switch {
		case math.IsNaN(v):
			s.NaN++
			continue
		case math.IsInf(v, 0):
			s.Inf++
			continue
		}
		if finite == 0 || v < lo {
			lo = v
		}
		if finite == 0 || v > hi {
			hi = v
		}
		finite++
		sum += v
	}
	if finite > 0 {
		if isFloat {
			s.Min, s.Max = &Value{f: lo}, &Value{f: hi}
		} else {
			s.Min, s.Max = &Value{i: ilo, isInt: true}, &Value{i: ihi, isInt: true}
		}
		mean := sum / float64(finite)
		if math.IsInf(mean, 0) {
			// F64 values near the largest overflow their sum; their mean does not.
			mean = 0
			for i := range s.Elements {
				if v := t.Float64At(i); !math.IsNaN(v) && !math.IsInf(v, 0) {
					mean += v / float64(finite)
				}
			}
		}
		m := Float(mean)
		s.Mean = &m
	}
	for i := range min(values, s.Elements) {
		if isFloat {
			s.Values = append(s.Values, Value{f: t.Float64At(i)})
		} else {
			s.Values = append(s.Values, Value{i: t.Int64At(i), isInt: true})
		}
	}
	return s, nil
}

// MarshalJSON writes s in the JSON form Summary describes.
func (s Summary) MarshalJSON() ([]byte, error) {
	shape := s.Shape
	if shape == nil {
		shape = []int{}
	}
	var values []json.RawMessage
	for _, v := range s.Values {
		values = append(values, v.jsonAs(s.DType))
	}
	var lo, hi json.RawMessage
	if s.Min != nil {
		lo = s.Min.jsonAs(s.DType)
	}
	if s.Max != nil {
		hi = s.Max.jsonAs(s.DType)
	}
	return json.Marshal(struct {
		Name     string            `json:"name"`
		DType    string            `json:"dtype"`
		Shape    []int             `json:"shape"`
		Elements int               `json:"elements"`
		Min      json.RawMessage   `json:"min"`
		Max      json.RawMessage   `json:"max"`
		Mean     *Float            `json:"mean"`
		NaN      int               `json:"nan"`
		Inf      int               `json:"inf"`
		Values   []json.RawMessage `json:"values,omitempty"`
	}{s.Name, s.DType.String(), shape, s.Elements, lo, hi, s.Mean, s.NaN, s.Inf, values})
}

// jsonAs is v in JSON as a tensor of dtype d holds it: an integer exactly, a finite float as
// Format prints it, NaN and the infinities as Float writes them.
func (v Value) jsonAs(d tensor.DType) json.RawMessage {
	switch {
	case v.isInt:
		return strconv.AppendInt(nil, v.i, 10)
	case math.IsNaN(v.f) || math.IsInf(v.f, 0):
		b, _ := Float(v.f).MarshalJSON()
		return b
	}
	return json.RawMessage(v.Format(d))
}

// IsInt reports whether v is an integer tensor's element.
func (v Value) IsInt() bool { return v.isInt }

// Float64 is v as a float64 (an integer beyond 2^53 rounded).
func (v Value) Float64() float64 {
	if v.isInt {
		return float64(v.i)
	}
	return v.f
}
