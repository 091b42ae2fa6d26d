package golden

import (
	"errors"
	"math"
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/hf"
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
	for name, f := range map[string]func() error{
		"ModelArgs{}.Read":          func() error { _, _, err := (ModelArgs{}).Read(); return err },
		"ModelArgs{}.LoadAt(-1)":    func() error { _, _, err := (ModelArgs{Preset: "llama-3.1-8b"}).LoadAt(-1); return err },
		"ModelArgs{}.LoadAt(huge)":  func() error { _, _, err := (ModelArgs{Preset: "llama-3.1-8b"}).LoadAt(math.MaxInt); return err },
		"ModelArgs{}.ConfigJSON":    func() error { _, err := (ModelArgs{}).ConfigJSON(); return err },
		"ModelArgs{Style: ?}":       func() error { _, err := (ModelArgs{Style: "?"}).Options(); return err },
		"FlagError(SelectionError)": func() error { return (ModelArgs{}).FlagError(&hf.SelectionError{Arg: "rules"}) },
		"ReadFiles()": func() error {
			s, err := ReadFiles()
			if err != nil || s == nil || len(s.Outputs()) != 0 {
				t.Errorf("ReadFiles(): %+v, %v; want an empty Set", s, err)
			}
			return errors.New("")
		},
		"ReadFiles(\"\")":     func() error { _, err := ReadFiles(""); return err },
		"nil Set.ReadFile":    func() error { return (*Set)(nil).ReadFile("") },
		"nil Set.Add":         func() error { return (*Set)(nil).Add("", tensor.Tensor{}, "") },
		"zero Set.ReadFile":   func() error { return (&Set{}).ReadFile("") },
		"Verify(nil, nil)":    func() error { _, err := Verify(nil, nil, VerifyOptions{}); return err },
		"Verify(zero, zero)":  func() error { _, err := Verify(&Set{}, &Set{}, VerifyOptions{}); return err },
		"Diff(nil, nil)":      func() error { _, err := Diff(nil, nil, compare.Options{}); return err },
		"Diff(zero, nil)":     func() error { _, err := Diff(&Set{}, nil, compare.Options{}); return err },
		"ReadPositions(\"\")": func() error { _, err := ReadPositions(""); return err },
		"ReadApplyArgs(\"\")": func() error { _, err := ReadApplyArgs("", nil); return err },
		"ReadModelArgs(\"\")": func() error { _, err := ReadModelArgs(""); return err },
		"RecordedModel(\"\")": func() error { _, _, err := RecordedModel(""); return err },
		"RecordedModel([])":   func() error { _, _, err := RecordedModel("[]"); return err },
		"Bundle{}.WriteFile":  func() error { return (Bundle{}).WriteFile("", "") },
		"WriteSuite(\"\")":    func() error { return WriteSuite("", nil, "") },
		"pure functions": func() error {
			_ = IsBundle(nil)
			_ = ApplyArg("", "")
			_ = DefaultOp(rotary.Spec{})
			_, _, _ = CandidateOutput(nil, "")
			_ = (*Set)(nil).Outputs()
			return errors.New("")
		},
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic: %v", name, r)
				}
			}()
			return f()
		}()
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
