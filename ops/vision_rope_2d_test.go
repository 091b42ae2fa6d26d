package ops_test

import (
	"math"
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
	"github.com/rotary-go/rotary/tensor"
)

// FuzzVisionRoPE2DArgs feeds arbitrary tensors and parameters to NewVisionRoPE2D: no panic, an
// accepted query lies in its buffer with two coordinates per token, the frequencies are
// finite and in (0, 1], and small accepted calls run through the kernels without a panic.
func FuzzVisionRoPE2DArgs(f *testing.F) {
	// [4,2,8] BF16 query, [2,4] I64 positions (Qwen2-VL's layout, NeoX).
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.BF16, 4, 2, 8).contiguous(tensor.I64, 2, 4)), byte(0), byte(0), 0.0, 8)
	// [3,16] F32 query, [2,3] I32 positions, Pixtral's layout with GPT-J pairs.
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.F32, 3, 16).contiguous(tensor.I32, 2, 3)), byte(1), byte(1), 10000.0, 16)
	// Positions of the wrong rank, a tiny base.
	f.Add([]byte(fuzzEncode(nil).contiguous(tensor.F16, 2, 1, 4).contiguous(tensor.I64, 2)), byte(0), byte(1), 1.0000001, 4)
	f.Fuzz(func(t *testing.T, data []byte, layout, style byte, theta float64, headSize int) {
		r := &fuzzReader{b: data}
		q, pos := r.tensor(), r.tensor()
		for i := range pos.I64 {
			pos.I64[i] = math.MaxInt64 - int64(i)*(1<<40)
		}
		a, err := ops.NewVisionRoPE2D(ops.VisionRoPE2DParams{Positions: pos, Query: q, HeadSize: headSize, Theta: theta,
			Style: rope.Style(style % 3), Layout: ops.VisionLayout(layout % 3)})
		if err != nil {
			return
		}
		checkHeads(t, "NewVisionRoPE2D", a.Query, headSize)
		checkPositions(t, a.Positions, a.Query.Tokens, ops.NoLimit)
		if a.Positions.Rows != 2 {
			t.Fatalf("accepted %d position rows", a.Positions.Rows)
		}
		for i := range headSize / 2 {
			if f := a.Freq(i); !(f > 0 && f <= 1) {
				t.Fatalf("pair %d: frequency %v", i, f)
			}
		}
		if a.Query.Tokens*a.Query.NumHeads*a.Query.HeadSize <= 1<<14 {
			if _, err := ops.Run(ops.Default, ops.VisionRoPE2D, a); err != nil {
				t.Fatal(err)
			}
		}
	})
}
