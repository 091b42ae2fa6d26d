package ops_test

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
)

func TestParseCacheMode(t *testing.T) {
	for in, want := range map[string]ops.CacheMode{"": ops.CacheNorm, "Norm": ops.CacheNorm, "PA": ops.CachePA, "PA_BNSD": ops.CachePABNSD,
		"PA_NZ": ops.CachePANZ, "PA_BLK_BNSD": ops.CachePABlkBNSD, "PA_BLK_BSND": ops.CachePABlkBNSD, "PA_BLK_NZ": ops.CachePABlkNZ} {
		if got, err := ops.ParseCacheMode(in); err != nil || got != want {
			t.Errorf("ParseCacheMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ops.ParseCacheMode("norm"); err == nil {
		t.Error(`ParseCacheMode("norm"): want an error (names are torch_npu's, case included)`)
	}
}
