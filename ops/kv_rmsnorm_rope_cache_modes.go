package ops

import (
	"fmt"
	"slices"
	"strings"
)

// CacheMode is how kv_rmsnorm_rope_cache's index addresses the caches (torch_npu's cache_mode).
type CacheMode string

// The cache modes. Norm caches are [Bcache, 1, Scache, D] and the index gives a position per
// batch; the paged modes (PA*) use caches of BlockNum blocks of BlockSize slots, [BlockNum,
// BlockSize, 1, D]. PA and PA_BNSD are the same mode under two names.
const (
	// CacheNorm: index [B, S]; token (b, s) goes to cache[b, 0, index[b, s]].
	CacheNorm CacheMode = "Norm"
	// CachePA: index [B·S]; token t goes to global slot index[t] (block index[t]/BlockSize).
	CachePA CacheMode = "PA"
	// CachePABNSD is CachePA.
	CachePABNSD CacheMode = "PA_BNSD"
	// CachePANZ is CachePA with caches in the FRACTAL_NZ layout (see KVCacheLayout).
	CachePANZ CacheMode = "PA_NZ"
	// CachePABlkBNSD: index [B·ceil(S/BlockSize)], one value per block of a sequence: token s
	// of batch b goes to slot s%BlockSize of block index[b·ceil(S/BlockSize) + s/BlockSize] /
	// BlockSize (the value's remainder is ignored, as the NPU kernel ignores it).
	CachePABlkBNSD CacheMode = "PA_BLK_BNSD"
	// CachePABlkNZ is CachePABlkBNSD with FRACTAL_NZ caches.
	CachePABlkNZ CacheMode = "PA_BLK_NZ"
)

var cacheModes = []CacheMode{CacheNorm, CachePA, CachePABNSD, CachePANZ, CachePABlkBNSD, CachePABlkNZ}

// ParseCacheMode checks a cache mode name; empty means Norm (torch_npu's default).
// PA_BLK_BSND, a spelling the aclnn documentation also uses, means PA_BLK_BNSD.
func ParseCacheMode(s string) (CacheMode, error) {
	switch s {
	case "":
		return CacheNorm, nil
	case "PA_BLK_BSND":
		return CachePABlkBNSD, nil
	}
	if m := CacheMode(s); slices.Contains(cacheModes, m) {
		return m, nil
	}
	names := make([]string, len(cacheModes))
	for i, m := range cacheModes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("cache mode %q: want one of %s", s, strings.Join(names, ", "))
}

// Paged reports whether m is a PagedAttention mode (every mode but Norm).
func (m CacheMode) Paged() bool { return m != CacheNorm }

// NZ reports whether m stores its caches in the FRACTAL_NZ layout.
func (m CacheMode) NZ() bool { return m == CachePANZ || m == CachePABlkNZ }

// PerBlock reports whether m's index has one value per block of a sequence (PA_BLK_*).
func (m CacheMode) PerBlock() bool { return m == CachePABlkBNSD || m == CachePABlkNZ }
