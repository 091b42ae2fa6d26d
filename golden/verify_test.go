package golden

import (
	"errors"
	"strings"
	"testing"

	"github.com/rotary-go/rotary/compare"
	"github.com/rotary-go/rotary/tensor"
)

// set is a Set of the named tensors with metadata md.
func set(t *testing.T, md map[string]string, named ...any) *Set {
	t.Helper()
	s := &Set{Metadata: md}
	for i := 0; i+1 < len(named); i += 2 {
		if err := s.Add(named[i].(string), named[i+1].(tensor.Tensor), "test"); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// heads is a [2,2,4] F32 query, element (1,1,3) moved by delta.
func heads(delta float32) tensor.Tensor {
	v := make([]float32, 16)
	for i := range v {
		v[i] = float32(i+1) / 8
	}
	v[15] += delta
	return tensor.FromF32(v, 2, 2, 4)
}

// TestVerify: each expected output paired with the candidate's out.X or X; one missing, one of
// another dtype refused whole (unless AnyDType), one over tolerance located by the bundle's
// op's axes; the rows in the outputs' order.
func TestVerify(t *testing.T) {
	md := map[string]string{"op": "rotary_embedding"}
	bundle := set(t, md, "query", heads(5), "out.query", heads(0), "out.key", heads(0), "out.out", heads(0))
	bf16 := tensor.Zeros(tensor.BF16, 2, 2, 4)
	cand := set(t, nil, "query", heads(1), "out.key", bf16)
	rows, err := Verify(bundle, cand, VerifyOptions{Compare: compare.Options{MaxULP: 1, ATol: -1, Show: 1}, Candidate: "cand.safetensors"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Name != "out.key" || rows[1].Name != "out.out" || rows[2].Name != "out.query" {
		t.Fatalf("rows %+v", rows)
	}
	if r := rows[0]; r.Compared || r.Candidate != "out.key" || r.DType != "F32" || r.DTypeB != "BF16" ||
		r.Problem != "dtype BF16, but the golden's output is F32: a kernel writing the wrong dtype (--any-dtype compares after rounding)" {
		t.Errorf("another dtype: %+v", r)
	}
	if r := rows[1]; r.Compared || r.Candidate != "" || r.DType != "F32" || len(r.Shape) != 3 ||
		r.Problem != "missing from the candidate (want out or out.out in cand.safetensors)" {
		t.Errorf("missing: %+v", r)
	}
	if r := rows[2]; !r.Compared || r.Candidate != "query" || r.Mismatch != 1 || len(r.Worst) != 1 ||
		strings.Join(r.Worst[0].Axes, ",") != "token,head,dim" || r.Worst[0].Index[2] != 3 {
		t.Errorf("over tolerance: %+v", r)
	}
	// AnyDType compares after rounding; the note names the sides golden and candidate.
	rows, err = Verify(bundle, cand, VerifyOptions{Compare: compare.Options{MaxULP: 1 << 20, ATol: -1}, AnyDType: true})
	if err != nil || !rows[0].Compared || len(rows[0].Notes) == 0 || !strings.Contains(rows[0].Notes[0], "golden rounded to BF16") {
		t.Errorf("AnyDType: %+v, %v", rows[0], err)
	}
	if p := rows[1].Problem; p != "missing from the candidate (want out or out.out)" {
		t.Errorf("no Candidate named: %q", p)
	}
	// The bundle against itself: out.X against out.X, all pass.
	rows, err = Verify(bundle, bundle, VerifyOptions{})
	for _, r := range rows {
		if r.Problem != "" || r.Candidate != r.Name {
			t.Errorf("itself: %+v", r)
		}
	}
	if err != nil || len(rows) != 3 {
		t.Errorf("itself: %d rows, %v", len(rows), err)
	}
}

// TestVerifyRefuses: nil Sets and a bundle without outputs are errors, not panics.
func TestVerifyRefuses(t *testing.T) {
	plain := set(t, nil, "query", heads(0), "out.", heads(0))
	if _, err := Verify(plain, &Set{}, VerifyOptions{}); !errors.Is(err, ErrNoOutputs) {
		t.Errorf("no outputs: %v", err)
	}
	if _, err := Verify(&Set{}, &Set{}, VerifyOptions{}); !errors.Is(err, ErrNoOutputs) {
		t.Errorf("the zero Set: %v", err)
	}
	if _, err := Verify(nil, &Set{}, VerifyOptions{}); err == nil || !strings.Contains(err.Error(), "bundle is nil") {
		t.Errorf("nil bundle: %v", err)
	}
	if _, err := Verify(plain, nil, VerifyOptions{}); err == nil || !strings.Contains(err.Error(), "candidate is nil") {
		t.Errorf("nil candidate: %v", err)
	}
	if got := (*Set)(nil).Outputs(); got != nil {
		t.Errorf("a nil Set's outputs: %v", got)
	}
}

// TestDiff: every name of either side, sorted, one side only refused; the axes from the side
// whose metadata names an op; a bundle against a Set that is not one refused.
func TestDiff(t *testing.T) {
	a := set(t, nil, "query", heads(0), "only_a", heads(0))
	b := set(t, map[string]string{"op": "rotary_embedding"}, "query", heads(1), "only_b", tensor.Zeros(tensor.BF16, 3))
	rows, err := Diff(a, b, compare.Options{MaxULP: 1, ATol: -1, Show: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Name != "only_a" || rows[1].Name != "only_b" || rows[2].Name != "query" {
		t.Fatalf("rows %+v", rows)
	}
	if r := rows[0]; r.Compared || r.Problem != "only in A" || r.DType != "F32" || r.DTypeB != "" {
		t.Errorf("only in A: %+v", r)
	}
	if r := rows[1]; r.Compared || r.Problem != "only in B" || r.DType != "" || r.DTypeB != "BF16" || len(r.ShapeB) != 1 {
		t.Errorf("only in B: %+v", r)
	}
	if r := rows[2]; r.Mismatch != 1 || len(r.Worst) != 1 || strings.Join(r.Worst[0].Axes, ",") != "token,head,dim" {
		t.Errorf("query: %+v", r)
	}
	bundle := set(t, nil, "query", heads(0), "out.query", heads(0))
	for _, c := range []struct {
		a, b *Set
		want string
	}{
		{bundle, a, "A is a golden bundle (expected outputs out.X) and B is not"},
		{a, bundle, "B is a golden bundle (expected outputs out.X) and A is not"},
		{nil, a, "a is nil"},
		{a, nil, "b is nil"},
	} {
		if _, err := Diff(c.a, c.b, compare.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	if rows, err := Diff(bundle, bundle, compare.Options{}); err != nil || len(rows) != 2 || rows[0].Problem != "" {
		t.Errorf("two bundles: %+v, %v", rows, err)
	}
	if rows, err := Diff(&Set{}, &Set{}, compare.Options{}); err != nil || len(rows) != 0 {
		t.Errorf("two empty Sets: %+v, %v", rows, err)
	}
}
