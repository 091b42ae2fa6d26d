package tensor

import "math"

// BF16FromFloat32 rounds f to the nearest bfloat16, ties to even. NaN stays NaN (quieted).
func BF16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x0040
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// Float32FromBF16 widens a bfloat16 exactly.
func Float32FromBF16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F16FromFloat32 rounds f to the nearest IEEE half, ties to even, with subnormals; values past
// the largest half round to infinity. NaN stays NaN (quieted, payload truncated).
func F16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>13)
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Result is subnormal (or zero): value = m · 2^-24 with m = mant24 >> (14-e).
		shift := uint(14 - e)
		if shift > 24 {
			return sign
		}
		mant |= 0x800000
		m := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && m&1 == 1) {
			m++ // may carry into the smallest normal, which is the right encoding
		}
		return sign | uint16(m)
	}
	h := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // a carry into the exponent is correct, up to and including infinity
	}
	return sign | uint16(h)
}

// Float32FromF16 widens an IEEE half exactly.
func Float32FromF16(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch exp {
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case 0:
		f := float32(m) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | m<<13)
}

// ToFloat32 converts the bits of a 16-bit float of type d (F16 or BF16) to float32.
func ToFloat32(d DType, h uint16) float32 {
	if d == F16 {
		return Float32FromF16(h)
	}
	return Float32FromBF16(h)
}

// FromFloat32 rounds f to a 16-bit float of type d (F16 or BF16).
func FromFloat32(d DType, f float32) uint16 {
	if d == F16 {
		return F16FromFloat32(f)
	}
	return BF16FromFloat32(f)
}

// ULPDiff is the distance in units in the last place between two values of type d (F64, F32, F16
// or BF16) given as float64, counting representable values between them; it is 0 for two NaNs and
// math.MaxInt64 when exactly one is NaN, when an infinity differs, or when the count does not fit
// in an int64 (F64 values of opposite signs far from zero).
func ULPDiff(d DType, a, b float64) int64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		if math.IsNaN(a) && math.IsNaN(b) {
			return 0
		}
		return math.MaxInt64
	}
	ka, kb := orderedBits(d, a), orderedBits(d, b)
	if ka == kb {
		return 0
	}
	if inf := infKey(d); ka == inf || ka == -inf || kb == inf || kb == -inf {
		return math.MaxInt64
	}
	if ka > kb {
		ka, kb = kb, ka
	}
	// F64 keys span nearly all of int64, so kb-ka can exceed it; the true distance is below
	// 2^64, so the unsigned difference is exact and only needs saturating.
	if u := uint64(kb) - uint64(ka); u <= math.MaxInt64 {
		return int64(u)
	}
	return math.MaxInt64
}

// infKey is orderedBits(d, +Inf).
func infKey(d DType) int64 {
	switch d {
	case F16:
		return 0x7c00
	case BF16:
		return 0x7f80
	case F64:
		return 0x7ff0000000000000
	}
	return 0x7f800000
}

// orderedBits maps a value of type d to an integer that counts representable values, so that
// neighbours differ by one and -0 == +0.
func orderedBits(d DType, v float64) int64 {
	var bits int64
	var signBit int64
	switch d {
	case F16:
		bits, signBit = int64(F16FromFloat32(float32(v))), 0x8000
	case BF16:
		bits, signBit = int64(BF16FromFloat32(float32(v))), 0x8000
	case F64:
		u := math.Float64bits(v)
		if u>>63 != 0 {
			return -int64(u &^ (1 << 63))
		}
		return int64(u)
	default:
		bits, signBit = int64(math.Float32bits(float32(v))), 0x80000000
	}
	if bits&signBit != 0 {
		return -(bits &^ signBit)
	}
	return bits
}
