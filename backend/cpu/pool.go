package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

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
	jobCopy
	jobApply
	jobKVRMSNormRoPECache
	jobQKNorm
	jobTHD
	jobTHDBackward // thd holds dy and dx in X's and Out's places
	jobInterleaveRoPE
	jobStream
	jobQueryScale
	jobApplyBackward     // ap holds dy and dx in X's and Out's places
	jobApplyBackwardSums // split by cos rows
	jobVisionRoPE2D
)

type job struct {
	kind jobKind
	re   ops.RotaryEmbeddingArgs
	g    ops.GatheredArgs
	mr   ops.MRoPEArgs
	ap   ops.ApplyRotaryEmbArgs
	ab   backwardJob
	kv   ops.KVRMSNormRoPECacheArgs
	qk   ops.QKRMSNormRoPEArgs
	thd  ops.ApplyRotaryEmbTHDArgs
	il   ops.InterleaveRoPEArgs
	qs   ops.QueryScaleArgs
	vr   ops.VisionRoPE2DArgs
	vinv []float64 // vision_rope_2d's pair frequencies, the caller's
	// copy: bytes [lo·copyBlock, hi·copyBlock) of src to dst
	dst, src []byte
	st       streamJob // Stream's slices, one share per unit
}

// copyBlock is the unit Copy splits its bytes into.
const copyBlock = 4096

func (j *job) run(lo, hi int) {
	switch j.kind {
	case jobRotaryEmbedding:
		rotaryEmbedding(&j.re, lo, hi)
	case jobGathered:
		gathered(&j.g, lo, hi)
	case jobMRoPE:
		mrope(&j.mr, lo, hi)
	case jobApply:
		applyRows(&j.ap, lo, hi)
	case jobApplyBackward:
		applyRowsFlipped(&j.ap, lo, hi, true)
	case jobApplyBackwardSums:
		j.ab.run(lo, hi)
	case jobKVRMSNormRoPECache:
		kvRmsNormRopeCache(&j.kv, lo, hi)
	case jobQKNorm:
		qkRMSNormRoPE(&j.qk, lo, hi)
	case jobTHD, jobTHDBackward:
		thdRows(&j.thd, j.kind == jobTHDBackward, lo, hi)
	case jobInterleaveRoPE:
		interleaveRows(&j.il, lo, hi)
	case jobQueryScale:
		queryScale(&j.qs, lo, hi)
	case jobVisionRoPE2D:
		visionRoPE2DChunk(&j.vr, j.vinv, lo, hi)
	case jobStream:
		j.st.run(lo, hi)
	case jobCopy:
		end := min(hi*copyBlock, len(j.src))
		copy(j.dst[lo*copyBlock:end], j.src[lo*copyBlock:end])
	}
}

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
	job     job
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

// parallel splits j's tokens across the pool, a chunk per thread. Once the caller has run its
// own, it takes back every chunk a worker has not started and runs it too: on a shared machine
// a worker is often not scheduled when a call begins, and a call is over before a descheduled
// thread gets its processor back. Only chunks a worker has started are waited for. A concurrent
// caller finds the pool busy and runs its whole call inline instead of waiting.
func parallel(j *job, tokens int) {
	if !pool.mu.TryLock() {
		j.run(0, tokens)
		return
	}
	defer pool.mu.Unlock()
	pool.job.take(j)
	chunks := min(pool.threads, tokens)
	per := (tokens + chunks - 1) / chunks
	pool.pending.Store(int32(chunks - 1))
	for c := 1; c < chunks; c++ {
		pool.workers[c-1].assign(c*per, min((c+1)*per, tokens))
	}
	pool.job.run(0, per)
	for _, w := range pool.workers[:chunks-1] {
		if w.state.CompareAndSwap(assigned, spinning) {
			pool.job.run(w.lo, w.hi)
			pool.pending.Add(-1)
		}
	}
	for i := 0; pool.pending.Load() != 0; i++ {
		if i%pollRounds == pollRounds-1 {
			runtime.Gosched() // the workers are running: their chunks take as long as ours
		}
	}
	pool.job.drop() // the caller's buffers
}

// take copies j into the pool's slot: the fields of its kind only, where the kind has one
// field, rather than the whole union, which is some kilobytes to copy and clear per call.
func (p *job) take(j *job) {
	p.kind = j.kind
	switch j.kind {
	case jobRotaryEmbedding:
		p.re = j.re
	case jobGathered:
		p.g = j.g
	case jobMRoPE:
		p.mr = j.mr
	case jobStream:
		p.st = j.st
	default:
		*p = *j
	}
}

// drop clears what take filled.
func (p *job) drop() {
	switch p.kind {
	case jobRotaryEmbedding:
		p.re = ops.RotaryEmbeddingArgs{}
	case jobGathered:
		p.g = ops.GatheredArgs{}
	case jobMRoPE:
		p.mr = ops.MRoPEArgs{}
	case jobStream:
		p.st = streamJob{}
	default:
		*p = job{}
	}
}

// Copy copies src to dst (same length) on the threads a rotation moving the same bytes would
// use, through the same pool: the baseline `rotary bench` divides by.
func Copy(dst, src []byte) {
	n := min(len(dst), len(src))
	blocks := (n + copyBlock - 1) / copyBlock
	if ThreadsFor(2*n) < 2 || blocks < 2 {
		copy(dst[:n], src[:n])
		return
	}
	parallel(&job{kind: jobCopy, dst: dst[:n], src: src[:n]}, blocks)
}

// bytesPerToken is what one token of a rotation reads and writes.
func bytesPerToken(r *ops.RoPE) int {
	n := r.Query.NumHeads * r.RotaryDim * r.Query.DType.Size()
	if r.Key.Present() {
		n += r.Key.NumHeads * r.RotaryDim * r.Key.DType.Size()
	}
	return 2 * n
}
