package cpu

import "fmt"

// The assembly of both architectures is generated on any machine (CI regenerates and diffs it),
// so the go:generate lines live here, in a file every build has.
//
//go:generate sh -c "cd _asm && go run . -pkg cpu -out ../rotate_amd64.s -stubs ../rotate_amd64_stubs.go -dispatch ../dispatch_amd64.go"
//go:generate sh -c "cd _asm && go run . -arch arm64 -pkg cpu -out ../rotate_arm64.s -stubs ../rotate_arm64_stubs.go -dispatch ../dispatch_arm64.go"

// Name is the backend's registry name.
const Name = "cpu"

// kernels names one implementation: "avx512bf16", "avx512", "avx2", "neon" or "generic". Its assembly is reached
// through callKernel's switch of direct calls, not function values, so the compiler sees the
// kernels' noescape and the cos/sin rows can stay on the caller's stack.
type kernels struct {
	name string
	isa  isa
}

type isa uint8

const (
	isaGeneric isa = iota
	isaAVX2
	isaAVX512
	isaAVX512BF16 // AVX-512 with VCVTNEPS2BF16 for bf16 stores
	isaNEON       // arm64 Advanced SIMD
)

// generic is the pure-Go implementation: every pair goes through the Go loops.
var generic = &kernels{name: "generic", isa: isaGeneric}

var (
	impls  = available()
	active = impls[0] // chosen once; tests switch it with use
)

// Implementations names the kernel sets this machine can run, best first ("avx512bf16",
// "avx512", "avx2", "generic" on amd64; "neon", "generic" on arm64).
func Implementations() []string {
	names := make([]string, len(impls))
	for i, k := range impls {
		names[i] = k.name
	}
	return names
}

// Active names the kernel set in use.
func Active() string { return active.name }

// SetImplementation switches the kernel set by name, for tests and benchmarks that compare
// them; it must not run concurrently with calls.
func SetImplementation(name string) error {
	for _, k := range impls {
		if k.name == name {
			active = k
			return nil
		}
	}
	return fmt.Errorf("cpu: implementation %q not available here (have %v)", name, Implementations())
}
