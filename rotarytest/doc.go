// Package rotarytest is the conformance suite every rotary backend runs against the reference
// (backend/native), in tree or out of tree, like gonum's blas/testblas.
//
// An out-of-tree backend registers its kernels with package ops under its own backend name and
// calls, from its own tests:
//
//	func TestConformance(t *testing.T) {
//		rotarytest.Run(t, "mybackend", rotarytest.Options{})
//	}
//
// The suite sweeps head sizes 64 to 256 (80, 96, 112 and 192 included), partial rotary dims, both
// pair styles, F32/F16/BF16, grouped-query key heads, token counts from 1 to past twice any vector
// width, strided token views with guard values around them, positions up to 2^20, and MRoPE in
// both section layouts. Each case runs the op once through native and once through the backend
// on identical inputs and reports the worst difference in units in the last place. Ops the backend
// does not implement are skipped, and said so. Ops lists the ops swept; each one's cases are in
// the source file named for it.
//
// The pass-through cases run through the backend alone and compare with the inputs instead:
// elements a rotation does not touch (past the rotary dim) must come out with exactly their
// input bits, every F16 and BF16 pattern and the F32 special ones (signalling NaNs above all),
// whatever tolerance Options allows.
package rotarytest
