package ops_test

import (
	"testing"

	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// CacheRows is Slot's row in each cache layout, whether or not the layout lets it skip the
// division (a PA cache with padding between blocks does not).
func TestKVRMSNormRoPECacheCacheRows(t *testing.T) {
	padded := func(p *ops.KVRMSNormRoPECacheParams) {
		for _, c := range []*tensor.Tensor{&p.KCache, &p.CKVCache} {
			d := c.Shape[3]
			*c = tensor.FromBits(tensor.BF16, make([]uint16, 4*(4*d+8)), 4, 4, 1, d)
			c.Strides = []int{4*d + 8, d, d, 1}
		}
	}
	for _, mode := range []struct {
		name string
		mut  func(p *ops.KVRMSNormRoPECacheParams)
	}{
		{"PA", func(*ops.KVRMSNormRoPECacheParams) {}},
		{"PA, slots in order", func(p *ops.KVRMSNormRoPECacheParams) {
			p.Index = tensor.FromI64([]int64{0, 1, 2, 3, 4, 15}, kvB*kvS)
		}},
		{"PA padded blocks", padded},
		{"PA_BNSD", func(p *ops.KVRMSNormRoPECacheParams) { p.CacheMode = ops.CachePABNSD }},
		{"PA_NZ", func(p *ops.KVRMSNormRoPECacheParams) { p.CacheMode = ops.CachePANZ }},
		{"Norm", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CacheNorm
			p.KCache = tensor.Zeros(tensor.BF16, kvB, 1, 4, kvDk)
			p.CKVCache = tensor.Zeros(tensor.BF16, kvB, 1, 4, kvDv)
			p.Index = tensor.FromI64([]int64{0, 3, -1, 2, 1, 0}, kvB, kvS)
		}},
		{"PA_BLK_BNSD", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePABlkBNSD
			p.Index = tensor.FromI64([]int64{8, -1}, 2)
		}},
	} {
		p := kvValid()
		mode.mut(&p)
		a, err := ops.NewKVRMSNormRoPECache(p)
		if err != nil {
			t.Fatalf("%s: %v", mode.name, err)
		}
		skipped := 0
		for b := range kvB {
			for s := range kvS {
				k, ckv, ok := a.CacheRows(b, s)
				block, slot, want := a.Slot(b, s)
				if ok != want {
					t.Fatalf("%s (%d, %d): ok %v, Slot says %v", mode.name, b, s, ok, want)
				}
				if !ok {
					skipped++
					continue
				}
				if wk, wc := a.KLayout.RowAt(block, slot), a.CKVLayout.RowAt(block, slot); k != wk || ckv != wc {
					t.Errorf("%s (%d, %d): rows %d, %d; want %d, %d", mode.name, b, s, k, ckv, wk, wc)
				}
			}
		}
		if skipped == kvB*kvS {
			t.Errorf("%s: every token skipped", mode.name)
		}
	}
}

// Linear, where a call has it, addresses every token's rows as the per-token methods do.
func TestKVRMSNormRoPECacheLinear(t *testing.T) {
	for _, c := range []struct {
		name   string
		mut    func(p *ops.KVRMSNormRoPECacheParams)
		linear bool
	}{
		{"PA", func(*ops.KVRMSNormRoPECacheParams) {}, true},
		{"PA_BNSD, one sequence", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CachePABNSD
			for _, t := range []*tensor.Tensor{&p.KV, &p.Cos, &p.Sin, &p.KRoPE, &p.CKV} {
				t.Shape = []int{1, 1, kvB * kvS, t.Shape[3]}
			}
		}, true},
		{"decode: S = 1, cos shared", func(p *ops.KVRMSNormRoPECacheParams) {
			for _, t := range []*tensor.Tensor{&p.KV, &p.KRoPE, &p.CKV} {
				t.Shape = []int{kvB * kvS, 1, 1, t.Shape[3]}
			}
			for _, t := range []*tensor.Tensor{&p.Cos, &p.Sin} {
				t.Shape = []int{1, 1, 1, kvDk}
			}
		}, true},
		{"cos per batch", func(p *ops.KVRMSNormRoPECacheParams) {
			for _, t := range []*tensor.Tensor{&p.Cos, &p.Sin} {
				t.Shape = []int{kvB, 1, 1, kvDk}
			}
		}, false},
		{"index I32", func(p *ops.KVRMSNormRoPECacheParams) {
			p.Index = tensor.FromI32([]int32{0, 5, -1, 9, 2, 15}, 6)
		}, false},
		{"padded blocks", func(p *ops.KVRMSNormRoPECacheParams) {
			for _, c := range []*tensor.Tensor{&p.KCache, &p.CKVCache} {
				d := c.Shape[3]
				*c = tensor.FromBits(tensor.BF16, make([]uint16, 4*(4*d+8)), 4, 4, 1, d)
				c.Strides = []int{4*d + 8, d, d, 1}
			}
		}, false},
		{"Norm", func(p *ops.KVRMSNormRoPECacheParams) {
			p.CacheMode = ops.CacheNorm
			p.KCache = tensor.Zeros(tensor.BF16, kvB, 1, 4, kvDk)
			p.CKVCache = tensor.Zeros(tensor.BF16, kvB, 1, 4, kvDv)
			p.Index = tensor.FromI64([]int64{0, 3, -1, 2, 1, 0}, kvB, kvS)
		}, false},
	} {
		p := kvValid()
		c.mut(&p)
		a, err := ops.NewKVRMSNormRoPECache(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		l, ok := a.Linear()
		if ok != c.linear {
			t.Fatalf("%s: Linear ok = %v, want %v", c.name, ok, c.linear)
		}
		if !ok {
			continue
		}
		if l.Slots != 16 {
			t.Errorf("%s: %d slots, want 16", c.name, l.Slots)
		}
		for b := range a.Batch {
			for s := range a.Seq {
				tok := b*a.Seq + s
				if got, want := [3]int{l.KV.At(tok), l.Cos.At(tok), l.Sin.At(tok)}, [3]int{a.KVRow(b, s), a.CosRow(b, s), a.SinRow(b, s)}; got != want {
					t.Errorf("%s token %d: kv, cos, sin rows %v, want %v", c.name, tok, got, want)
				}
				v := l.Index[l.IndexAt.At(tok)]
				if v != a.IndexValue(b, s) {
					t.Errorf("%s token %d: index %d, want %d", c.name, tok, v, a.IndexValue(b, s))
				}
				k, ckv, cached := a.CacheRows(b, s)
				if cached != (v >= 0) || cached && (k != l.K.At(int(v)) || ckv != l.CKV.At(int(v))) {
					t.Errorf("%s token %d: cache rows %d, %d for slot %d; CacheRows says %d, %d, %v", c.name, tok, l.K.At(int(v)), l.CKV.At(int(v)), v, k, ckv, cached)
				}
			}
		}
	}
}
