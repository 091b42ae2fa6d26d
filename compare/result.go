package compare

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/rotary-go/rotary/tensor"
)

// Result is one tensor's comparison; its JSON form is a contract for tools. A refused pair
// (a tensor on one side only, dtypes or shapes that are not compared) has Problem set and
// Compared false, and its JSON omits the figures it does not have.
type Result struct {
	Name       string    `json:"name"`
	Candidate  string    `json:"candidate,omitempty"` // verify: the candidate's name for it
	DType      string    `json:"dtype"`
	Shape      []int     `json:"shape"`
	DTypeB     string    `json:"dtype_b,omitempty"` // set when it differs from dtype
	ShapeB     []int     `json:"shape_b,omitempty"` // set when it differs from shape
	ComparedAs string    `json:"compared_as,omitempty"`
	Compared   bool      `json:"compared"`
	Elements   int       `json:"elements"`
	MaxAbs     float64   `json:"max_abs_err"`
	MaxULP     int64     `json:"max_ulp"`
	NMSE       float64   `json:"nmse"`
	Mismatch   int       `json:"over_tolerance"`
	Tolerance  float64   `json:"atol"`
	ULPTol     int64     `json:"ulp_tolerance"`
	Notes      []string  `json:"notes,omitempty"`
	Worst      []Element `json:"worst,omitempty"`
	Problem    string    `json:"problem,omitempty"`
}

// Element is one element over tolerance, located.
type Element struct {
	Index  []int    `json:"index"`
	Axes   []string `json:"axes"`
	A      Value    `json:"a"`
	B      Value    `json:"b"`
	AbsErr Float    `json:"abs_err"`
	ULP    int64    `json:"ulp"`
	// ByULP: the element with the most ULPs, listed after the worst by absolute error, which
	// did not include it.
	ByULP bool `json:"by_ulp,omitempty"`
}

// Value is a located element's value: an integer tensor's exactly (float64 would merge
// I64 values past 2^53), a float tensor's as a Float.
type Value struct {
	f     float64
	i     int64
	isInt bool
}

func (v Value) MarshalJSON() ([]byte, error) {
	if v.isInt {
		return strconv.AppendInt(nil, v.i, 10), nil
	}
	return Float(v.f).MarshalJSON()
}

// Format prints the value as a tensor of dtype d holds it (see FormatValue).
func (v Value) Format(d tensor.DType) string {
	if v.isInt {
		return strconv.FormatInt(v.i, 10)
	}
	return FormatValue(d, v.f)
}

// Float is a float64 that JSON can hold when it is NaN or infinite: those are written as
// the strings "NaN", "+Inf" and "-Inf".
type Float float64

func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (r Result) MarshalJSON() ([]byte, error) {
	if !r.Compared {
		return json.Marshal(struct {
			Name      string `json:"name"`
			Candidate string `json:"candidate,omitempty"`
			DType     string `json:"dtype,omitempty"`
			Shape     []int  `json:"shape,omitempty"`
			DTypeB    string `json:"dtype_b,omitempty"`
			ShapeB    []int  `json:"shape_b,omitempty"`
			Compared  bool   `json:"compared"`
			Problem   string `json:"problem"`
		}{r.Name, r.Candidate, r.DType, r.Shape, r.DTypeB, r.ShapeB, false, r.Problem})
	}
	type plain Result // without this method
	p := plain(r)
	// JSON has no infinity: an infinite error is reported as the largest float64.
	p.MaxAbs, p.NMSE = min(p.MaxAbs, math.MaxFloat64), min(p.NMSE, math.MaxFloat64)
	if p.Shape == nil {
		p.Shape = []int{}
	}
	return json.Marshal(p)
}

// Refused makes the row of a pair that is not compared.
func Refused(name string, problem string) Result { return Result{Name: name, Problem: problem} }

// FormatValue prints a value of dtype d exactly and briefly.
func FormatValue(d tensor.DType, v float64) string {
	switch d {
	case tensor.F32, tensor.F16, tensor.BF16:
		return strconv.FormatFloat(v, 'g', -1, 32)
	case tensor.F64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
