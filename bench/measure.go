package bench

import (
	"time"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
)

// measure times t's op and a copy of the same byte count on the same threads, each at its best
// of five rounds.
func measure(c Config, t task) (Result, error) {
	backend := t.backend
	if impl, ok := cutPrefix(backend, cpu.Name+"/"); ok {
		if err := cpu.SetImplementation(impl); err != nil {
			return Result{}, err
		}
		backend = cpu.Name
	} else if backend == cpu.Name {
		cpu.SetImplementation(cpu.Implementations()[0])
	}
	spec := c.CustomOps
	if spec == "" {
		spec = "all"
	}
	disp, err := ops.NewDispatcher(spec, backend)
	if err != nil {
		return Result{}, err
	}
	call, bytes, err := t.c.Setup(t.dtype, t.tokens, disp)
	if err != nil {
		return Result{}, err
	}
	if err := call(); err != nil {
		return Result{}, err
	}
	op, T := t.c.Op, t.tokens
	threads := 1
	if disp.Which(op) == cpu.Name && T > 1 {
		threads = cpu.ThreadsFor(bytes) // the copy gets the threads the op gets
	}
	// The copy reads real bytes: a never-written src would map every page to the kernel's one
	// zero page, whose reads always hit the cache, and the baseline would not move the bytes.
	src := make([]byte, bytes/2)
	for i := range src {
		src[i] = byte(i*131 + i>>12)
	}
	dst := make([]byte, bytes/2)
	cp := func() error {
		if threads > 1 {
			cpu.Copy(dst, src) // same pool, same threads as the op
		} else {
			copy(dst, src)
		}
		return nil
	}
	// Interleave op and copy rounds so both see the same machine state; keep the best of each.
	best := func(f func() error, n int) time.Duration {
		start := time.Now()
		for range n {
			f()
		}
		return time.Since(start) / time.Duration(n)
	}
	n := calibrate(call, c.Time/5)
	nc := calibrate(cp, c.Time/5)
	var tOp, tCopy time.Duration
	for r := 0; r < 5; r++ {
		if d := best(call, n); tOp == 0 || d < tOp {
			tOp = d
		}
		if d := best(cp, nc); tCopy == 0 || d < tCopy {
			tCopy = d
		}
	}
	ns := float64(tOp.Nanoseconds())
	if ns == 0 {
		ns = 1
	}
	cns := max(float64(tCopy.Nanoseconds()), 1)
	return Result{
		Op: op, Backend: t.backend, DType: t.dtype.String(), Model: t.c.Model, Tokens: T, Threads: threads,
		NsPerCall: ns, GBps: float64(bytes) / ns, CopyGBps: float64(bytes) / cns, Ratio: cns / ns,
		Served: disp.Which(op),
	}, nil
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

// calibrate finds a repetition count that takes about d.
func calibrate(f func() error, d time.Duration) int {
	n := 1
	for {
		start := time.Now()
		for range n {
			f()
		}
		el := time.Since(start)
		if el >= d || n >= 1<<30 {
			return n
		}
		if el <= 0 {
			n *= 100
			continue
		}
		n = max(n+1, min(n*100, int(float64(n)*float64(d)/float64(el)*1.1)))
	}
}
