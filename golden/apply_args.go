package golden

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rotary-go/rotary/hf"
)

// IsBundle reports whether metadata is a golden bundle's: it records apply_args, the model and
// its config's hash (config_sha256).
func IsBundle(metadata map[string]string) bool {
	return metadata["apply_args"] != "" && metadata["model"] != "" && metadata["config_sha256"] != ""
}

// AppliedFlag is one flag of a bundle's apply_args.
type AppliedFlag struct {
	Name, Value string
	// Text is the flag as recorded: "--name value", "--name=value", or "--name" for a boolean
	// flag without a value.
	Text string
}

// ReadApplyArgs reads a bundle's apply_args, the JSON list of flags Make records (each
// "--name value", a boolean one "--name=value"), into its flags in order. isBool reports
// whether flag name is boolean: one written without "=value" is then true and takes no value
// after it (nil: no flag is; Make writes every boolean with its value). On a malformed flag,
// the flags before it are returned with the error, so that a reader acting on each in turn
// stops where a command line's parse would.
func ReadApplyArgs(applyArgs string, isBool func(name string) bool) ([]AppliedFlag, error) {
	if applyArgs == "" {
		return nil, fmt.Errorf("the golden has no apply_args (rotary golden writes them) to rebuild its RoPE from")
	}
	var args []string
	if err := json.Unmarshal([]byte(applyArgs), &args); err != nil {
		return nil, fmt.Errorf("the golden's apply_args are not a JSON list of strings: %v", err)
	}
	var flags []AppliedFlag
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") {
			return flags, fmt.Errorf("the golden's apply_args: %q is not a flag", arg)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch {
		case hasValue:
		case isBool != nil && isBool(name):
			value = "true"
		case i+1 == len(args):
			return flags, fmt.Errorf("the golden's apply_args: --%s has no value", name)
		default:
			i++
			value = args[i]
			arg += " " + value
		}
		flags = append(flags, AppliedFlag{Name: name, Value: value, Text: arg})
	}
	return flags, nil
}

// ApplyArg is the value of flag --name in a bundle's apply_args (the last, if given twice);
// "" when it is absent or apply_args do not read (ReadApplyArgs, no flag boolean).
func ApplyArg(applyArgs, name string) string {
	flags, err := ReadApplyArgs(applyArgs, nil)
	if err != nil {
		return ""
	}
	v := ""
	for _, f := range flags {
		if f.Name == name {
			v = f.Value
		}
	}
	return v
}

// ReadModelArgs reads the model flags of a bundle's apply_args (ModelArgs) as `rotary apply
// --in BUNDLE` takes them. The op's flags (--op, its parameters, --backend, --custom-ops) are
// skipped; any other flag is an error, as apply refuses it: it may change the model in a way
// no ModelArgs say.
func ReadModelArgs(applyArgs string) (ModelArgs, error) {
	flags, err := ReadApplyArgs(applyArgs, func(name string) bool {
		p, ok := paramOf(name)
		return name == "strict" || ok && p.Kind == Bool
	})
	if err != nil {
		return ModelArgs{}, err
	}
	var a ModelArgs
	for _, f := range flags {
		if err := a.set(f.Name, f.Value); err != nil {
			return ModelArgs{}, fmt.Errorf("the golden's apply_args: %w", err)
		}
	}
	return a, nil
}

// set sets the model flag name to value; the op's flags leave a unchanged.
func (a *ModelArgs) set(name, value string) error {
	words := map[string]*string{"config": &a.Config, "model": &a.Preset, "as": &a.As, "style": &a.Style,
		"rope": &a.RoPE, "dynamic": &a.Dynamic, "longrope-factor": &a.LongRoPEFactor}
	_, isParam := paramOf(name)
	switch {
	case name == "rope" && value == "": // "" is ModelArgs' default, not a word --rope takes
		return &hf.ChoiceError{Arg: "--rope", Value: value, Choices: []string{"main", "indexer"}}
	case words[name] != nil:
		*words[name] = value
	case name == "layer":
		n, err := strconv.ParseInt(value, 0, strconv.IntSize)
		if err != nil {
			return fmt.Errorf("--layer %q: want an integer", value)
		}
		a.Layer = int(n)
	case name == "strict":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("--strict=%s: want true or false", value)
		}
		a.Strict = b
	case !isParam && name != "op" && name != "backend" && name != "custom-ops":
		return fmt.Errorf("flag --%s is not one this rotary takes", name)
	}
	return nil
}
