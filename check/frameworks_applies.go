package check

import (
	"slices"

	"github.com/rotary-go/rotary/hf"
)

// appliesTo says whether rule reads the config data in more than one way: whether the choices
// of it that the reference or any dialect makes give different specs (or one of them no spec).
// A rule a dialect was not verified for can only matter to a config it applies to, so
// FrameworksReport.WriteText lists only those unless Verbose.
func appliesTo(data []byte, opts hf.ParseOptions, rule hf.Rule) bool {
	var choices []string
	for _, d := range append([]hf.Dialect{hf.DialectReference}, hf.Dialects()...) {
		if rd, ok := d.Reading(rule); ok && !slices.Contains(choices, rd.Choice) {
			choices = append(choices, rd.Choice)
		}
	}
	first := ""
	for i, choice := range choices {
		_, key, err := parseReading(data, opts, rule, choice)
		if err != nil {
			key = "error: " + err.Error()
		}
		if i == 0 {
			first = key
		} else if key != first {
			return true
		}
	}
	return false
}
