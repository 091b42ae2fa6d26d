package ops

import (
	"fmt"

	"github.com/rotary-go/rotary/tensor"
)

// KVCacheLayout locates a cache row: element c of the row of (block, slot) lies at backing index
// Off + block·BlockStride + slot·SlotStride + (c/Group)·GroupStride + c%Group. An ND cache is
// one group of the whole row; a FRACTAL_NZ cache ([BlockNum, D/C0, BlockSize, 1, C0] in memory,
// C0 = 32 bytes of the cache's dtype: 16 for F16/BF16, 32 for I8, 8 for F32) stores each run of
// C0 channels of a block's slots together. In Norm mode a block is a cache batch and a slot a
// sequence position.
type KVCacheLayout struct {
	Blocks, BlockSize int
	Off               int
	BlockStride       int
	SlotStride        int
	GroupStride       int
	Group             int
}

// At is the backing index of channel c of the row of (block, slot).
func (l *KVCacheLayout) At(block, slot, c int) int {
	return l.Off + block*l.BlockStride + slot*l.SlotStride + c/l.Group*l.GroupStride + c%l.Group
}

// RowAt is At(block, slot, 0): the backing index of the row of (block, slot).
func (l *KVCacheLayout) RowAt(block, slot int) int {
	return l.Off + block*l.BlockStride + slot*l.SlotStride
}

// kvcCacheLayout checks one cache against the mode and returns where its rows live; width is
// the row length (Dk or Dv) and B kv's batch. A cache must hold at least one element per slot:
// a view with more slots than its buffer has elements repeats memory (a stride of 0), so its
// slots are not the distinct rows the index check assumes, and that check's memory, bounded by
// the slot count, would not be bounded by the caller's data.
func kvcCacheLayout(l *KVCacheLayout, name string, c *tensor.Tensor, mode CacheMode, kvType tensor.DType, B, width int) error {
	if err := kvcCacheLayoutOf(l, name, c, mode, kvType, B, width); err != nil {
		return err
	}
	n := 0
	switch c.DType {
	case tensor.F32:
		n = len(c.F32)
	case tensor.F16, tensor.BF16:
		n = len(c.Bits)
	case tensor.I8:
		n = len(c.I8)
	}
	if l.BlockSize > 0 && l.Blocks > n/l.BlockSize {
		return fmt.Errorf("%s: shape %s: %d blocks of %d slots over a %d-element buffer: want memory of its own for every slot (no stride 0)", name, tensor.ShapeString(c.Shape), l.Blocks, l.BlockSize, n)
	}
	return nil
}

