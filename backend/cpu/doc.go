// Package cpu is the fast CPU backend: AVX-512 and AVX2 kernels in Go assembly (generated with
// avo from the _asm module, generated files committed), F16C for f16, integer round-to-nearest-
// even for bf16, and a pure-Go fallback under the negated build tags and under -tags purego.
//
// Every kernel keeps backend/native's order of operations (each product rounded to float32, one
// add or subtract, no FMA), so results match the reference bit for bit. The implementation is
// chosen once from golang.org/x/sys/cpu; tests force each one the machine has.
//
// Importing the package registers its kernels with package ops as backend "cpu".
package cpu
