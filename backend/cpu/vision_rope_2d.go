package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
)

func init() {
	ops.VisionRoPE2D.Register(&ops.Impl[ops.VisionRoPE2DArgs]{Backend: Name, Priority: 10, Fn: func(a ops.VisionRoPE2DArgs) { visionRoPE2D(&a) }})
}

// visionRoPE2D takes each token's cos/sin from native's float64 evaluation (bit for bit the
// reference's) and rotates with the active kernel set. Patches come row by row, so a half
// whose coordinate equals the previous token's keeps its cos/sin: row-major images recompute
// only the column half. A vision tower's call is a few thousand patches of one image; it runs
// on the calling goroutine.
func visionRoPE2D(a *ops.VisionRoPE2DArgs) {
	k := active
	half := a.RotaryDim / 2
	var invStack [256]float64
	var csStack [512]float32
	inv, buf := invStack[:], csStack[:]
	if half > len(inv) {
		inv, buf = make([]float64, half), make([]float32, 2*half)
	}
	inv, cos, sin := inv[:half], buf[:half], buf[half:2*half]
	native.VisionFreqs(a, inv)
	q := half / 2
	var last [2]int64
	for t := range a.Query.Tokens {
		for c, r := range [2][2]int{{0, q}, {q, half}} {
			if p := a.Positions.At(c, t); t == 0 || p != last[c] {
				native.VisionHalfCosSin(p, inv[r[0]:r[1]], cos[r[0]:r[1]], sin[r[0]:r[1]])
				last[c] = p
			}
		}
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}
