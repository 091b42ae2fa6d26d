package bench

import (
	"time"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
)

// measure times t's op, a copy of the same byte count and the limit pass over the op's operands,
// all on the same threads, each at its best of five rounds.
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
	call, touched, err := t.c.Setup(t.dtype, t.tokens, disp)
	if err != nil {
		return Result{}, err
	}
	if err := call(); err != nil {
		return Result{}, err
	}
	bytes := Traffic(touched)
	op, T := t.c.Op, t.tokens
	threads := 1
	if disp.Which(op) == cpu.Name && T > 1 {
		threads = cpu.ThreadsFor(bytes) // the copy and the limit get the threads the op gets
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
	limit := limitPass(touched, threads > 1)
	// Interleave the rounds so that all three see the same machine state; keep the best of each.
	// Each timed batch follows a quarter as many untimed calls: L3 keeps part of a working set
	// larger than itself only after a few passes over it, so whatever ran right after the copy
	// (whose buffers evict everything) would pay for it, a few percent at 4096 tokens.
	batch := func(f func() error, n int) time.Duration {
		for range n / 4 {
			f()
		}
		start := time.Now()
		for range n {
			f()
		}
		return time.Since(start) / time.Duration(n)
	}
	fs := [3]func() error{call, cp, limit}
	var n [3]int
	var best [3]time.Duration
	for i, f := range fs {
		n[i] = calibrate(f, c.Time/5)
	}
	for range 5 {
		for i, f := range fs {
			if d := batch(f, n[i]); best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	ns := max(float64(best[0].Nanoseconds()), 1)
	cns := max(float64(best[1].Nanoseconds()), 1)
	lns := max(float64(best[2].Nanoseconds()), 1)
	return Result{
		Op: op, Backend: t.backend, DType: t.dtype.String(), Model: t.c.Model, Tokens: T, Threads: threads,
		NsPerCall: ns, GBps: float64(bytes) / ns, CopyGBps: float64(bytes) / cns, Ratio: cns / ns,
		LimitGBps: float64(bytes) / lns, LimitRatio: lns / ns,
		Served: disp.Which(op),
	}, nil
}

// limitPass is the op's memory traffic without its arithmetic (cpu.Stream): every byte the op
// writes loaded and stored back in place, every byte it only reads loaded, with full-width
// vectors. An output is loaded too: a store to a line not in cache reads it first
// (write-allocate), so the op's own stores pay that read as well.
func limitPass(touched []Operand, threaded bool) func() error {
	var rw, ro [][]byte
	for _, o := range touched {
		if o.Access == Read {
			ro = append(ro, o.Bytes)
		} else {
			rw = append(rw, o.Bytes)
		}
	}
	return func() error {
		cpu.Stream(rw, ro, threaded)
		return nil
	}
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
