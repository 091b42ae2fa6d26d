package multimodal

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/safetensors"
)

// TestReadInputFile: a .json file (the suffix in any case) is read as JSON, anything else as
// safetensors; an error names the path, and one of the contents wraps ErrInput.
func TestReadInputFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	st := filepath.Join(dir, "in.safetensors")
	if err := safetensors.WriteFile(st, []safetensors.Tensor{safetensors.FromInt64s("input_ids", []int{2, 2}, []int64{1, 2, 3, 4})}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path  string
		ids   [][]int64
		shape []int
	}{
		{write("in.json", `{"input_ids": [7, 8, 9]}`), [][]int64{{7, 8, 9}}, []int{3}},
		{write("IN.JSON", `{"input_ids": [[7, 8], [9, 10]]}`), [][]int64{{7, 8}, {9, 10}}, []int{2, 2}},
		{st, [][]int64{{1, 2}, {3, 4}}, []int{2, 2}},
	} {
		in, shape, err := ReadInputFile(c.path)
		if err != nil || !reflect.DeepEqual(in.InputIDs, c.ids) || !reflect.DeepEqual(shape, c.shape) {
			t.Errorf("%s: %v %v, %v; want %v %v", c.path, in.InputIDs, shape, err, c.ids, c.shape)
		}
	}
	noIDs := filepath.Join(dir, "noids.safetensors")
	if err := safetensors.WriteFile(noIDs, []safetensors.Tensor{safetensors.FromInt64s("attention_mask", []int{1}, []int64{1})}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		inInput bool
	}{
		{write("bad.json", `{"input_idz": [1]}`), true},
		{noIDs, true},
		{filepath.Join(dir, "absent.json"), false},
		{filepath.Join(dir, "absent.safetensors"), false},
		{write("junk.safetensors", "not a safetensors file"), false},
	} {
		_, _, err := ReadInputFile(c.path)
		if err == nil || !strings.Contains(err.Error(), c.path) || errors.Is(err, ErrInput) != c.inInput {
			t.Errorf("%s: %v; want an error naming the path, wrapping ErrInput: %v", c.path, err, c.inInput)
		}
	}
}

// TestPositionTensors: [axes, B, S], or [axes, S] for input_ids of shape [S], in FlattenN's
// order, with rope_deltas [B]; positions that are not one block are an error, not a file.
func TestPositionTensors(t *testing.T) {
	pos := PositionsN{{{0, 1}, {2, 3}}, {{4, 5}, {6, 7}}, {{8, 9}, {10, 11}}}
	ts, err := PositionTensors(pos, []int64{-1, 2}, []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := ts[0].Int64s()
	deltas, _ := ts[1].Int64s()
	if ts[0].Name != "positions" || !reflect.DeepEqual(ts[0].Shape, []int{3, 2, 2}) || !reflect.DeepEqual(got, FlattenN(pos)) ||
		ts[1].Name != "rope_deltas" || !reflect.DeepEqual(ts[1].Shape, []int{2}) || !reflect.DeepEqual(deltas, []int64{-1, 2}) {
		t.Errorf("[B,S]: %+v", ts)
	}
	one := PositionsN{{{0, 1}}, {{0, 1}}, {{0, 1}}, {{0, 1}}}
	if ts, err := PositionTensors(one, []int64{0}, []int{2}); err != nil || !reflect.DeepEqual(ts[0].Shape, []int{4, 2}) {
		t.Errorf("[S]: %+v, %v", ts, err)
	}
	for _, c := range []struct {
		pos    PositionsN
		deltas []int64
		shape  []int
		want   string
	}{
		{PositionsN{{{0, 1}, {2}}}, []int64{0, 0}, []int{2, 2}, "axis 0 row 1 has 1 positions, want 2"},
		{PositionsN{{{0, 1}}, {}}, []int64{0}, []int{1, 2}, "axis 1 has 0 rows"},
		{pos, []int64{0}, []int{2, 2}, "rope_deltas: 1 values for 2 rows"},
		{pos, []int64{0, 0}, []int{2}, "2 rows for input_ids of shape [2]"},
	} {
		if _, err := PositionTensors(c.pos, c.deltas, c.shape); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.pos, err, c.want)
		}
	}
	if ts, err := PositionTensors(nil, nil, nil); err != nil || len(ts) != 2 {
		t.Errorf("no positions: %+v, %v", ts, err)
	}
}
