package cpu

import (
	"runtime"
	"sync"

	"github.com/rotary-go/rotary/ops"
)

// Large calls split their tokens across a fixed pool of workers; small ones (decode) run inline
// on the caller's goroutine. Nothing allocates per call: the job travels by value into the
// pool's one slot, and chunk bounds over a channel.

type jobKind uint8

const (
	jobRotaryEmbedding jobKind = iota
	jobGathered
	jobMRoPE
)

type job struct {
	kind jobKind
	re   ops.RotaryEmbeddingArgs
	g    ops.GatheredArgs
	mr   ops.MRoPEArgs
}

func (j *job) run(lo, hi int) {
	switch j.kind {
	case jobRotaryEmbedding:
		rotaryEmbedding(&j.re, lo, hi)
	case jobGathered:
		gathered(&j.g, lo, hi)
	case jobMRoPE:
		mrope(&j.mr, lo, hi)
	}
}

// parallelMinBytes is the call size below which threads cost more than they give: about what a
// core moves in the time it takes to wake another.
const parallelMinBytes = 256 << 10

type workerPool struct {
	once    sync.Once
	mu      sync.Mutex // one parallel call at a time; a concurrent caller runs inline
	threads int
	job     job
	work    chan [2]int
	wg      sync.WaitGroup
}

var pool workerPool

// Threads is how many threads large calls use (GOMAXPROCS at first use).
func Threads() int {
	pool.start()
	return pool.threads
}

func (p *workerPool) start() {
	p.once.Do(func() {
		p.threads = runtime.GOMAXPROCS(0)
		p.work = make(chan [2]int, p.threads)
		for range p.threads - 1 {
			go p.worker()
		}
	})
}

func (p *workerPool) worker() {
	for r := range p.work {
		p.job.run(r[0], r[1])
		p.wg.Done()
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
func worthThreads(tokens int, r *ops.Rope) bool {
	return tokens >= 2 && ThreadsFor(tokens*bytesPerToken(r)) > 1
}

// parallel splits j's tokens across the pool; a concurrent caller finds the pool busy and runs
// its whole call inline instead of waiting.
func parallel(j *job, tokens int) {
	if !pool.mu.TryLock() {
		j.run(0, tokens)
		return
	}
	defer pool.mu.Unlock()
	pool.job = *j
	chunks := min(pool.threads, tokens)
	per := (tokens + chunks - 1) / chunks
	pool.wg.Add(chunks - 1)
	for c := 1; c < chunks; c++ {
		pool.work <- [2]int{c * per, min((c+1)*per, tokens)}
	}
	pool.job.run(0, per)
	pool.wg.Wait()
	pool.job = job{} // drop the caller's buffers
}
