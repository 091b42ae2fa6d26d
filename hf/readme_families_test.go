package hf

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeListsEveryFamily: every model_type hf reads appears in the README's family tables;
// a text sub-config (…_text) or an Omni talker is listed through its family.
func TestReadmeListsEveryFamily(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := func(k string) bool {
		return regexp.MustCompile(`(^|[^a-z0-9_])` + regexp.QuoteMeta(k) + `($|[^a-z0-9_])`).Match(b)
	}
	for _, k := range KnownModelTypes() {
		family := k
		for _, suffix := range []string{"_talker_text", "_talker", "_text"} {
			if !listed(family) {
				family = strings.TrimSuffix(family, suffix)
			}
		}
		if !listed(family) {
			t.Errorf("model_type %s: not in the README's family tables", k)
		}
	}
}
