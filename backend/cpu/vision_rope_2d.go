package cpu

import (
	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
)

func init() {
	ops.VisionRoPE2D.Register(&ops.Impl[ops.VisionRoPE2DArgs]{Backend: Name, Priority: 10, Fn: func(a ops.VisionRoPE2DArgs) { visionRoPE2D(&a) }})
}

// visionRoPE2D takes each token's cos/sin from native's float64 evaluation (bit for bit the
// reference's) and rotates with the active kernel set. A vision tower's call is a few thousand
// patches of one image; it runs on the calling goroutine.
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
	for t := range a.Query.Tokens {
		native.VisionCosSin(a, inv, t, cos, sin)
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}
