package rotary

import (
	"math"
	"runtime"
	"sync"
)

// cosSin writes cos and sin of angle p·inv[i], times attention, rounded once to float32.
func cosSin(cos, sin []float32, p float64, inv []float64, attention float64) {
	for i, f := range inv {
		s, c := math.Sincos(p * f)
		cos[i] = float32(c * attention)
		sin[i] = float32(s * attention)
	}
}

// fillCache writes rows [from, from+n) of a vLLM-layout cache (each row: cos half, sin half),
// bit for bit what cosSin gives, on all cores for large caches.
func fillCache(dst []float32, from, n int, inv []float64, attention float64) {
	h := len(inv)
	threads := runtime.GOMAXPROCS(0)
	if n*h < 1<<16 || threads < 2 {
		fillRows(dst, from, n, inv, attention)
		return
	}
	var wg sync.WaitGroup
	per := (n + threads - 1) / threads
	for lo := 0; lo < n; lo += per {
		cnt := min(per, n-lo)
		wg.Go(func() { fillRows(dst[lo*2*h:(lo+cnt)*2*h], from+lo, cnt, inv, attention) })
	}
	wg.Wait()
}

// anchorEvery is how many positions the angle-addition recurrence runs between exact anchors.
const anchorEvery = 32

// fillRows computes rows by angle addition from an exact anchor every anchorEvery positions:
// cos((p+1)θ) = cos pθ·cos θ − sin pθ·sin θ, and the same for sin. The recurrence is far more
// accurate than float32, but the reference is math.Sincos of the rounded float64 angle p·θ, so a
// value whose float32 rounding the two could disagree on (within the error bound of a rounding
// boundary) is recomputed the reference way. The result is identical to cosSin's.
func fillRows(dst []float32, from, n int, inv []float64, attention float64) {
	h := len(inv)
	var stack [4 * 256]float64
	buf := stack[:]
	if 4*h > len(buf) {
		buf = make([]float64, 4*h)
	}
	c, s, c1, s1 := buf[:h], buf[h:2*h], buf[2*h:3*h], buf[3*h:4*h]
	for i, f := range inv {
		s1[i], c1[i] = math.Sincos(f)
	}
	for r := 0; r < n; r++ {
		p := float64(from + r)
		row := dst[r*2*h : (r+1)*2*h]
		cosRow, sinRow := row[:h:h], row[h:2*h:2*h]
		if r%anchorEvery == 0 {
			for i, f := range inv {
				s[i], c[i] = math.Sincos(p * f)
			}
		}
		// The reference's angle p·θ_i carries a float64 rounding of up to 2^-53·p·θ_i (per pair:
		// inv_freq need not fall with i, as LongRoPE's factors or a YaRN factor below 1 show);
		// the recurrence drifts by a few 2^-53 per step. Both scale with the attention factor.
		drift, scale := anchorEvery*0x1p-50, max(attention, 1)
		for i := range inv {
			slack := (p*inv[i]*0x1p-52 + drift) * scale
			cv, sv := c[i]*attention, s[i]*attention
			// Rounding is monotonic: if both ends of [v−slack, v+slack] round alike, so does
			// the reference value inside it.
			cr, sr := float32(cv), float32(sv)
			if float32(cv-slack) != float32(cv+slack) || float32(sv-slack) != float32(sv+slack) {
				sn, cs := math.Sincos(p * inv[i])
				cr, sr = float32(cs*attention), float32(sn*attention)
			}
			cosRow[i], sinRow[i] = cr, sr
			c[i], s[i] = c[i]*c1[i]-s[i]*s1[i], s[i]*c1[i]+c[i]*s1[i]
		}
	}
}
