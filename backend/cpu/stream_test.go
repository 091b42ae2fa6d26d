package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// refFold is foldWords spelled out byte by byte.
func refFold(b []byte) uint64 {
	var x uint64
	for j, v := range b {
		x ^= uint64(v) << (8 * (j % 8))
	}
	return x
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// wantXored checks that got is orig with every byte xored with key's byte for its offset: every
// byte stored exactly once, none skipped (the pass without its stores leaves orig) and none twice.
func wantXored(t *testing.T, name string, got, orig []byte, key uint64) {
	t.Helper()
	for j := range got {
		if want := orig[j] ^ byte(key>>(8*(j%8))); got[j] != want {
			t.Fatalf("%s: byte %d of %d is %#x, want %#x (was %#x)", name, j, len(got), got[j], want, orig[j])
		}
	}
}

// TestStreamKernels: on every kernel set, the pass rewrites each byte with what it read (xored
// with the key, zero in Stream), at lengths around the assembly's 256-byte rounds and from
// unaligned starts, and the fold reads every byte.
func TestStreamKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const key = 0x0123456789abcdef
	for _, k := range impls {
		for _, n := range []int{0, 1, 7, 8, 31, 33, 255, 256, 257, 511, 4096, 4096 + 300, 70000} {
			for _, off := range []int{0, 1, 5} {
				name := fmt.Sprintf("%s n=%d off=%d", k.name, n, off)
				buf := randomBytes(r, n+off+16)
				orig := append([]byte(nil), buf...)
				b := buf[off : off+n]
				if got, want := foldWords(k.isa, b), refFold(orig[off:off+n]); got != want {
					t.Errorf("%s: fold %#x, want %#x", name, got, want)
				}
				xorWords(k.isa, b, key)
				wantXored(t, name, b, orig[off:off+n], key)
				xorWords(k.isa, b, 0)
				wantXored(t, name+" key 0", b, orig[off:off+n], key)
				xorWords(k.isa, b, key)
				if string(buf) != string(orig) {
					t.Fatalf("%s: bytes outside the slice or inside it changed", name)
				}
			}
		}
	}
}

// TestStreamSplit: through the pool and inline, every byte of the written slices is stored
// exactly once whichever thread's share it falls in, the read slices stay as they were and all
// of their bytes reach the fold, and Stream itself leaves everything unchanged.
func TestStreamSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const key = 0xfedcba9876543210
	sizes := [][2][]int{
		{{1 << 20, 300<<10 + 5, 17, 0}, {64 << 10, 3, 5000}},
		{{9000}, nil},
		{nil, {1 << 20}},
		{{1}, {1}},
	}
	for _, threaded := range []bool{true, false} {
		for _, sz := range sizes {
			name := fmt.Sprintf("threaded=%v rw=%v ro=%v", threaded, sz[0], sz[1])
			var rw, ro, rwOrig, roOrig [][]byte
			var wantFold uint64
			for _, n := range sz[0] {
				b := randomBytes(r, n)
				rw, rwOrig = append(rw, b), append(rwOrig, append([]byte(nil), b...))
			}
			for _, n := range sz[1] {
				b := randomBytes(r, n)
				ro, roOrig = append(ro, b), append(roOrig, append([]byte(nil), b...))
				wantFold ^= refFold(b)
			}
			if got := stream(rw, ro, key, threaded); got != wantFold {
				t.Errorf("%s: fold %#x, want %#x", name, got, wantFold)
			}
			for i := range rw {
				wantXored(t, fmt.Sprintf("%s rw[%d]", name, i), rw[i], rwOrig[i], key)
			}
			stream(rw, ro, key, threaded)
			Stream(rw, ro, threaded)
			for i := range rw {
				if string(rw[i]) != string(rwOrig[i]) {
					t.Errorf("%s: rw[%d] changed", name, i)
				}
			}
			for i := range ro {
				if string(ro[i]) != string(roOrig[i]) {
					t.Errorf("%s: ro[%d] changed", name, i)
				}
			}
		}
	}
}

// BenchmarkStream sets the pass against Copy per byte moved (read plus written): the yardstick
// is worth its name only if it runs at least at the copy's rate. Sizes from L1 to past L3, on
// the pool only where the bench would thread them.
func BenchmarkStream(b *testing.B) {
	for _, n := range []int{64 << 10, 512 << 10, 4 << 20, 64 << 20} {
		src, dst := randomBytes(rand.New(rand.NewPCG(5, 6)), n/2), make([]byte, n/2)
		rw := [][]byte{randomBytes(rand.New(rand.NewPCG(7, 8)), n/2)}
		ro := [][]byte{randomBytes(rand.New(rand.NewPCG(9, 10)), n)}
		for _, threaded := range []bool{false, true} {
			if threaded && ThreadsFor(n) < 2 {
				continue
			}
			b.Run(fmt.Sprintf("copy/%dK/threaded=%v", n>>10, threaded), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					if threaded {
						Copy(dst, src)
					} else {
						copy(dst, src)
					}
				}
			})
			b.Run(fmt.Sprintf("rmw/%dK/threaded=%v", n>>10, threaded), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					Stream(rw, nil, threaded)
				}
			})
			b.Run(fmt.Sprintf("read/%dK/threaded=%v", n>>10, threaded), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					Stream(nil, ro, threaded)
				}
			})
		}
	}
}

// TestStreamNoAllocs: the limit pass allocates nothing, on one thread or on the pool, as the ops
// it is the yardstick for do not: an allocation would slow the limit at decode sizes and flatter
// the op.
func TestStreamNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rw, ro := [][]byte{randomBytes(r, 4096)}, [][]byte{randomBytes(r, 1000), randomBytes(r, 64)}
	for _, threaded := range []bool{false, true} {
		if n := testing.AllocsPerRun(100, func() { Stream(rw, ro, threaded) }); n != 0 {
			t.Errorf("threaded %v: %v allocations per call, want 0", threaded, n)
		}
	}
}
