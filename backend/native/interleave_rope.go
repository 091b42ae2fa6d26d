package native

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.InterleaveRoPE.Register(&ops.Impl[ops.InterleaveRoPEArgs]{Backend: ops.Native, Fn: func(a ops.InterleaveRoPEArgs) { InterleaveRoPE(&a) }})
}

// InterleaveRoPE is the reference of op interleave_rope (ops.InterleaveRoPEArgs). Out may alias
// X: a row is read whole before it is written.
func InterleaveRoPE(a *ops.InterleaveRoPEArgs) {
	D := a.X.Shape[3]
	half := D / 2
	row := make([]float32, D)
	forRows(a.X.Shape, func(coords []int) {
		xi, oi := a.X.Index(coords...), a.Out.Index(coords...)
		ci, si := broadcastIndex(a.Cos, coords), broadcastIndex(a.Sin, coords)
		for j := range D {
			row[j] = a.X.Float32At(xi + j)
		}
		for i := range half {
			re, im := row[2*i], row[2*i+1]
			o1 := float32(re*a.Cos.Float32At(ci+i)) - float32(im*a.Sin.Float32At(si+i))
			o2 := float32(im*a.Cos.Float32At(ci+half+i)) + float32(re*a.Sin.Float32At(si+half+i))
			a.Out.SetFloat32(oi+i, o1)
			a.Out.SetFloat32(oi+half+i, o2)
		}
	})
}
