package cpu

import (
	"fmt"

	"github.com/rotary-go/rotary/backend/native"
	"github.com/rotary-go/rotary/ops"
)

var (
	impls  = available()
	active = impls[0] // chosen once; tests switch it with use
)

// Implementations names the kernel sets this machine can run, best first ("avx512", "avx2",
// "generic").
func Implementations() []string {
	names := make([]string, len(impls))
	for i, k := range impls {
		names[i] = k.name
	}
	return names
}

// Active names the kernel set in use.
func Active() string { return active.name }

// SetImplementation switches the kernel set by name, for tests and benchmarks that compare
// them; it must not run concurrently with calls.
func SetImplementation(name string) error {
	for _, k := range impls {
		if k.name == name {
			active = k
			return nil
		}
	}
	return fmt.Errorf("cpu: implementation %q not available here (have %v)", name, Implementations())
}

func rotateQK(k *kernels, r *ops.RoPE, t int, cos, sin []float32) {
	rotateHeads(k, &r.Query, t, cos, sin, r.GPTJ)
	if r.Key.Present() {
		rotateHeads(k, &r.Key, t, cos, sin, r.GPTJ)
	}
}

func rotaryEmbedding(a *ops.RotaryEmbeddingArgs, lo, hi int) {
	k := active
	for t := lo; t < hi; t++ {
		cos, sin := a.Cache.Row(a.Positions.At(0, t))
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}

func gathered(a *ops.GatheredArgs, lo, hi int) {
	k := active
	h := a.Half
	for t := lo; t < hi; t++ {
		rotateQK(k, &a.RoPE, t, a.Cos[t*h:(t+1)*h], a.Sin[t*h:(t+1)*h])
	}
}

func mrope(a *ops.MRoPEArgs, lo, hi int) {
	k := active
	half := a.Cache.Half
	var stack [2 * 256]float32
	var axisStack [256]uint8
	buf, axis := stack[:], axisStack[:]
	if half > len(axis) {
		buf, axis = make([]float32, 2*half), make([]uint8, half)
	}
	cos, sin, axis := buf[:half], buf[half:2*half], axis[:half]
	for i := range axis {
		axis[i] = uint8(native.MRoPEAxis(i, a.Sections, a.Interleaved))
	}
	var rows [4][]float32 // the cache row of each axis's position
	for t := lo; t < hi; t++ {
		for r := range a.Positions.Rows {
			p := a.Positions.At(r, t)
			rows[r] = a.Cache.Data[int(p)*2*half : (int(p)+1)*2*half]
		}
		for i, ax := range axis {
			row := rows[ax]
			cos[i], sin[i] = row[i], row[half+i]
		}
		rotateQK(k, &a.RoPE, t, cos, sin)
	}
}

// bytesPerToken is what one token of a rotation reads and writes.
func bytesPerToken(r *ops.RoPE) int {
	n := r.Query.NumHeads * r.RotaryDim * r.Query.DType.Size()
	if r.Key.Present() {
		n += r.Key.NumHeads * r.RotaryDim * r.Key.DType.Size()
	}
	return 2 * n
}

func init() {
	ops.RotaryEmbedding.Register(&ops.Impl[ops.RotaryEmbeddingArgs]{Backend: Name, Priority: 10, Fn: func(a ops.RotaryEmbeddingArgs) {
		if !worthThreads(a.Query.Tokens, &a.RoPE) {
			rotaryEmbedding(&a, 0, a.Query.Tokens)
			return
		}
		parallel(&job{kind: jobRotaryEmbedding, re: a}, a.Query.Tokens)
	}})
	ops.RotaryEmbeddingGather.Register(&ops.Impl[ops.GatheredArgs]{Backend: Name, Priority: 10, Fn: func(a ops.GatheredArgs) {
		if !worthThreads(a.Query.Tokens, &a.RoPE) {
			gathered(&a, 0, a.Query.Tokens)
			return
		}
		parallel(&job{kind: jobGathered, g: a}, a.Query.Tokens)
	}})
	ops.MRoPE.Register(&ops.Impl[ops.MRoPEArgs]{Backend: Name, Priority: 10, Fn: func(a ops.MRoPEArgs) {
		if !worthThreads(a.Query.Tokens, &a.RoPE) {
			mrope(&a, 0, a.Query.Tokens)
			return
		}
		parallel(&job{kind: jobMRoPE, mr: a}, a.Query.Tokens)
	}})
}

// Name is the backend's registry name.
const Name = "cpu"
