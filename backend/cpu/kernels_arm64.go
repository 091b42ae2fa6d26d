//go:build arm64 && !purego

package cpu

import "golang.org/x/sys/cpu"

// neon runs the NEON kernels (rotate_arm64.s). Every arm64 core has Advanced SIMD; bf16 is
// rounded with integer arithmetic, since golang.org/x/sys/cpu does not report FEAT_BF16 (whose
// BFCVTN would round in one instruction).
var neon = &kernels{name: "neon", isa: isaNEON}

// available lists the implementations this machine runs, best first.
func available() []*kernels {
	if cpu.ARM64.HasASIMD {
		return []*kernels{neon, generic}
	}
	return []*kernels{generic}
}
