package native

import "github.com/rotary-go/rotary/ops"

func init() {
	ops.ApplyRotaryEmbTHD.Register(&ops.Impl[ops.ApplyRotaryEmbTHDArgs]{Backend: ops.Native, Fn: func(a ops.ApplyRotaryEmbTHDArgs) { ApplyRotaryEmbTHD(&a) }})
	ops.ApplyRotaryEmbTHDBackward.Register(&ops.Impl[ops.ApplyRotaryEmbTHDBackwardArgs]{Backend: ops.Native, Fn: func(a ops.ApplyRotaryEmbTHDBackwardArgs) { ApplyRotaryEmbTHDBackward(&a) }})
}

// thdForTokens calls fn with every local token of every sequence and its table row.
func thdForTokens(p *ops.PackedSeqs, fn func(t int, pos int)) {
	for b := range p.NumSeqs() {
		lo, hi := p.Local(b)
		for s := range hi - lo {
			fn(lo+s, int(p.Position(b, s)))
		}
	}
}

// ApplyRotaryEmbTHD is op apply_rotary_emb_thd: apply_rotary_emb's formula per head, each token
// taking the cos/sin row of its position in its sequence; the rest of each head is copied bit
// for bit. Out may alias X: a head's rotated part is read whole before it is written.
func ApplyRotaryEmbTHD(a *ops.ApplyRotaryEmbTHDArgs) {
	heads, width, d := a.X.Shape[1], a.X.Shape[2], a.RotaryDim
	row := make([]float32, width)
	thdForTokens(&a.PackedSeqs, func(t, pos int) {
		ci, si := a.Cos.Index(pos, 0), a.Sin.Index(pos, 0)
		for h := range heads {
			rotateRow(a.X, a.X.Index(t, h, 0), a.Out, a.Out.Index(t, h, 0), a.Cos, ci, a.Sin, si, d, a.GPTJ, row)
		}
	})
}

// ApplyRotaryEmbTHDBackward is apply_rotary_emb_thd's backward pass: dx = dy·cos +
// rotateᵀ(dy·sin) on the rotated elements, dx = dy bit for bit on the rest. DX may alias DY.
func ApplyRotaryEmbTHDBackward(a *ops.ApplyRotaryEmbTHDBackwardArgs) {
	heads, width, d := a.DY.Shape[1], a.DY.Shape[2], a.RotaryDim
	row := make([]float32, width)
	thdForTokens(&a.PackedSeqs, func(t, pos int) {
		ci, si := a.Cos.Index(pos, 0), a.Sin.Index(pos, 0)
		for h := range heads {
			backwardRow(a.DY, a.DY.Index(t, h, 0), a.DX, a.DX.Index(t, h, 0), a.Cos, ci, a.Sin, si, d, a.GPTJ, row)
		}
	})
}
