package golden

import (
	"fmt"
	"strconv"
)

// Args are the values of an op's parameters by name, in the text `rotary apply` takes after
// the parameter's flag; a parameter absent takes its default. The values a bundle records in
// its apply_args are these, normalized (Normalize).
type Args map[string]string

// Normalize checks every value against its parameter's kind and returns the values in the
// text a flag of that kind prints ("1e-3" becomes "0.001"), so that a bundle records one
// spelling. An unknown parameter is an error.
func (a Args) Normalize() (Args, error) {
	out := make(Args, len(a))
	for name, v := range a {
		p, ok := paramOf(name)
		if !ok {
			return nil, fmt.Errorf("--%s: no op has this parameter", name)
		}
		n, err := p.normalize(v)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %v", name, v, err)
		}
		out[name] = n
	}
	return out, nil
}

// normalize parses v as p's kind and prints it as the flag package prints such a flag.
func (p Param) normalize(v string) (string, error) {
	switch p.Kind {
	case Int:
		n, err := strconv.ParseInt(v, 0, strconv.IntSize)
		if err != nil {
			return "", fmt.Errorf("want an integer")
		}
		return strconv.Itoa(int(n)), nil
	case Float, OptFloat:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return "", fmt.Errorf("want a number")
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case Bool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return "", fmt.Errorf("want true or false")
		}
		return strconv.FormatBool(b), nil
	}
	return v, nil
}

// given reports whether the caller set parameter name.
func (a Args) given(name string) bool {
	_, ok := a[name]
	return ok
}

// str is parameter name's value, or its default.
func (a Args) str(name string) string {
	if v, ok := a[name]; ok {
		return v
	}
	p, _ := paramOf(name)
	return p.Default
}

// int is an Int parameter's value.
func (a Args) int(name string) (int, error) {
	v := a.str(name)
	n, err := strconv.ParseInt(v, 0, strconv.IntSize)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: want an integer", name, v)
	}
	return int(n), nil
}

// float is a Float or given OptFloat parameter's value.
func (a Args) float(name string) (float64, error) {
	v := a.str(name)
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("--%s %q: want a number", name, v)
	}
	return f, nil
}

// bool is a Bool parameter's value.
func (a Args) bool(name string) (bool, error) {
	v := a.str(name)
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("--%s %q: %v", name, v, err)
	}
	return b, nil
}
