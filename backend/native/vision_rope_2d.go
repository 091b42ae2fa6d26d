package native

import (
	"math"

	"github.com/rotary-go/rotary/ops"
)

func init() {
	ops.VisionRoPE2D.Register(&ops.Impl[ops.VisionRoPE2DArgs]{Backend: ops.Native, Fn: func(a ops.VisionRoPE2DArgs) { VisionRoPE2D(&a) }})
}

// VisionFreqs fills inv with the frequencies of a's pairs (len(inv) = RotaryDim/2).
func VisionFreqs(a *ops.VisionRoPE2DArgs, inv []float64) {
	for i := range inv {
		inv[i] = a.Freq(i)
	}
}

// VisionCosSin writes token t's cos and sin: pair i turns by its half's coordinate times
// inv[i], in float64, rounded once to float32 (VisionHalfCosSin on each half).
func VisionCosSin(a *ops.VisionRoPE2DArgs, inv []float64, t int, cos, sin []float32) {
	q := len(inv) / 2
	VisionHalfCosSin(a.Positions.At(0, t), inv[:q], cos[:q], sin[:q])
	VisionHalfCosSin(a.Positions.At(1, t), inv[q:], cos[q:], sin[q:])
}

// VisionHalfCosSin writes the cos and sin of p·inv[i] for every i, computed in float64 and
// rounded once to float32.
func VisionHalfCosSin(p int64, inv []float64, cos, sin []float32) {
	for i, f := range inv {
		s, c := math.Sincos(float64(p) * f)
		cos[i], sin[i] = float32(c), float32(s)
	}
}

// VisionRoPE2D is op vision_rope_2d: each token's q and k rotated by its 2-D position.
func VisionRoPE2D(a *ops.VisionRoPE2DArgs) {
	half := a.RotaryDim / 2
	inv := make([]float64, half)
	VisionFreqs(a, inv)
	cos, sin := make([]float32, half), make([]float32, half)
	for t := range a.Query.Tokens {
		VisionCosSin(a, inv, t, cos, sin)
		rotateQK(&a.RoPE, t, cos, sin)
	}
}
