package ops

import (
	"fmt"
	"math"
	"slices"

	"github.com/rotary-go/rotary/tensor"
)

// kvcIndex reads the index tensor's values (I64 or I32, rank 1 or 2) without going through
// tensor.Tensor per value: the per-token paths and the checks read every value.
type kvcIndex struct {
	i64             []int64
	i32             []int32
	off, s0, s1, n1 int // n1: the length of the second dimension (1 for rank 1)
}

// set addresses t's values, writing every field of x in place (see KVCacheLayout.set).
func (x *kvcIndex) set(t *tensor.Tensor) {
	x.i64, x.i32, x.off, x.s0, x.s1, x.n1 = t.I64, t.I32, t.Offset, tensor.StrideOf(t, 0), 0, 1
	if len(t.Shape) == 2 {
		x.s1, x.n1 = tensor.StrideOf(t, 1), t.Shape[1]
	}
}

// at is the value at backing index p.
func (x *kvcIndex) at(p int) int64 {
	if x.i32 != nil {
		return int64(x.i32[p])
	}
	return x.i64[p]
}

// IndexValue is the index entry that places token s of batch b (for PA_BLK_* modes, the entry
// of the block the token falls in).
func (a *KVRMSNormRoPECacheArgs) IndexValue(b, s int) int64 {
	x := &a.idx
	var i int
	switch {
	case a.CacheMode == CacheNorm:
		i = x.off + b*x.s0 + s*x.s1
	case a.CacheMode.PerBlock():
		i = x.off + (b*a.blocksPerSeq()+s/a.KLayout.BlockSize)*x.s0
	default:
		i = x.off + (b*a.Seq+s)*x.s0
	}
	return x.at(i)
}

// checkIndex checks the index's dtype, shape, every value's range, and duplicates.
func (a *KVRMSNormRoPECacheArgs) checkIndex() error {
	if err := a.checkIndexShape(); err != nil {
		return err
	}
	increasing, err := a.checkIndexRange()
	if err != nil || increasing {
		return err
	}
	return a.checkIndexDuplicates()
}

// checkIndexShape checks the index's dtype and its shape for the mode, and sets the index
// addressing and whether CacheRows can skip the division.
func (a *KVRMSNormRoPECacheArgs) checkIndexShape() error {
	idx, mode := &a.Index, a.CacheMode
	if idx.DType == tensor.Invalid {
		return fmt.Errorf("index: missing")
	}
	if err := tensor.CheckPtr(idx, "index"); err != nil {
		return err
	}
	if idx.DType != tensor.I64 && idx.DType != tensor.I32 {
		return fmt.Errorf("index: dtype %v: want I64", idx.DType)
	}
	B, S := a.Batch, a.Seq
	var want []int
	var form string
	switch {
	case mode == CacheNorm:
		want, form = []int{B, S}, "[B, S]"
	case mode.PerBlock():
		want, form = []int{B * a.blocksPerSeq()}, "[B·ceil(S/BlockSize)]"
	default:
		want, form = []int{B * S}, "[B·S]"
	}
	if !slices.Equal(idx.Shape, want) {
		return fmt.Errorf("index: shape %s: %s mode wants %s = %s", tensor.ShapeString(idx.Shape), mode, form, tensor.ShapeString(want))
	}
	a.idx.set(idx)
	bs := a.KLayout.BlockSize
	a.linear = mode != CacheNorm && !mode.PerBlock() &&
		a.KLayout.BlockStride == bs*a.KLayout.SlotStride && a.CKVLayout.BlockStride == bs*a.CKVLayout.SlotStride
	return nil
}

// indexLimit bounds the index values: Norm positions lie in [−1, Scache); paged values are
// global slots in [−1, BlockNum·BlockSize).
func (a *KVRMSNormRoPECacheArgs) indexLimit() int64 {
	bs, blocks := a.KLayout.BlockSize, a.KLayout.Blocks
	limit := int64(bs)
	if a.CacheMode.Paged() {
		limit = int64(blocks) * int64(bs)
		if blocks != 0 && limit/int64(blocks) != int64(bs) {
			limit = math.MaxInt64
		}
	}
	return limit
}

// checkIndexRange checks every value against indexLimit and reports whether the keys (what
// must not repeat) strictly increase, as slot mappings usually do: then no key repeats, and
// nothing is sorted or allocated.
func (a *KVRMSNormRoPECacheArgs) checkIndexRange() (increasing bool, err error) {
	mode, limit := a.CacheMode, a.indexLimit()
	n := tensor.NumElements(a.Index.Shape)
	if a.idx.i64 != nil && a.idx.n1 == 1 && mode != CacheNorm && !mode.PerBlock() && kvcIncreasingSlots(a.idx.i64, a.idx.off, a.idx.s0, n, limit) {
		return true, nil
	}
	increasing, last := true, int64(math.MinInt64)
	for i := range n {
		v := a.indexAt(i)
		if v < -1 || v >= limit {
			bs := a.KLayout.BlockSize
			rangeOf := fmt.Sprintf("k_cache's sequence length %d", bs)
			if mode.Paged() {
				rangeOf = fmt.Sprintf("BlockNum·BlockSize = %d·%d", a.KLayout.Blocks, bs)
			}
			return false, fmt.Errorf("index%s = %d: out of range [-1, %d) (%s)", a.indexName(i), v, limit, rangeOf)
		}
		if v == -1 {
			continue
		}
		k := a.indexKey(i, v)
		increasing = increasing && k > last
		last = k
	}
	return increasing, nil
}

