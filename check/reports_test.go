package check

import (
	"testing"

	"github.com/rotary-go/rotary/gguf"
	"github.com/rotary-go/rotary/hf"
	"github.com/rotary-go/rotary/rope"
)

// TestReportsRefuseBadInput: the comparisons refuse nil and invalid arguments with an error,
// never a panic.
func TestReportsRefuseBadInput(t *testing.T) {
	if _, err := GGUF(nil, nil); err == nil {
		t.Error("GGUF(nil, nil): no error")
	}
	m, err := hf.Preset("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GGUF(&gguf.RoPE{}, m); err == nil {
		t.Error("GGUF of a zero RoPE: no error")
	}
	for _, s := range []rope.Spec{{}, {NoRoPE: true}, {HeadSize: -2, RotaryDim: 4, Base: 1}} {
		if _, err := Precision(s); err == nil {
			t.Errorf("Precision(%+v): no error", s)
		}
	}
	if _, err := Frameworks(nil, hf.ParseOptions{}, nil); err == nil {
		t.Error("Frameworks(nil): no error")
	}
}
