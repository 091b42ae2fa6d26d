package golden

import (
	"fmt"
	"math"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/internal/zerotest"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValues: zero and nil arguments of the exported API (nil and zero Sets, empty
// apply_args, paths and formats, the zero ModelArgs and Bundle, layers out of range) are errors,
// never panics.
func TestZeroValues(t *testing.T) {
	for _, name := range Names() {
		if _, err := Run(name, Call{}); err == nil {
			t.Errorf("Run(%s, Call{}): no error", name)
		}
	}
	if _, err := Run("no_such_op", Call{}); err == nil {
		t.Error("Run(no_such_op): no error")
	}
	if _, err := Make(Options{}); err == nil {
		t.Error("Make(Options{}): no error")
	}
	if _, err := Suite(Options{}, Vary{DType: true, Tokens: true, Layer: true, Positions: true}); err == nil {
		t.Error("Suite(Options{}): no error")
	}
	noModel := Model{Load: func(int) (*hf.Model, rotary.Spec, error) { return nil, rotary.Spec{}, nil }}
	if _, err := Make(Options{Op: "rotary_embedding", Model: noModel}); err == nil {
		t.Error("Make with a Load that returns no model: no error")
	}
	if _, err := Suite(Options{Op: "rotary_embedding", Model: noModel}, Vary{Layer: true}); err == nil {
		t.Error("Suite with a Load that returns no model: no error")
	}
	var op *Op
	if err := op.CheckParams(nil); err == nil {
		t.Error("(*Op)(nil).CheckParams: no error")
	}
	if _, err := (Args{"no-such-param": "1"}).Normalize(); err == nil {
		t.Error("Normalize of an unknown parameter: no error")
	}
	if _, _, err := (ModelArgs{}).Load(); err == nil {
		t.Error("ModelArgs{}.Load: no error")
	}
	if _, err := (ModelArgs{}).Model(); err == nil {
		t.Error("ModelArgs{}.Model: no error")
	}
	if err := (ModelArgs{}).CheckConfig(nil); err == nil {
		t.Error("ModelArgs{}.CheckConfig(nil): no error")
	}
	if (ModelArgs{}).FlagError(nil) != nil {
		t.Error("FlagError(nil): not nil")
	}
	if _, err := PositionsOf(tensor.Tensor{}, ""); err == nil {
		t.Error("PositionsOf(zero Tensor): no error")
	}
	if _, err := Make(Options{Op: "apply_rotary_emb", Model: Model{Load: func(int) (*hf.Model, rotary.Spec, error) { return &hf.Model{}, rotary.Spec{}, nil }}}); err == nil {
		t.Error("Make on a model with a zero spec: no error")
	}
	zerotest.Run(t, map[string]func() error{
		"ModelArgs{}.Read": func() error { _, _, err := (ModelArgs{}).Read(); return zerotest.WantErr(err) },
		"ModelArgs{}.LoadAt(-1)": func() error {
			_, _, err := (ModelArgs{Preset: "llama-3.1-8b"}).LoadAt(-1)
			return zerotest.WantErr(err)
		},
		"ModelArgs{}.LoadAt(huge)": func() error {
			_, _, err := (ModelArgs{Preset: "llama-3.1-8b"}).LoadAt(math.MaxInt)
			return zerotest.WantErr(err)
		},
		"ModelArgs{}.ConfigJSON":    func() error { _, err := (ModelArgs{}).ConfigJSON(); return zerotest.WantErr(err) },
		"ModelArgs{Style: ?}":       func() error { _, err := (ModelArgs{Style: "?"}).Options(); return zerotest.WantErr(err) },
		"FlagError(SelectionError)": func() error { return zerotest.WantErr((ModelArgs{}).FlagError(&hf.SelectionError{Arg: "rules"})) },
		"ReadFiles()": func() error {
			s, err := ReadFiles()
			if err != nil || s == nil || len(s.Outputs()) != 0 {
				return fmt.Errorf("%+v, %v; want an empty Set", s, err)
			}
			return nil
		},
		"ReadFiles(\"\")":     func() error { _, err := ReadFiles(""); return zerotest.WantErr(err) },
		"nil Set.ReadFile":    func() error { return zerotest.WantErr((*Set)(nil).ReadFile("")) },
		"nil Set.Add":         func() error { return zerotest.WantErr((*Set)(nil).Add("", tensor.Tensor{}, "")) },
		"zero Set.ReadFile":   func() error { return zerotest.WantErr((&Set{}).ReadFile("")) },
		"Verify(nil, nil)":    func() error { _, err := Verify(nil, nil, VerifyOptions{}); return zerotest.WantErr(err) },
		"Verify(zero, zero)":  func() error { _, err := Verify(&Set{}, &Set{}, VerifyOptions{}); return zerotest.WantErr(err) },
		"Diff(nil, nil)":      func() error { _, err := Diff(nil, nil, compare.Options{}); return zerotest.WantErr(err) },
		"Diff(zero, nil)":     func() error { _, err := Diff(&Set{}, nil, compare.Options{}); return zerotest.WantErr(err) },
		"ReadPositions(\"\")": func() error { _, err := ReadPositions(""); return zerotest.WantErr(err) },
		"ReadApplyArgs(\"\")": func() error { _, err := ReadApplyArgs("", nil); return zerotest.WantErr(err) },
		"ReadModelArgs(\"\")": func() error { _, err := ReadModelArgs(""); return zerotest.WantErr(err) },
		"RecordedModel(\"\")": func() error { _, _, err := RecordedModel(""); return zerotest.WantErr(err) },
		"RecordedModel([])":   func() error { _, _, err := RecordedModel("[]"); return zerotest.WantErr(err) },
		"Bundle{}.WriteFile":  func() error { return zerotest.WantErr((Bundle{}).WriteFile("", "")) },
		"WriteSuite(\"\")":    func() error { return zerotest.WantErr(WriteSuite("", nil, "")) },
		"pure functions": func() error {
			_ = IsBundle(nil)
			_ = ApplyArg("", "")
			_ = DefaultOp(rotary.Spec{})
			_, _, _ = CandidateOutput(nil, "")
			_ = (*Set)(nil).Outputs()
			return nil
		},
	})
}
