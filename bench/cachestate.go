package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rotary-go/rotary/backend/cpu"
)

// The cache state a case is timed from, the same for the op, the limit pass and the copy, so
// that their ratio compares work rather than what each found in cache:
//
//   - warm, when the op's working set (the bytes of its operands, each counted once) fits in
//     half the last-level cache: calls repeat back to back, each finding the data where the
//     previous one left it, as a layer finds the q and k its projection has just written;
//   - cold, when it does not: before each timed call an untimed pass reads a buffer of four
//     times the last-level cache, so that every call starts with none of its operands in any
//     cache and streams them from memory. (Fewer passes leave part of the operands cached: on
//     this project's Zen 4 with 32 MiB of L3, 21 MiB updated in place streamed at 124 GB/s after
//     reading 32 MiB, 81 after 64, 66 after 128 or 256.)
//
// Between the two lies no steady state: calls repeated over a working set about the size of the
// last-level cache keep a share of it there that depends on the replacement policy's history
// and, on a shared machine, on what the neighbours put in the same cache. The limit pass and the
// op found different shares from run to run, and their ratio moved with it.
type cacheState struct {
	cold  bool
	evict []byte // read before each timed call when cold
}

// cacheStateFor is the state a case whose operands span workingSet bytes is timed from.
func cacheStateFor(workingSet int) cacheState {
	llc := lastLevelCache()
	if 2*workingSet <= llc {
		return cacheState{}
	}
	return cacheState{cold: true, evict: evictBuffer(4 * llc)}
}

// time is the time of n calls of f from s (untimed warm-up calls or eviction passes between, on
// the op's threads when threaded).
func (s cacheState) time(f func() error, n int, threaded bool) time.Duration {
	if !s.cold {
		// What ran before (the other figures' buffers) evicted part of the working set: a
		// quarter as many untimed calls bring it back.
		for range n / 4 {
			f()
		}
		start := time.Now()
		for range n {
			f()
		}
		return time.Since(start)
	}
	var total time.Duration
	for range n {
		cpu.Stream(nil, [][]byte{s.evict}, threaded)
		start := time.Now()
		f()
		total += time.Since(start)
	}
	return total
}

// defaultLastLevelCache is the size assumed where the system does not say (large for a desktop,
// small for a server part: the rule then errs towards timing cold).
const defaultLastLevelCache = 32 << 20

// lastLevelCache is the largest data cache of CPU 0, as Linux's sysfs reports it, or
// defaultLastLevelCache where it reports none.
var lastLevelCache = sync.OnceValue(func() int {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	largest := 0
	for _, d := range dirs {
		if kind, err := os.ReadFile(filepath.Join(d, "type")); err != nil || strings.TrimSpace(string(kind)) == "Instruction" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(d, "size")); err == nil {
			largest = max(largest, parseCacheSize(strings.TrimSpace(string(b))))
		}
	}
	if largest == 0 {
		return defaultLastLevelCache
	}
	return largest
})

// parseCacheSize reads sysfs's cache size ("32768K", "1M", "512"), 0 if it is none of these.
func parseCacheSize(s string) int {
	unit := 1
	switch {
	case strings.HasSuffix(s, "K"):
		unit, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		unit, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 1<<40/unit {
		return 0
	}
	return n * unit
}

var (
	evictMu  sync.Mutex
	evictBuf []byte
)

// evictBuffer is a buffer of at least n bytes, filled: a never-written one would map every page
// to the kernel's one zero page, whose reads always hit the cache and evict nothing.
func evictBuffer(n int) []byte {
	evictMu.Lock()
	defer evictMu.Unlock()
	if len(evictBuf) < n {
		evictBuf = make([]byte, n)
		for i := range evictBuf {
			evictBuf[i] = byte(i*131 + i>>12)
		}
	}
	return evictBuf[:n]
}
