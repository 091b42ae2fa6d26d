// Command rotary applies, caches, inspects and diffs rotary position embeddings from a model's
// config.json or an embedded preset. See the README for the commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/rotary-go/rotary/internal/fileio"
	"github.com/rotary-go/rotary/internal/textdist"
)

// Exit codes: the command-line contract every command keeps.
const (
	exitOK       = 0
	exitProblems = 1 // a check or diff found problems
	exitUsage    = 2 // bad usage or bad input
)

// usageError marks errors that are the caller's: bad flags, bad files, bad tensors.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errProblems means the command ran and found problems (exit 1); it has printed them.
var errProblems = errors.New("problems found")

type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{
	"apply":     {"rotate query and key from a safetensors file", runApply},
	"cache":     {"write the cos/sin cache and inv_freq of a model", runCache},
	"inspect":   {"show the RoPE a config or preset derives", runInspect},
	"diff":      {"compare the tensors of two files (safetensors, .npy directories, raw buffers)", runDiff},
	"verify":    {"compare a candidate's outputs with a golden bundle's and locate the worst elements", runVerify},
	"show":      {"list the tensors of a file: dtypes, shapes, ranges, NaN/Inf counts, metadata", runShow},
	"presets":   {"list the embedded model presets", runPresets},
	"ops":       {"show the op registry: ops, backends, what serves each", runOps},
	"check":     {"check a model config and launch options for contract mistakes", runCheck},
	"bench":     {"benchmark the ops against the memory traffic they must do, and a copy", runBench},
	"golden":    {"write a golden bundle: an op's seeded inputs and its expected outputs", runGolden},
	"version":   {"print the module version and VCS revision of this binary", runVersion},
	"positions": {"compute multimodal MRoPE positions (get_rope_index of the Qwen-VL, Qwen3.5, GLM-4V, Omni, ERNIE-4.5-VL and HunYuan-VL families)", runPositions},
}

func main() {
	removeTempsOnSignal()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// removeTempsOnSignal makes the signals that end the tool (exitSignals) remove the
// temporary file of an --out being written, then exit with the code the shell would show
// for that signal. Where --out is written unnamed (Linux's O_TMPFILE) there is none, but
// elsewhere dying at once would leave .NAME.tmpNNN beside --out.
func removeTempsOnSignal() {
	c := make(chan os.Signal, 1)
	for sig := range exitSignals {
		signal.Notify(c, sig)
	}
	go func() {
		sig := <-c
		fileio.RemoveTemps()
		os.Exit(exitSignals[sig])
	}()
}

// run executes one command line and returns the exit code. A panic is a bug, but it still ends
// in one line and exit 2, never a trace.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "rotary: internal error: %v\n", r)
			code = exitUsage
		}
	}()
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	if isHelp(args[0]) || args[0] == "help" && (len(args) == 1 || isHelp(args[1])) {
		printUsage(stdout) // asked for: the answer, not an error
		return exitOK
	}
	if args[0] == "help" { // rotary help CMD is rotary CMD -h
		args = []string{args[1], "-h"}
	}
	if args[0] == "--version" || args[0] == "-version" {
		args[0] = "version"
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rotary: unknown command %q (want one of %s)\n", args[0], strings.Join(commandNames(), ", "))
		return exitUsage
	}
	err := cmd.run(args[1:], stdout, commandStderr{stderr, stdout})
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errProblems):
		return exitProblems
	}
	fmt.Fprintf(stderr, "rotary %s: %s\n", args[0], oneLine(err.Error()))
	return exitUsage
}

func oneLine(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ") }

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: rotary <command> [flags]")
	fmt.Fprintln(w)
	width := 0
	for _, n := range commandNames() {
		width = max(width, len(n))
	}
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-*s %s\n", width, n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'rotary <command> -h' for a command's flags.")
}

func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "-help" }

// commandStderr is the stderr run hands a command: it writes to stderr and carries stdout,
// where newFlags prints -h. Every command gets its help on stdout this way without taking
// stdout into each flag set.
type commandStderr struct {
	io.Writer
	stdout io.Writer
}

// helpWriter is where a command prints its -h text: stdout when run called it.
func helpWriter(stderr io.Writer) io.Writer {
	if c, ok := stderr.(commandStderr); ok {
		return c.stdout
	}
	return stderr
}

// flagSet is a command's flag set plus its -h text.
type flagSet struct {
	*flag.FlagSet
	// help prints the -h text to out (stdout: asking for help is no error).
	help func()
	out  io.Writer
	// usage is the command line after "rotary NAME".
	usage string
}

// newFlags makes a flag set that reports errors instead of exiting or printing: a bad flag is
// one line on stderr, from run. -h prints the usage line and every flag to stdout.
func newFlags(name, usage string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	f := &flagSet{FlagSet: fs, out: helpWriter(stderr), usage: usage}
	f.help = func() {
		fmt.Fprintf(f.out, "usage: rotary %s %s\n", name, usage)
		printFlags(f.out, fs, nil)
	}
	return f
}

// printFlags prints the defaults of fs's flags that keep accepts (nil: all), as
// flag.PrintDefaults does, with the defaults they were registered with.
func printFlags(w io.Writer, fs *flag.FlagSet, keep func(name string) bool) {
	sub := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	fs.VisitAll(func(f *flag.Flag) {
		if keep == nil || keep(f.Name) {
			sub.Var(f.Value, f.Name, f.Usage)
			sub.Lookup(f.Name).DefValue = f.DefValue // the value may already be parsed
		}
	})
	sub.SetOutput(w)
	sub.PrintDefaults()
}

// parseFlags parses args, turning flag errors into usage errors and -h into the usage text.
func parseFlags(fs *flagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.help()
			return err
		}
		return usagef("%v%s", err, flagHint(fs, err))
	}
	return nil
}

// flagHint says what a flag error's author probably meant: the closest defined flag for an
// unknown one, a duration's form for a bad --time.
func flagHint(fs *flagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if c := textdist.Closest(strings.TrimPrefix(name, "-"), names); c != "" {
			return fmt.Sprintf(" (did you mean --%s?)", c)
		}
		return ""
	}
	// flag's message for a bad value: invalid value "5" for flag -time: parse error.
	if _, rest, ok := strings.Cut(msg, " for flag -"); ok {
		name, _, _ := strings.Cut(rest, ":")
		if f := fs.Lookup(name); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isDuration := g.Get().(time.Duration); isDuration {
					return " (want a duration with its unit, such as 300ms or 2s)"
				}
			}
		}
	}
	return ""
}
