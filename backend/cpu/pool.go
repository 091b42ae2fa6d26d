package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rotary-go/rotary/ops"
)

// Large calls split their work across a fixed pool of workers; small ones (decode) run inline
// on the caller's goroutine. Nothing allocates per call: the job is copied into its type's slot
// (poolJob), and chunk bounds reach the workers through their own fields.

// A poolJob is an op's call as the pool runs it: run does units [lo, hi) of the call (tokens,
// rows, blocks: the op's choice), on any goroutine, while other goroutines run other units.
// slot is the job type's place in the pool, a package variable of the op's: a worker cannot
// point into the caller's stack (a goroutine's stack moves when it grows), and a job moved to
// the heap would be an allocation per call. The pool runs one call at a time, so one slot per
// job type suffices. An op adds its job type; the pool stays as it is.
type poolJob[J any] interface {
	*J
	rangeJob
	slot() *J
}

// rangeJob is a poolJob as the workers see it, whatever its type.
type rangeJob interface{ run(lo, hi int) }

// parallelMinBytes is the call size below which threads cost more than they give: about what a
// core moves in the time it takes to hand a chunk to another.
const parallelMinBytes = 256 << 10

// spinFor is how long an idle worker keeps polling for the next chunk before it parks. Waking a
// parked goroutine costs microseconds, as much as a whole 16-token call; consecutive calls (the
// layers of a forward pass, a benchmark loop) find the worker still polling. Polling yields the
// processor (runtime.Gosched) on every round, so other goroutines are not starved.
const spinFor = 50 * time.Microsecond

// Worker states.
const (
	parked   int32 = iota // blocked on wake
	spinning              // polling state
	assigned              // lo, hi hold a chunk the worker has not started
	running               // the worker has taken its chunk
)

type worker struct {
	state  atomic.Int32
	lo, hi int
	wake   chan struct{}
}

type workerPool struct {
	once    sync.Once
	mu      sync.Mutex // one parallel call at a time; a concurrent caller runs inline
	threads int
	job     rangeJob // the running call's slot; nil between calls
	workers []*worker
	pending atomic.Int32
}

var pool workerPool

func (p *workerPool) start() {
	p.once.Do(func() {
		p.threads = runtime.GOMAXPROCS(0)
		for range p.threads - 1 {
			w := &worker{wake: make(chan struct{}, 1)}
			w.state.Store(spinning)
			p.workers = append(p.workers, w)
			go p.loop(w)
		}
	})
}

// loop runs one worker. A worker is spinning or parked only while it has no chunk: it returns to
// spinning before it reports its chunk done, and a chunk it has not started is taken back as
// spinning, so the next call always finds it spinning (the assignment needs no wake-up) or
// parked (exactly one wake-up, which it consumes, though its chunk may have been taken back).
func (p *workerPool) loop(w *worker) {
	for {
		start := time.Now()
		for i := 0; !w.poll(); i++ {
			if i%64 == 63 && time.Since(start) > spinFor && w.state.CompareAndSwap(spinning, parked) {
				<-w.wake // assign stored `assigned` before sending
				start = time.Now()
				continue
			}
			runtime.Gosched()
		}
		p.job.run(w.lo, w.hi)
		w.state.Store(spinning)
		p.pending.Add(-1)
	}
}

// pollRounds is how many times a waiting goroutine checks its flag between yields: a yield
// costs about as much as a 16-token chunk's hand-off, so a short busy check goes first.
const pollRounds = 200

// poll reports whether the worker has taken a chunk assigned to it, checking for a short while.
func (w *worker) poll() bool {
	for range pollRounds {
		if w.state.Load() == assigned && w.state.CompareAndSwap(assigned, running) {
			return true
		}
	}
	return false
}

// assign hands a chunk to an idle worker, waking it only if it has parked.
func (w *worker) assign(lo, hi int) {
	w.lo, w.hi = lo, hi
	if !w.state.CompareAndSwap(spinning, assigned) {
		// Parked: the only other state an idle worker can be in.
		w.state.Store(assigned)
		w.wake <- struct{}{}
	}
}

// ThreadsFor is how many threads a call moving `bytes` (read plus write) uses.
func ThreadsFor(bytes int) int {
	pool.start()
	if pool.threads < 2 || bytes < parallelMinBytes {
		return 1
	}
	return pool.threads
}

// worthThreads reports whether a rotation of `tokens` tokens should be split across threads.
func worthThreads(tokens int, r *ops.RoPE) bool {
	return tokens >= 2 && ThreadsFor(tokens*bytesPerToken(r)) > 1
}

// parallel splits units [0, n) of j across the pool, a chunk per thread, and reports true. A
// concurrent caller finds the pool busy: parallel reports false, having run nothing, and the
// caller runs j itself on its own goroutine. (Running it here, through the type parameter, would
// take j to the heap.) j is copied into its slot for the call and the slot cleared after, so
// that the pool holds none of the caller's buffers between calls.
func parallel[J any, P poolJob[J]](j P, n int) bool {
	if !pool.mu.TryLock() {
		return false
	}
	defer pool.mu.Unlock()
	s := P(nil).slot()
	*s = *j
	pool.split(P(s), n)
	var zero J
	*s = zero
	return true
}

// split runs j's units [0, n), a chunk per thread. Once the caller has run its own, it takes
// back every chunk a worker has not started and runs it too: on a shared machine a worker is
// often not scheduled when a call begins, and a call is over before a descheduled thread gets
// its processor back. Only chunks a worker has started are waited for.
func (p *workerPool) split(j rangeJob, n int) {
	p.job = j
	chunks := min(p.threads, n)
	per := (n + chunks - 1) / chunks
	p.pending.Store(int32(chunks - 1))
	for c := 1; c < chunks; c++ {
		p.workers[c-1].assign(c*per, min((c+1)*per, n))
	}
	j.run(0, per)
	for _, w := range p.workers[:chunks-1] {
		if w.state.CompareAndSwap(assigned, spinning) {
			j.run(w.lo, w.hi)
			p.pending.Add(-1)
		}
	}
	for i := 0; p.pending.Load() != 0; i++ {
		if i%pollRounds == pollRounds-1 {
			runtime.Gosched() // the workers are running: their chunks take as long as ours
		}
	}
	p.job = nil
}

// bytesPerToken is what one token of a rotation reads and writes.
func bytesPerToken(r *ops.RoPE) int {
	n := r.Query.NumHeads * r.RotaryDim * r.Query.DType.Size()
	if r.Key.Present() {
		n += r.Key.NumHeads * r.RotaryDim * r.Key.DType.Size()
	}
	return 2 * n
}