// kvcCacheLayoutOf sets every field of l when c fits the mode (written in place: returned, the
// layout went through memory twice).
func kvcCacheLayoutOf(l *KVCacheLayout, name string, c *tensor.Tensor, mode CacheMode, kvType tensor.DType, B, width int) error {
	if c.DType == tensor.Invalid {
		return fmt.Errorf("%s: missing", name)
	}
	if err := tensor.CheckPtr(c, name); err != nil {
		return err
	}
	if c.DType != kvType && c.DType != tensor.I8 {
		return fmt.Errorf("%s: dtype %v: want kv's %v or I8", name, c.DType, kvType)
	}
	sh := c.Shape
	if mode == CacheNorm {
		if len(sh) != 4 || sh[0] < B || sh[1] != 1 || sh[3] != width {
			return fmt.Errorf("%s: shape %s: Norm mode wants [Bcache, 1, Scache, %d] with Bcache ≥ B = %d", name, tensor.ShapeString(sh), width, B)
		}
		if err := kvcContiguousRows(name, c); err != nil {
			return err
		}
		l.set(sh[0], sh[2], c.Offset, tensor.StrideOf(c, 0), tensor.StrideOf(c, 2), 0, width)
		return nil
	}
	if !mode.NZ() {
		if len(sh) != 4 || sh[2] != 1 || sh[3] != width || sh[1] < 1 {
			return fmt.Errorf("%s: shape %s: %s mode wants [BlockNum, BlockSize ≥ 1, 1, %d]", name, tensor.ShapeString(sh), mode, width)
		}
		if err := kvcContiguousRows(name, c); err != nil {
			return err
		}
		l.set(sh[0], sh[1], c.Offset, tensor.StrideOf(c, 0), tensor.StrideOf(c, 1), 0, width)
		return nil
	}
	c0 := 32 / c.DType.Size()
	if width%c0 != 0 {
		return fmt.Errorf("%s: %s stores rows in 32-byte groups of %d %v: row length %d is not a multiple", name, mode, c0, c.DType, width)
	}
	switch len(sh) {
	case 4: // the logical shape torch_npu reports; the memory is NZ, so the view must be whole
		if sh[2] != 1 || sh[3] != width || sh[1] < 1 {
			break
		}
		if !c.Contiguous() {
			return fmt.Errorf("%s: a [BlockNum, BlockSize, 1, %d] view of an NZ cache must be contiguous (or give the NZ shape [BlockNum, %d, BlockSize, 1, %d] with strides)", name, width, width/c0, c0)
		}
		bs := sh[1]
		// Check bounds bs·width by the buffer only when the cache has a block.
		blockStride, ok := mulInt(bs, width)
		if !ok {
			return fmt.Errorf("%s: shape %s: a block of %d slots of %d overflows int", name, tensor.ShapeString(sh), bs, width)
		}
		l.set(sh[0], bs, c.Offset, blockStride, c0, bs*c0, c0)
		return nil
	case 5: // the NZ memory shape
		if sh[1] != width/c0 || sh[2] < 1 || sh[3] != 1 || sh[4] != c0 {
			break
		}
		if err := kvcContiguousRows(name, c); err != nil {
			return err
		}
		l.set(sh[0], sh[2], c.Offset, tensor.StrideOf(c, 0), tensor.StrideOf(c, 2), tensor.StrideOf(c, 1), c0)
		return nil
	}
	return fmt.Errorf("%s: shape %s: %s mode wants [BlockNum, BlockSize ≥ 1, 1, %d] or its NZ form [BlockNum, %d, BlockSize, 1, %d]", name, tensor.ShapeString(sh), mode, width, width/c0, c0)
}

// set writes every field of l, in the order they are declared. A composite literal stored
// through the pointer is built in a temporary first, and copying that cost a store-forwarding
// stall per cache on every call.
func (l *KVCacheLayout) set(blocks, blockSize, off, blockStride, slotStride, groupStride, group int) {
	l.Blocks, l.BlockSize, l.Off = blocks, blockSize, off
	l.BlockStride, l.SlotStride, l.GroupStride, l.Group = blockStride, slotStride, groupStride, group
}

// Slot is where token s of batch b goes in both caches; ok is false when its index is −1.
func (a *KVRMSNormRoPECacheArgs) Slot(b, s int) (block, slot int, ok bool) {
	v := a.IndexValue(b, s)
	if v < 0 {
		return 0, 0, false
	}
	bs := a.KLayout.BlockSize
	switch {
	case a.CacheMode == CacheNorm:
		return b, int(v), true
	case a.CacheMode.PerBlock():
		return int(v) / bs, s % bs, true
	}
	return int(v) / bs, int(v) % bs, true
}

// blocksPerSeq is ceil(S/BlockSize), without overflow.
func (a *KVRMSNormRoPECacheArgs) blocksPerSeq() int {
	if a.Seq == 0 {
		return 0
	}
	return (a.Seq-1)/a.KLayout.BlockSize + 1
}

// CacheRows is where token (b, s)'s rows start in the k and ckv caches' backings, the RowAt of
// its Slot; ok is false for a skipped token.
func (a *KVRMSNormRoPECacheArgs) CacheRows(b, s int) (k, ckv int, ok bool) {
	if a.linear {
		v := int(a.IndexValue(b, s))
		if v < 0 {
			return 0, 0, false
		}
		return a.KLayout.Off + v*a.KLayout.SlotStride, a.CKVLayout.Off + v*a.CKVLayout.SlotStride, true
	}
	block, slot, ok := a.Slot(b, s)
	if !ok {
		return 0, 0, false
	}
	return a.KLayout.RowAt(block, slot), a.CKVLayout.RowAt(block, slot), true
}

