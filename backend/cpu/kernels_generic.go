//go:build (!amd64 && !arm64) || purego

package cpu

// available lists the implementations this build runs: only the pure-Go one.
func available() []*kernels { return []*kernels{generic} }
