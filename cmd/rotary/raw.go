package main

import (
	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/raw"
)

// rawUsage is the -h text of --raw.
const rawUsage = "a raw little-endian buffer as tensor `NAME=DTYPE:SHAPE:FILE` (e.g. out.query=BF16:16,32,128:q.bin; FILE must hold exactly the shape's bytes; repeatable)"

// rawFlags collects --raw values (raw.ParseSpec); each is checked as it is parsed.
type rawFlags []raw.Spec

func (r *rawFlags) String() string { return "" }

func (r *rawFlags) Set(s string) error {
	spec, err := raw.ParseSpec(s)
	if err != nil {
		return err
	}
	*r = append(*r, spec)
	return nil
}

// addRaw reads every --raw into s.
func addRaw(s *golden.Set, specs []raw.Spec) error {
	for _, spec := range specs {
		t, err := spec.Read()
		if err != nil {
			return usagef("--raw %v", err)
		}
		if err := s.Add(spec.Name, t, spec.Path+" (--raw)"); err != nil {
			return usageError{err}
		}
	}
	return nil
}
