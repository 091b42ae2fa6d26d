// Package tensor holds the element types rotary works on and strided views over them.
//
// F16 and BF16 values travel as their raw bits in []uint16. Conversions from float32 round to
// nearest, ties to even, keep NaN a (quiet) NaN of the same sign, and map overflow to infinity,
// exactly as IEEE 754 and PyTorch's .to(dtype) do; conversions to float32 are exact.
package tensor
