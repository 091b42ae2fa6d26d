package cpu_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rotary-go/rotary"
	"github.com/rotary-go/rotary/backend/cpu"
	"github.com/rotary-go/rotary/ops"
	"github.com/rotary-go/rotary/tensor"
)

// TestConcurrentLargeCalls: calls big enough for the worker pool, from several goroutines at
// once (one gets the pool, the others run inline), all equal to native.
func TestConcurrentLargeCalls(t *testing.T) {
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 1024}
	ref, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
	emb, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
	const T = 300
	p := make([]int64, T)
	for i := range p {
		p[i] = int64(i * 3)
	}
	pos := tensor.FromI64(p, T)
	x := tensor.Zeros(tensor.F32, T, 8, 128)
	for i := range x.F32 {
		x.F32[i] = float32(i%97) / 97
	}
	want := x.Clone()
	if err := ref.Forward(pos, want, tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for r := range 20 {
				got := x.Clone()
				if err := emb.Forward(pos, got, tensor.Tensor{}); err != nil {
					t.Error(err)
					return
				}
				for i := range got.F32 {
					if got.F32[i] != want.F32[i] {
						t.Errorf("goroutine %d round %d: element %d = %v, want %v", g, r, i, got.F32[i], want.F32[i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestPoolHandOff: many back-to-back pooled calls, with pauses long enough for the worker to
// park between some of them, must each produce the reference result (a lost or stale hand-off
// would skip or repeat a chunk).
func TestPoolHandOff(t *testing.T) {
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 512}
	ref, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
	emb, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
	const T = 256
	p := make([]int64, T)
	for i := range p {
		p[i] = int64(i)
	}
	pos := tensor.FromI64(p, T)
	x := tensor.Zeros(tensor.F32, T, 4, 128)
	for i := range x.F32 {
		x.F32[i] = float32(i%89) / 89
	}
	want := x.Clone()
	if err := ref.Forward(pos, want, tensor.Tensor{}); err != nil {
		t.Fatal(err)
	}
	for r := range 300 {
		if r%50 == 0 {
			time.Sleep(200 * time.Microsecond) // let the worker park
		}
		got := x.Clone()
		if err := emb.Forward(pos, got, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		for i := range got.F32 {
			if got.F32[i] != want.F32[i] {
				t.Fatalf("round %d: element %d = %v, want %v", r, i, got.F32[i], want.F32[i])
			}
		}
	}
}

// TestPoolChunks: in-place rotations of every token count from 2 to a dozen per thread, each big
// enough for the pool, equal native's: every token is rotated exactly once however the count
// divides among the threads and whichever chunks the caller takes back from a worker that has
// not started them (a chunk run twice would rotate its tokens twice, one skipped would leave
// them as they were).
func TestPoolChunks(t *testing.T) {
	// 128 heads of 128 f32 move 128 KiB per token: two tokens already reach the pool.
	spec := rotary.Spec{HeadSize: 128, RotaryDim: 128, Base: 10000, MaxPositions: 4096}
	ref, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "none", ops.Auto)))
	emb, _ := rotary.New(spec, rotary.WithDispatcher(mustDispatcher(t, "all", cpu.Name)))
	if cpu.ThreadsFor(2*128*128*4*2) < 2 {
		t.Skip("one thread: no pool")
	}
	for T := 2; T <= 12*runtime.GOMAXPROCS(0)+3; T++ {
		p := make([]int64, T)
		for i := range p {
			p[i] = int64(i*7 + 1)
		}
		pos := tensor.FromI64(p, T)
		x := tensor.Zeros(tensor.F32, T, 128, 128)
		for i := range x.F32 {
			x.F32[i] = float32(i%101)/101 - 0.5
		}
		want := x.Clone()
		if err := ref.Forward(pos, want, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		if err := emb.Forward(pos, x, tensor.Tensor{}); err != nil {
			t.Fatal(err)
		}
		for i := range x.F32 {
			if x.F32[i] != want.F32[i] {
				t.Fatalf("%d tokens: element %d (token %d) = %v, want %v", T, i, i/(128*128), x.F32[i], want.F32[i])
			}
		}
	}
}
