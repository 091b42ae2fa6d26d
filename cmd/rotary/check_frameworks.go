package main

import (
	"io"
	"strings"

	"github.com/rotary-go/rotary/check"
	"github.com/rotary-go/rotary/hf"
)

// frameworksFlag is check's --frameworks: bare for every dialect, --frameworks=LIST (or a
// LIST argument after a bare --frameworks) for some.
type frameworksFlag struct {
	on   bool
	list []hf.Dialect
	// err is a bad list, reported by runCheckFrameworks: returned from Set, the flag package
	// would call it an invalid boolean value.
	err error
}

func (f *frameworksFlag) String() string {
	if !f.on {
		return ""
	}
	names := make([]string, len(f.list))
	for i, d := range f.list {
		names[i] = string(d)
	}
	return strings.Join(names, ",")
}

func (f *frameworksFlag) IsBoolFlag() bool { return true }

func (f *frameworksFlag) Set(s string) error {
	switch s {
	case "false":
		f.on, f.list = false, nil
		return nil
	case "true", "all":
		f.on, f.list = true, nil
		return nil
	}
	list, err := check.ParseDialects(s)
	if err != nil {
		f.on, f.list, f.err = true, nil, usagef("--frameworks=%s: %v", s, err)
		return nil
	}
	f.on, f.list, f.err = true, list, nil
	return nil
}

// takeList consumes a dialect list given as the argument after a bare --frameworks: check takes
// no other argument, so a lone one there is a list, and a bad one is reported as such.
func (f *frameworksFlag) takeList(args []string) []string {
	if !f.on || f.list != nil || f.err != nil || len(args) != 1 {
		return args
	}
	list, err := check.ParseDialects(args[0])
	if err != nil {
		f.err = usagef("--frameworks %s: %v", args[0], err)
	}
	f.list = list
	return nil
}

func runCheckFrameworks(data []byte, source string, opts hf.ParseOptions, fw frameworksFlag, verbose, asJSON bool, stdout io.Writer) error {
	if fw.err != nil {
		return fw.err
	}
	r, err := check.Frameworks(data, opts, fw.list)
	if err != nil {
		return usageError{err}
	}
	r.Source, r.Verbose = source, verbose
	return writeReport(stdout, asJSON, r, r.WriteText, r.Agree)
}
