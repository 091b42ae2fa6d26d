//go:build (!amd64 && !arm64) || purego

package cpu

import "github.com/rotary-go/rotary/ops"

// Without assembly every float of a token's cos/sin row is gathered in Go.
func mropeGatherAsm(isa, []float32, *[mropeMaxRows][]float32, []uint64) int { return 0 }

// No kernel assembles an mrope token's cos/sin in registers here: every row is gathered first.
func mropeTokensOK(isa, *ops.RoPE) bool { return false }

func mropeTokensAsm(isa, *ops.RoPE, int, *[tokenBlock][mropeMaxRows]*float32, int, []uint64, int) {}
