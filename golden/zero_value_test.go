package golden

import (
	"testing"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/tensor"
)

// TestZeroValues: zero and nil arguments of the exported API are errors, never panics.
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
}
