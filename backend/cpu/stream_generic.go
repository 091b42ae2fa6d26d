//go:build !amd64 || purego

package cpu

// Without assembly the streaming passes are Go's loops throughout.

func streamXorAsm(isa, []byte, uint64) int { return 0 }

func streamFoldAsm(isa, []byte) folded { return folded{} }
