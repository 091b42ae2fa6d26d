package cpu

import (
	"encoding/binary"
	"sync/atomic"
)

// Stream is the yardstick `rotary bench` reports limit_ratio against: an op's memory traffic
// without its arithmetic. Every 8-byte word of each slice of rw is loaded and stored back
// unchanged (xored with zero), every word of each slice of ro loaded, with the widest vectors
// the machine has whichever kernel set is active: the limit is the machine's, not a kernel
// set's. With threaded it runs on the pool the ops use, each thread taking an equal share of
// every slice, as an op split by tokens gives each thread its tokens' share of every tensor;
// otherwise it runs on the caller's goroutine.
func Stream(rw, ro [][]byte, threaded bool) {
	streamInto(&streamSink, rw, ro, 0, threaded)
}

// streamSink takes the folds of Stream's reads, which nothing reads: a counter of the call's
// own would escape through the pool's job and cost an allocation per pass, which the ops it is
// the yardstick for do not pay.
var streamSink atomic.Uint64

// stream is Stream with the key every word of rw is xored with (zero there; a test's nonzero
// key shows which bytes were stored), and returns the xor of ro's words.
func stream(rw, ro [][]byte, key uint64, threaded bool) uint64 {
	var fold atomic.Uint64
	streamInto(&fold, rw, ro, key, threaded)
	return fold.Load()
}

// streamInto is stream xoring the folds of ro's words into fold.
func streamInto(fold *atomic.Uint64, rw, ro [][]byte, key uint64, threaded bool) {
	s := streamJob{rw: rw, ro: ro, key: key, isa: impls[0].isa, fold: fold, parts: 1}
	if threaded {
		pool.start()
		s.parts = pool.threads
	}
	if s.parts < 2 || !parallel(&s, s.parts) {
		s.run(0, s.parts)
	}
}

// streamJob is a Stream call as the pool carries it: part i of parts is the i-th share of every
// slice.
type streamJob struct {
	rw, ro [][]byte
	key    uint64
	isa    isa
	fold   *atomic.Uint64
	parts  int
}

var streamSlot streamJob

func (*streamJob) slot() *streamJob { return &streamSlot }

// bound is where share i of parts of n bytes starts: a multiple of 256, so that the words keep
// their offsets and the assembly its whole rounds whichever thread takes them.
func (s *streamJob) bound(n, i int) int {
	if i >= s.parts {
		return n
	}
	return (n * i / s.parts) &^ 255
}

// run streams shares [lo, hi).
func (s *streamJob) run(lo, hi int) {
	var fold uint64
	for _, b := range s.rw {
		xorWords(s.isa, b[s.bound(len(b), lo):s.bound(len(b), hi)], s.key)
	}
	for _, b := range s.ro {
		fold ^= foldWords(s.isa, b[s.bound(len(b), lo):s.bound(len(b), hi)])
	}
	for {
		old := s.fold.Load()
		if s.fold.CompareAndSwap(old, old^fold) {
			return
		}
	}
}

// xorWords xors each little-endian 8-byte word of b with key in place (a last partial word with
// key's low bytes): the assembly takes the leading multiple of 256 bytes, Go the rest.
func xorWords(i isa, b []byte, key uint64) {
	b = b[streamXorAsm(i, b, key):]
	for len(b) >= 32 {
		w := b[:32:32]
		x0, x1 := binary.LittleEndian.Uint64(w[0:]), binary.LittleEndian.Uint64(w[8:])
		x2, x3 := binary.LittleEndian.Uint64(w[16:]), binary.LittleEndian.Uint64(w[24:])
		binary.LittleEndian.PutUint64(w[0:], x0^key)
		binary.LittleEndian.PutUint64(w[8:], x1^key)
		binary.LittleEndian.PutUint64(w[16:], x2^key)
		binary.LittleEndian.PutUint64(w[24:], x3^key)
		b = b[32:]
	}
	for j := range b {
		b[j] ^= byte(key >> (8 * (j % 8)))
	}
}

// foldWords is the xor of b's little-endian 8-byte words, a last partial word zero-extended.
func foldWords(i isa, b []byte) uint64 {
	n := streamFoldAsm(i, b)
	x, b := n.fold, b[n.done:]
	var x1, x2, x3 uint64
	for len(b) >= 32 {
		w := b[:32:32]
		x ^= binary.LittleEndian.Uint64(w[0:])
		x1 ^= binary.LittleEndian.Uint64(w[8:])
		x2 ^= binary.LittleEndian.Uint64(w[16:])
		x3 ^= binary.LittleEndian.Uint64(w[24:])
		b = b[32:]
	}
	x ^= x1 ^ x2 ^ x3
	for j := range b {
		x ^= uint64(b[j]) << (8 * (j % 8))
	}
	return x
}

// folded is what the assembly fold did: done bytes, whose words xor to fold.
type folded struct {
	done int
	fold uint64
}

// Copy copies src to dst (same length) on the threads a rotation moving the same bytes would
// use, through the same pool: the baseline `rotary bench` divides by.
func Copy(dst, src []byte) {
	n := min(len(dst), len(src))
	j := copyJob{dst: dst[:n], src: src[:n]}
	blocks := (n + copyBlock - 1) / copyBlock
	if ThreadsFor(2*n) < 2 || blocks < 2 || !parallel(&j, blocks) {
		copy(j.dst, j.src)
	}
}

// copyBlock is the unit Copy splits its bytes into.
const copyBlock = 4096

// copyJob is a Copy call as the pool runs it: blocks [lo, hi) are bytes
// [lo·copyBlock, hi·copyBlock) of src, copied to dst.
type copyJob struct{ dst, src []byte }

var copySlot copyJob

func (*copyJob) slot() *copyJob { return &copySlot }

func (j *copyJob) run(lo, hi int) {
	end := min(hi*copyBlock, len(j.src))
	copy(j.dst[lo*copyBlock:end], j.src[lo*copyBlock:end])
}