// KVRow, CosRow, SinRow, KRoPERow and CKVRow are the backing indices of the first element of
// token (b, s)'s row in each tensor (cos and sin broadcast).
func (a *KVRMSNormRoPECacheArgs) KVRow(b, s int) int { return a.kvRows.at(b, s) }

// CosRow: see KVRow.
func (a *KVRMSNormRoPECacheArgs) CosRow(b, s int) int { return a.cosRows.at(b, s) }

// SinRow: see KVRow.
func (a *KVRMSNormRoPECacheArgs) SinRow(b, s int) int { return a.sinRows.at(b, s) }

// KRoPERow: see KVRow; KRoPE must be present.
func (a *KVRMSNormRoPECacheArgs) KRoPERow(b, s int) int { return a.kRopeRows.at(b, s) }

// CKVRow: see KVRow; CKV must be present.
func (a *KVRMSNormRoPECacheArgs) CKVRow(b, s int) int { return a.ckvRows.at(b, s) }

// kvcRows addresses the rows (b, 0, s) of a [B|1, 1, S|1, D] tensor, size-1 dimensions
// broadcast (stride 0).
type kvcRows struct{ off, bStride, sStride int }

func kvcRowsOf(t *tensor.Tensor) kvcRows {
	if t.DType == tensor.Invalid {
		return kvcRows{}
	}
	r := kvcRows{off: t.Offset}
	if t.Shape[0] != 1 {
		r.bStride = tensor.StrideOf(t, 0)
	}
	if t.Shape[2] != 1 {
		r.sStride = tensor.StrideOf(t, 2)
	}
	return r
}

func (r kvcRows) at(b, s int) int { return r.off + b*r.bStride + s*r.sStride }

// KVAffine is an address affine in one number: Off + n·Step.
type KVAffine struct{ Off, Step int }

// At is Off + n·Step.
func (f KVAffine) At(n int) int { return f.Off + n*f.Step }

// KVLinear is the addressing of a call whose rows are affine in the token number t = b·S + s
// (batch b, position s): token t's kv, cos and sin rows start at KV.At(t), Cos.At(t) and
// Sin.At(t) in their backings, its index value is Index[IndexAt.At(t)], and a non-negative
// value v puts its rows at K.At(v) and CKV.At(v) in the caches. Slots is the number of slots
// the index check admits (every value is below it).
type KVLinear struct {
	KV, Cos, Sin, IndexAt, K, CKV KVAffine
	Index                         []int64
	Slots                         int
}

// Linear reports the call's KVLinear, when it has one: an I64 index of a PA, PA_BNSD or PA_NZ
// call whose caches keep one row stride across blocks (BlockStride = BlockSize·SlotStride: no
// padding between blocks, and for NZ a single 16-element group), and kv, cos and sin whose batch
// stride is S times their position stride (or whose B or S is 1). The optional outputs are not
// part of it.
func (a *KVRMSNormRoPECacheArgs) Linear() (KVLinear, bool) {
	if !a.linear || a.idx.i64 == nil {
		return KVLinear{}, false
	}
	B, S := a.Batch, a.Seq
	kv, okKV := a.kvRows.tokenStep(B, S)
	cos, okCos := a.cosRows.tokenStep(B, S)
	sin, okSin := a.sinRows.tokenStep(B, S)
	if !okKV || !okCos || !okSin {
		return KVLinear{}, false
	}
	return KVLinear{
		KV: KVAffine{a.kvRows.off, kv}, Cos: KVAffine{a.cosRows.off, cos}, Sin: KVAffine{a.sinRows.off, sin},
		IndexAt: KVAffine{a.idx.off, a.idx.s0}, Index: a.idx.i64,
		K:     KVAffine{a.KLayout.Off, a.KLayout.SlotStride},
		CKV:   KVAffine{a.CKVLayout.Off, a.CKVLayout.SlotStride},
		Slots: a.KLayout.Blocks * a.KLayout.BlockSize,
	}, true
}

// tokenStep is the rows' stride in t = b·S + s, when they have one.
func (r kvcRows) tokenStep(B, S int) (int, bool) {
	switch {
	case S == 1:
		return r.bStride, true
	case B == 1 || r.bStride == S*r.sStride:
		return r.sStride, true
	}
	return 0, false
}
