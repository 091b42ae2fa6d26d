//go:build amd64 && !purego

package cpu

import "unsafe"

// streamBlock is the byte count the streaming kernels take in one round.
const streamBlock = 256

// streamXorAsm does xorWords for the leading multiple of streamBlock bytes of b and returns how
// many.
func streamXorAsm(i isa, b []byte, key uint64) int {
	n := len(b) &^ (streamBlock - 1)
	if n == 0 {
		return 0
	}
	p := (*byte)(unsafe.Pointer(unsafe.SliceData(b)))
	switch i {
	case isaAVX512, isaAVX512BF16:
		streamXorAVX512(p, n, key)
	case isaAVX2:
		streamXorAVX2(p, n, key)
	default:
		return 0
	}
	return n
}

// streamFoldAsm does foldWords for the leading multiple of streamBlock bytes of b.
func streamFoldAsm(i isa, b []byte) folded {
	n := len(b) &^ (streamBlock - 1)
	if n == 0 {
		return folded{}
	}
	p := (*byte)(unsafe.Pointer(unsafe.SliceData(b)))
	switch i {
	case isaAVX512, isaAVX512BF16:
		return folded{n, streamFoldAVX512(p, n)}
	case isaAVX2:
		return folded{n, streamFoldAVX2(p, n)}
	}
	return folded{}
}
