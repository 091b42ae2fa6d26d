package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rotary-go/rotary/golden"
	"github.com/rotary-go/rotary/ops"
)

// applyHelp is apply's -h text: the flags every op takes, then each op's own flags under its
// name (and other stacks' names for it), so that the flags of twelve ops do not read as one
// list. An op's own flags are the parameters it declares (golden.Op.Params).
func applyHelp(fs *flagSet) func() {
	return func() {
		owner := map[string]string{}
		for _, name := range golden.Names() {
			op, _ := golden.Lookup(name)
			for _, p := range op.Params {
				owner[p.Name] = name
			}
		}
		fmt.Fprintf(fs.out, "usage: rotary apply %s\n\nflags of every op:\n", fs.usage)
		printFlags(fs.out, fs.FlagSet, func(n string) bool { return owner[n] == "" })
		aliases := map[string][]string{}
		for alias, canon := range ops.Aliases() {
			aliases[canon] = append(aliases[canon], alias)
		}
		for _, name := range golden.Names() {
			op, _ := golden.Lookup(name)
			title := name
			if a := aliases[name]; len(a) > 0 {
				sort.Strings(a)
				title += " (" + strings.Join(a, ", ") + ")"
			}
			fmt.Fprintf(fs.out, "\n--op %s: %s\n", title, op.Summary)
			var own []string
			for n, o := range owner {
				if o == name {
					own = append(own, n)
				}
			}
			if len(own) == 0 {
				fmt.Fprintln(fs.out, "  no flags of its own")
				continue
			}
			printFlags(fs.out, fs.FlagSet, func(n string) bool { return slices.Contains(own, n) })
		}
	}
}