// checkIndexDuplicates finds a repeated key among the index values, which are in range.
func (a *KVRMSNormRoPECacheArgs) checkIndexDuplicates() error {
	// Every key lies in [0, space), so once space+1 keys are in hand two of them must be equal:
	// the keys kept are bounded by the caches' slots, which kvcCacheLayout bounds by their
	// buffers, rather than by B·S, which a kv and an index broadcast over a stride of 0 can
	// make as large as they like from a few real values.
	space := int64(a.KLayout.Blocks) * int64(a.KLayout.BlockSize) // no overflow: kvcCacheLayout keeps it within a buffer
	if a.CacheMode.PerBlock() {
		space = int64(a.KLayout.Blocks)
	}
	n := tensor.NumElements(a.Index.Shape)
	var stack [256]int64
	keys := stack[:0]
	if int64(n) <= space && n > len(stack) {
		keys = make([]int64, 0, n)
	}
	for i := range n {
		if v := a.indexAt(i); v != -1 {
			keys = append(keys, a.indexKey(i, v))
			if int64(len(keys)) > space {
				break
			}
		}
	}
	if dup, ok := kvcDuplicate(keys); ok {
		return a.duplicateError(dup)
	}
	return nil
}

// duplicateError names the first two entries whose key is dup; only the error path pays for
// this second scan.
func (a *KVRMSNormRoPECacheArgs) duplicateError(dup int64) error {
	mode, bs := a.CacheMode, a.KLayout.BlockSize
	first := -1
	for i := range tensor.NumElements(a.Index.Shape) {
		v := a.indexAt(i)
		if v < 0 || a.indexKey(i, v) != dup {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		switch {
		case mode == CacheNorm:
			return fmt.Errorf("index%s = %d: repeats index%s in batch %d (a cache position takes one token)", a.indexName(i), v, a.indexName(first), i/a.Seq)
		case mode.PerBlock():
			return fmt.Errorf("index%s = %d: block %d already taken by index%s = %d (%s wants distinct index/BlockSize)", a.indexName(i), v, v/int64(bs), a.indexName(first), a.indexAt(first), mode)
		}
		return fmt.Errorf("index%s = %d: slot already taken by index%s (%s wants distinct slots)", a.indexName(i), v, a.indexName(first), mode)
	}
	return nil
}

// indexAt is the i-th index value in row-major order.
func (a *KVRMSNormRoPECacheArgs) indexAt(i int) int64 {
	x := &a.idx
	if x.n1 == 1 {
		return x.at(x.off + i*x.s0)
	}
	return x.at(x.off + i/x.n1*x.s0 + i%x.n1*x.s1)
}

// indexName formats the coordinates of the i-th index value.
func (a *KVRMSNormRoPECacheArgs) indexName(i int) string {
	if len(a.Index.Shape) == 2 {
		return fmt.Sprintf("[%d,%d]", i/a.Index.Shape[1], i%a.Index.Shape[1])
	}
	return fmt.Sprintf("[%d]", i)
}

// indexKey is what must be unique among the non-negative index values: the cache position
// within its batch (Norm), the slot (PA, PA_BNSD, PA_NZ) or the block (PA_BLK_*).
func (a *KVRMSNormRoPECacheArgs) indexKey(i int, v int64) int64 {
	switch {
	case a.CacheMode == CacheNorm:
		return int64(i/a.Seq)*int64(a.KLayout.BlockSize) + v
	case a.CacheMode.PerBlock():
		return v / int64(a.KLayout.BlockSize)
	}
	return v
}

// kvcIncreasingSlots reports whether the n values x[off + i·step] all lie in [−1, limit) and
// the non-negative ones strictly increase: checkIndex's common case (a slot mapping in order,
// rank-1 I64 index, the value its own key) in a loop without per-value dispatch.
func kvcIncreasingSlots(x []int64, off, step, n int, limit int64) bool {
	if n == 0 || off < 0 || off+(n-1)*step >= len(x) {
		return n == 0
	}
	if step == 1 {
		// Contiguous and, usually, without −1: in range at both ends and increasing pair by
		// pair, with no value carried from one step to the next.
		xs := x[off : off+n : off+n]
		if xs[0] >= 0 && xs[n-1] < limit && kvcStrictlyIncreasing(xs) {
			return true
		}
	}
	last := int64(-1)
	for i := range n {
		v := x[off+i*step]
		if v == -1 {
			continue
		}
		if v <= last || v >= limit {
			return false
		}
		last = v
	}
	return true
}

// kvcStrictlyIncreasing reports whether every value of xs is greater than the one before.
func kvcStrictlyIncreasing(xs []int64) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] <= xs[i-1] {
			return false
		}
	}
	return true
}

// kvcDuplicate sorts keys and returns a value that occurs twice.
func kvcDuplicate(keys []int64) (int64, bool) {
	slices.Sort(keys)
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			return keys[i], true
		}
	}
	return 0, false
}
