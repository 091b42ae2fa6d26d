package golden

import (
	"testing"

	"github.com/rotary-go/rotary/tensor"
)

// TestCandidateOutput: out.NAME first (a candidate that is a bundle holds its input under
// NAME), else NAME.
func TestCandidateOutput(t *testing.T) {
	in, out := tensor.FromF32([]float32{1}, 1), tensor.FromF32([]float32{2}, 1)
	if got, name, ok := CandidateOutput(map[string]tensor.Tensor{"query": in, "out.query": out}, "query"); !ok || name != "out.query" || got.F32[0] != 2 {
		t.Errorf("a bundle: %v %q %v, want out.query", got, name, ok)
	}
	if got, name, ok := CandidateOutput(map[string]tensor.Tensor{"query": in}, "query"); !ok || name != "query" || got.F32[0] != 1 {
		t.Errorf("outputs alone: %v %q %v, want query", got, name, ok)
	}
	if _, _, ok := CandidateOutput(nil, "query"); ok {
		t.Error("nil candidate: found query")
	}
}
