package bench

import (
	"time"

	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
)

// measure times t's op, a copy of the same byte count and the limit pass over the op's operands,
// all on the same threads and from the same cache state (cacheState), each at its best of five
// rounds.
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
	state := cacheStateFor(workingSet(touched))
	// Interleave the rounds so that all three see the same machine state; keep the best of each.
	fs := [3]func() error{call, cp, limit}
	var n [3]int
	var best [3]time.Duration
	for i, f := range fs {
		n[i] = calibrate(func(n int) time.Duration { return state.time(f, n, threads > 1) }, c.Time/5)
	}
	for range 5 {
		for i, f := range fs {
			if d := state.time(f, n[i], threads > 1) / time.Duration(n[i]); best[i] == 0 || d < best[i] {
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

// workingSet is the bytes of the op's operands, each counted once.
func workingSet(touched []Operand) int {
	n := 0
	for _, o := range touched {
		n += len(o.Bytes)
	}
	return n
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return "", false
}

// calibrate finds a repetition count that takes about d, timed by timeN (the time of n calls).
func calibrate(timeN func(n int) time.Duration, d time.Duration) int {
	n := 1
	for {
		el := timeN(n)
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
