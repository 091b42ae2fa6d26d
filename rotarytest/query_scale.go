package rotarytest

import (
	"fmt"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

func init() { register(ops.QueryScale, (*sweep).queryScale) }

// queryScaleRules are Llama 4's and Ministral 3's published parameters, short steps so that
// every call crosses many of them, and both casts of the beta rule.
var queryScaleRules = []struct {
	name string
	rule rotary.QueryScaleRule
}{
	{"llama4", rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 8192, AttnScale: 0.1}},
	{"llama4-step3", rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 3, AttnScale: 0.7}},
	{"beta", rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.1, OriginalMax: 16384}},
	{"beta-step5", rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: -0.3, OriginalMax: 5}},
	{"beta-step5-product", rotary.QueryScaleRule{Kind: rotary.QueryScaleBeta, Beta: 0.45, OriginalMax: 5, Cast: rotary.QueryScaleCastProduct}},
	{"llama4-scale-first", rotary.QueryScaleRule{Kind: rotary.QueryScaleLlama4, FloorScale: 7, AttnScale: 0.2, Cast: rotary.QueryScaleCastScale}},
}

// queryScale checks op query_scale: strided [T, H, D] queries with guards for every token
// count, a flat [T, H·D] one of odd width, positions up to 2^20 across the steps, every 16-bit
// pattern (and the F32 specials) scaled bit for bit, and a call large enough for threads.
func (s *sweep) queryScale() {
	op := ops.QueryScale.Name()
	for _, d := range dtypes {
		for _, rc := range queryScaleRules {
			s.queryScaleCase(op, fmt.Sprintf("%v/%s/[T,H,D] strided", d, rc.name), rc.rule, s.tokenCounts(), func(T int, seed uint64) guarded {
				return newGuarded(d, T, 5, 24, 3, seed)
			})
			s.queryScaleCase(op, fmt.Sprintf("%v/%s/[T,H·D]", d, rc.name), rc.rule, []int{1, 7, 33}, func(T int, seed uint64) guarded {
				r := rng(seed)
				return whole(randomTensor(d, []int{T, 3 * 37}, &r))
			})
			s.queryScaleSpecials(op, fmt.Sprintf("%v/%s/special values", d, rc.name), rc.rule, d)
		}
		if !s.opts.Short {
			// 2048 tokens × 8 × 64: megabytes, over the size the CPU backend splits across threads.
			s.queryScaleCase(op, fmt.Sprintf("%v/beta/threads", d), queryScaleRules[3].rule, []int{2048}, func(T int, seed uint64) guarded {
				r := rng(seed)
				return whole(randomTensor(d, []int{T, 8, 64}, &r))
			})
		}
	}
}

// queryScalePositions draws T positions up to 2^20, most of them next to a multiple of step
// (where Llama 4's and the beta rule's steps begin), the last 2^20 itself.
func queryScalePositions(r *rng, T int, rule rotary.QueryScaleRule) tensor.Tensor {
	step := int64(rule.OriginalMax)
	if rule.Kind == rotary.QueryScaleLlama4 {
		step = int64(rule.FloorScale)
	}
	p := make([]int64, T)
	for i := range p {
		x := r.next()
		switch x % 4 {
		case 0:
			p[i] = int64(x>>8) % (1<<20 + 1)
		default:
			j := int64(x>>8) % (1<<20/step + 1)
			p[i] = max(0, j*step+int64(x%4)-2)
		}
	}
	if T > 1 {
		p[T-1] = 1 << 20
	}
	return tensor.FromI64(p, T)
}

// queryScaleCase runs the op through both dispatchers on the query newQuery makes, for each
// token count, and compares the results and the guards.
func (s *sweep) queryScaleCase(op, name string, rule rotary.QueryScaleRule, tokens []int, newQuery func(T int, seed uint64) guarded) {
	if s.lacks(op, name) {
		return
	}
	res := &Result{Op: op, Case: name}
	defer s.record(res)
	r := rng(len(name) * 7)
	for _, T := range tokens {
		pos := queryScalePositions(&r, T, rule)
		ref := newQuery(T, r.next())
		got := ref.clone()
		for _, run := range []struct {
			d *ops.Dispatcher
			q guarded
		}{{s.ref, ref}, {s.under, got}} {
			if err := rotary.QueryScale(run.d, rotary.QueryScaleParams{Positions: pos, Query: run.q.t, Rule: rule}); err != nil {
				res.Err = fmt.Errorf("%d tokens: %v", T, err)
				return
			}
		}
		u, err := compare(ref, got)
		if err != nil {
			res.Err = fmt.Errorf("%d tokens: %v", T, err)
			return
		}
		res.MaxULP = max(res.MaxULP, u)
	}
}

// queryScaleSpecials scales every pattern of passPatterns (all 65536 for F16 and BF16) at a
// position before the first step (scale 1, which still quiets signalling NaNs) and at positions
// past it, and demands the reference's bits exactly: NaN payloads included, which the ULP
// comparison would count as equal.
func (s *sweep) queryScaleSpecials(op, name string, rule rotary.QueryScaleRule, d tensor.DType) {
	if s.lacks(op, name) {
		return
	}
	res := &Result{Op: op, Case: name}
	defer s.record(res)
	pat := passPatterns(d, true)
	const width = 256
	T := (len(pat) + width - 1) / width
	q := tensor.Zeros(d, T, width)
	for i := range q.Len() {
		setBits(q, i, pat[i%len(pat)])
	}
	p := make([]int64, T)
	for t := range p {
		p[t] = int64(t%3) * (1<<20 - 1) / 2 // 0, then two positions far past the first step
	}
	pos := tensor.FromI64(p, T)
	got := whole(q).clone()
	for _, run := range []struct {
		d *ops.Dispatcher
		q tensor.Tensor
	}{{s.ref, q}, {s.under, got.t}} {
		if err := rotary.QueryScale(run.d, rotary.QueryScaleParams{Positions: pos, Query: run.q, Rule: rule}); err != nil {
			res.Err = err
			return
		}
	}
	for i := range q.Len() {
		if w, g := bitsAt(q, i), bitsAt(got.t, i); w != g {
			res.Err = fmt.Errorf("pattern %#x (token %d, position %d): bits %#x, reference %#x", pat[i%len(pat)], i/width, p[i/width], g, w)
			return
		}
	}
}
