// Package zerotest runs the zero-value tests of the exported API: every exported function and
// method is called with nil pointers, nil maps, zero structs, nil readers and writers, empty
// slices and huge or negative numbers, and must answer with an error or a zero result, never a
// panic. Each package lists its calls; Run reports the ones that fail.
package zerotest

import (
	"fmt"
	"sort"
	"testing"
)

// Run calls each of calls, in name order. A call returns nil when the API did what it should,
// else what it did wrong; a panic is reported as a failure of the call that raised it.
func Run(t testing.TB, calls map[string]func() error) {
	t.Helper()
	names := make([]string, 0, len(calls))
	for name := range calls {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := recovered(calls[name]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// recovered is f's result, or the panic it raised as an error.
func recovered(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// WantErr is nil when err is an error, and says so when the call that returned it was not
// refused.
func WantErr(err error) error {
	if err == nil {
		return fmt.Errorf("no error")
	}
	return nil
}
