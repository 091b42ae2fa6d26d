package native

import (
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/rope"
)

func init() {
	ops.MRoPE.Register(&ops.Impl[ops.MRoPEArgs]{Backend: ops.Native, Fn: func(a ops.MRoPEArgs) { MRoPE(&a) }})
}

// MRoPEAxis is the position axis of pair i: chunked (Qwen2-VL) takes consecutive runs of
// sections; interleaved (Qwen3-VL, as Hugging Face defines it) takes axis 1 for i%3 == 1 while
// i < 3·s1, axis 2 for i%3 == 2 while i < 3·s2, and axis 0 otherwise. A fourth section, when
// present, extends the chunked form. ERNIE's layout and llama.cpp's IMROPE fourth row are
// rope.MRoPE.Axis's (the kernel reads them through ops.MRoPEArgs.Axis).
func MRoPEAxis(i int, sections []int, interleaved bool) int {
	m := rope.MRoPE{Sections: sections, Interleaved: interleaved}
	return m.Axis(i)
}

// MRoPE is op mrope: pair i of token t takes cos/sin from the cache row of its axis's position.
func MRoPE(a *ops.MRoPEArgs) {
	half := a.Cache.Half
	var stack [2 * 256]float32
	buf := stack[:]
	if 2*half > len(buf) {
		buf = make([]float32, 2*half)
	}
	cos, sin := buf[:half], buf[half:2*half]
	for t := range a.Query.Tokens {
		for i := range half {
			axis := a.Axis(i)
			c, s := a.Cache.Row(a.Positions.At(axis, t))
			cos[i], sin[i] = c[i], s[i]
		}
		rotateQK(&a.RoPE, t, cos, sin)
	}
}
