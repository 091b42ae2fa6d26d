package bench

import (
	"bytes"
	"testing"
)

func TestParseCacheSize(t *testing.T) {
	for s, want := range map[string]int{
		"32768K": 32 << 20, "1024K": 1 << 20, "1M": 1 << 20, "512": 512,
		"": 0, "K": 0, "-4K": 0, "0K": 0, "12G": 0, "99999999999999M": 0, "1.5M": 0,
	} {
		if got := parseCacheSize(s); got != want {
			t.Errorf("parseCacheSize(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestCacheState: a working set that fits in half the last-level cache is timed warm; a larger
// one cold, each call after reading four times that cache's bytes of real data.
func TestCacheState(t *testing.T) {
	llc := lastLevelCache()
	if llc <= 0 {
		t.Fatalf("lastLevelCache() = %d", llc)
	}
	for _, ws := range []int{0, 1, llc / 4, llc / 2} {
		if s := cacheStateFor(ws); s.cold || s.evict != nil {
			t.Errorf("working set %d of a %d-byte cache: cold", ws, llc)
		}
	}
	for _, ws := range []int{llc/2 + 1, llc, 10 * llc} {
		s := cacheStateFor(ws)
		if !s.cold || len(s.evict) < 4*llc {
			t.Fatalf("working set %d of a %d-byte cache: cold %v, eviction pass of %d bytes", ws, llc, s.cold, len(s.evict))
		}
		// Zeros would leave every page the kernel's one zero page, which evicts nothing.
		for off := 0; off < len(s.evict); off += 4096 {
			if page := s.evict[off:min(off+4096, len(s.evict))]; bytes.Count(page, []byte{0}) == len(page) {
				t.Fatalf("eviction buffer page at %d is all zeros", off)
			}
		}
	}
	// Both states time every call asked for.
	for _, s := range []cacheState{{}, cacheStateFor(llc)} {
		calls := 0
		if d := s.time(func() error { calls++; return nil }, 8, false); d < 0 {
			t.Errorf("cold %v: time %v", s.cold, d)
		}
		if want := map[bool]int{false: 8 + 8/4, true: 8}[s.cold]; calls != want {
			t.Errorf("cold %v: %d calls for 8 timed, want %d", s.cold, calls, want)
		}
	}
}
