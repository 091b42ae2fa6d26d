package multimodal

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
)

// noPanic runs f and fails the test, instead of crashing it, if f panics.
func noPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	f()
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTemporalPositionOverflow: Qwen2.5-VL's temporal position is step · second_per_grid_t ·
// tokens_per_second in float32, converted to int64. Finite but huge factors made it +Inf (or
// 0·Inf = NaN at step 0), and Go's conversion of those is implementation-defined: amd64 gave
// -2^63, so a video of 1e30 seconds per step got positions -2^63+1.
func TestTemporalPositionOverflow(t *testing.T) {
	row := cat(ids(100, vs), rep(vid, 8), ids(ve, 101))
	video := [][3]int64{{2, 4, 4}}
	for _, c := range []struct {
		name    string
		tps     float64
		seconds []float64
	}{
		{"second_per_grid_ts 1e30", 2, []float64{1e30}},
		{"second_per_grid_ts past float32", 2, []float64{1e300}},
		{"second_per_grid_ts 1e16", 1, []float64{1e16}},
		{"tokens_per_second 1e300", 1e300, nil},
		{"tokens_per_second past 2^53", 1 << 54, nil},
	} {
		cfg := DefaultConfig(Qwen25VL)
		cfg.TokensPerSecond = c.tps
		pos, _, err := GetRoPEIndex(cfg, [][]int64{row}, nil, nil, video, c.seconds)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "2^53") {
			t.Errorf("%s: error %v, positions %v; want ErrInput about the temporal position", c.name, err, pos[0])
		}
	}
	// Below 2^53 the float32 product is kept, truncated, as torch's .long() does.
	cfg := DefaultConfig(Qwen25VL)
	cfg.TokensPerSecond = 2
	pos, _, err := GetRoPEIndex(cfg, [][]int64{row}, nil, nil, video, []float64{1e15})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(float32(1e15)*2) + 2; pos[0][0][6] != want {
		t.Errorf("step 1 at 1e15 s per step: temporal position %d, want %d", pos[0][0][6], want)
	}
}

// TestDecodePositionsBadInput: a negative n panicked (makeslice), a huge one asked the runtime
// for more memory than exists, and cache position + delta wrapped around int64.
func TestDecodePositionsBadInput(t *testing.T) {
	for _, c := range []struct {
		name   string
		deltas []int64
		start  int64
		n      int
	}{
		{"negative n", []int64{0}, 0, -1},
		{"negative cache position", []int64{0}, -1, 1},
		{"start + n past int64", []int64{0}, math.MaxInt64, 2},
		{"start + delta past int64", []int64{0, 1 << 62}, 1 << 62, 1},
		{"huge n", []int64{0}, 0, 1 << 40},
		{"rows × n past the bound", make([]int64, 1<<14), 0, 1 << 13},
		{"rows × n past int64", make([]int64, 4), 0, math.MaxInt},
	} {
		noPanic(t, c.name, func() {
			var err error
			if n := allocated(func() { _, err = DecodePositions(c.deltas, c.start, c.n) }); n > 1<<20 {
				t.Errorf("%s: allocated %d bytes", c.name, n)
			}
			if err == nil || !errors.Is(err, ErrInput) {
				t.Errorf("%s: error %v, want ErrInput", c.name, err)
			}
		})
	}
	if p, err := DecodePositions([]int64{-3, math.MaxInt64 - 10}, 5, 6); err != nil || p[2][0][0] != 2 || p[1][1][5] != math.MaxInt64 {
		t.Errorf("positions up to int64's end: %v, %v", p, err)
	}
	if p, err := DecodePositions(nil, 0, 1<<40); err != nil || len(p[0]) != 0 {
		t.Errorf("no rows: %v, %v", p, err)
	}
}

// TestRowBadInput: Row indexed pos without checking b, so a row that is not there panicked.
func TestRowBadInput(t *testing.T) {
	pos, _ := mustIndex(t, DefaultConfig(Qwen2VL), [][]int64{{1, 2, 3}}, nil, nil, nil, nil)
	ragged := pos
	ragged[2] = [][]int64{{1, 2}}
	for _, c := range []struct {
		name string
		pos  Positions3
		b    int
	}{
		{"empty", Positions3{}, 0},
		{"negative", pos, -1},
		{"past the batch", pos, 1},
		{"axes of different lengths", ragged, 0},
		{"an axis short of rows", Positions3{{{1}}, {{1}}, nil}, 0},
	} {
		noPanic(t, c.name, func() {
			if r, err := Row(c.pos, c.b); err == nil {
				t.Errorf("%s: Row = %v, want an error", c.name, r)
			}
		})
	}
}

// TestVisionApplyTableOverflow: Apply compared the tables' lengths with Tokens·Dim, which for
// 2^32 × 2^32 wrapped to 0 and matched empty tables.
func TestVisionApplyTableOverflow(t *testing.T) {
	for _, cs := range []VisionCosSin{
		{Tokens: 1 << 32, Dim: 1 << 32},
		{Tokens: 1 << 62, Dim: 4},
		{Tokens: math.MaxInt, Dim: math.MaxInt},
	} {
		if err := cs.Apply(nil); err == nil || !errors.Is(err, ErrVision) {
			t.Errorf("table %d×%d with no values: %v, want ErrVision", cs.Tokens, cs.Dim, err)
		}
	}
}

// TestRoPEIndexGridMemory: a grid far larger than the vision tokens present is refused from the
// tokens, before anything proportional to the grid is allocated: each block's grid must be
// covered by the image or video tokens that follow it.
func TestRoPEIndexGridMemory(t *testing.T) {
	few := cat(ids(100, vs), rep(img, 4), ids(ve))
	fewVideo := cat(ids(100, vs), rep(vid, 4), ids(ve))
	merge1 := DefaultConfig(Qwen2VL)
	merge1.SpatialMergeSize = 1
	for _, c := range []struct {
		name           string
		cfg            Config
		in             []int64
		images, videos [][3]int64
	}{
		{"[1, 2^31, 2^31]", DefaultConfig(Qwen2VL), few, [][3]int64{{1, 1 << 31, 1 << 31}}, nil},
		{"[2^20, 2^20, 2^20] unmerged", merge1, few, [][3]int64{{1 << 20, 1 << 20, 1 << 20}}, nil},
		{"many huge images", merge1, few, [][3]int64{{1, 2, 2}, {1 << 20, 1 << 20, 1 << 20}, {1 << 20, 1 << 20, 1 << 20}}, nil},
		{"qwen3_vl video of 2^20 frames", DefaultConfig(Qwen3VL), fewVideo, nil, [][3]int64{{1 << 20, 2, 2}}},
		{"qwen2.5_vl huge video", DefaultConfig(Qwen25VL), fewVideo, nil, [][3]int64{{1 << 20, 1 << 20, 1 << 20}}},
	} {
		var err error
		if n := allocated(func() { _, _, err = GetRoPEIndex(c.cfg, [][]int64{c.in}, nil, c.images, c.videos, nil) }); n > 1<<16 {
			t.Errorf("%s: allocated %d bytes for %d tokens", c.name, n, len(c.in))
		}
		if err == nil || !errors.Is(err, ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", c.name, err)
		}
	}
}
