//go:build (!amd64 && !arm64) || purego

package cpu

// Without assembly every float of a token's cos/sin row is gathered in Go.
func mropeGatherAsm(isa, []float32, *[mropeMaxRows][]float32, []uint64) int { return 0 }
