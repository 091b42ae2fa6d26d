package tensor

import "fmt"

// The bulk conversions convert whole slices with the rounding of the scalar ones
// (BF16FromFloat32, F16FromFloat32: to nearest, ties to even, NaN kept NaN, F16 subnormals
// and overflow to infinity; the widenings are exact). Each writes dst[i] from src[i], allocates
// nothing, and returns the count converted; dst and src of different lengths are an error and
// nothing is written. dst and src may not overlap.

// BF16FromFloat32s rounds each value of src to bfloat16 bits in dst.
func BF16FromFloat32s(dst []uint16, src []float32) (int, error) {
	if err := sameLen(len(dst), len(src)); err != nil {
		return 0, err
	}
	for i, f := range src {
		dst[i] = BF16FromFloat32(f)
	}
	return len(src), nil
}

// Float32sFromBF16 widens each bfloat16 of src to float32 in dst.
func Float32sFromBF16(dst []float32, src []uint16) (int, error) {
	if err := sameLen(len(dst), len(src)); err != nil {
		return 0, err
	}
	for i, h := range src {
		dst[i] = Float32FromBF16(h)
	}
	return len(src), nil
}

// F16FromFloat32s rounds each value of src to IEEE half bits in dst.
func F16FromFloat32s(dst []uint16, src []float32) (int, error) {
	if err := sameLen(len(dst), len(src)); err != nil {
		return 0, err
	}
	for i, f := range src {
		dst[i] = F16FromFloat32(f)
	}
	return len(src), nil
}

// Float32sFromF16 widens each IEEE half of src to float32 in dst.
func Float32sFromF16(dst []float32, src []uint16) (int, error) {
	if err := sameLen(len(dst), len(src)); err != nil {
		return 0, err
	}
	for i, h := range src {
		dst[i] = Float32FromF16(h)
	}
	return len(src), nil
}

// FromFloat32s rounds each value of src to the 16-bit float type d (F16 or BF16) in dst.
func FromFloat32s(d DType, dst []uint16, src []float32) (int, error) {
	switch d {
	case F16:
		return F16FromFloat32s(dst, src)
	case BF16:
		return BF16FromFloat32s(dst, src)
	}
	return 0, fmt.Errorf("d: %v: want F16 or BF16", d)
}

// ToFloat32s widens each value of src, bits of the 16-bit float type d (F16 or BF16), to
// float32 in dst.
func ToFloat32s(d DType, dst []float32, src []uint16) (int, error) {
	switch d {
	case F16:
		return Float32sFromF16(dst, src)
	case BF16:
		return Float32sFromBF16(dst, src)
	}
	return 0, fmt.Errorf("d: %v: want F16 or BF16", d)
}

func sameLen(dst, src int) error {
	if dst != src {
		return fmt.Errorf("dst: %d elements for src's %d: want equal lengths", dst, src)
	}
	return nil
}
