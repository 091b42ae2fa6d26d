package golden

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/tensor"
)

// BatchPositions reads a rank-3 positions tensor, the [rows, B, S] that `rotary positions`
// writes, as [rows, B·S]: the batch's tokens one after another, as vLLM flattens a batch and as
// a query [B·S, H, D] holds them, so [rows, 1, T] is [rows, T]. Other ranks pass unchanged.
func BatchPositions(p tensor.Tensor) (tensor.Tensor, error) {
	if p.Rank() != 3 {
		return p, nil
	}
	flat, err := p.Reshape(p.Shape[0], p.Shape[1]*p.Shape[2])
	if err != nil {
		return tensor.Tensor{}, fmt.Errorf("positions: shape %s: %v", tensor.ShapeString(p.Shape), err)
	}
	return flat, nil
}

// Positions are the positions of a bundle's tokens: ParsePositions reads the forms a string
// names, PositionsOf one sequence's positions given as a tensor.
type Positions struct {
	kind  string // range, random or file
	start int64  // range: the first position
	limit int64  // random: positions lie below it (0: the model's cache length)
	file  tensor.Tensor
	// Label is how the bundle's metadata records them: range, range:START, random,
	// random:LIMIT or file:NAME.
	Label string
}

// ParsePositions reads range (0..N−1), range:START (START..START+N−1), random (seeded, below
// the model's cache length) or random:LIMIT (below LIMIT). ok is false for any other string,
// which names a file of positions (PositionsOf).
func ParsePositions(s string) (p Positions, ok bool, err error) {
	switch {
	case s == "range" || s == "random":
		return Positions{kind: s, Label: s}, true, nil
	case strings.HasPrefix(s, "random:"):
		v, err := strconv.ParseInt(strings.TrimPrefix(s, "random:"), 10, 64)
		if err != nil || v < 1 || v > math.MaxInt32 {
			return Positions{}, true, fmt.Errorf("--positions %q: want random:N with N an integer 1..%d", s, math.MaxInt32)
		}
		return Positions{kind: "random", limit: v, Label: s}, true, nil
	case strings.HasPrefix(s, "range:"):
		v, err := strconv.ParseInt(strings.TrimPrefix(s, "range:"), 10, 64)
		if err != nil || v < 0 || v > math.MaxInt32 {
			return Positions{}, true, fmt.Errorf("--positions %q: want range:START with START an integer 0..%d", s, math.MaxInt32)
		}
		return Positions{kind: "range", start: v, Label: s}, true, nil
	case s == "":
		return Positions{}, true, fmt.Errorf("--positions: empty (want range, range:START, random, random:LIMIT or a file)")
	}
	return Positions{}, false, nil
}

// PositionsOf takes one sequence's positions t, read from name: [T], [rows, T] or
// `rotary positions`' [rows, 1, T], I64 or I32; the bundle has T tokens.
func PositionsOf(t tensor.Tensor, name string) (Positions, error) {
	if t.Rank() == 3 && t.Shape[1] == 1 { // rotary positions' [rows, 1, T], as apply reads it
		t.Shape = []int{t.Shape[0], t.Shape[2]}
	}
	if t.Rank() == 3 && t.Shape[1] > 1 {
		return Positions{}, fmt.Errorf("--positions %s: positions %s hold a batch of %d sequences: a bundle is one sequence, [rows, 1, T] (rotary positions with one row of input ids)", name, tensor.ShapeString(t.Shape), t.Shape[1])
	}
	if (t.DType != tensor.I64 && t.DType != tensor.I32) || (t.Rank() != 1 && t.Rank() != 2) || t.Len() == 0 {
		return Positions{}, fmt.Errorf("--positions %s: positions %v %s: want I64 or I32, [T], [rows, T] or [rows, 1, T], T ≥ 1", name, t.DType, tensor.ShapeString(t.Shape))
	}
	return Positions{kind: "file", file: t, Label: "file:" + name}, nil
}

// ReadPositions reads positions as --positions names them: a form ParsePositions knows, or
// else a file (ReadFiles: safetensors, a directory of .npy files or one .npy file) whose
// tensor "positions" PositionsOf takes. Errors name --positions.
func ReadPositions(s string) (Positions, error) {
	if p, ok, err := ParsePositions(s); ok {
		return p, err
	}
	set, err := ReadFiles(s)
	if err != nil {
		return Positions{}, fmt.Errorf("--positions: %v", err)
	}
	t, ok := set.Tensors["positions"]
	if !ok {
		return Positions{}, fmt.Errorf("--positions %s: missing tensor %q", s, "positions")
	}
	return PositionsOf(t, s)
}
