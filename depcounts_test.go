package repotool_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/golden"
)

// The markers around ARCHITECTURE.md's table of dependency counts, which
// TestDependencyCounts writes.
const (
	depsBegin = "<!-- dependency counts: written by TestDependencyCounts (go test -run TestDependencyCounts -update .) -->\n"
	depsEnd   = "<!-- end of dependency counts -->\n"
)

// TestDependencyCounts keeps ARCHITECTURE.md's table of what each library
// package links true: the packages outside the standard library it
// depends on, transitively (go list's Deps, which depend on go.mod alone,
// not on the Go release), and how many of them are this module's. A
// dependency added or dropped changes the table; -update rewrites it.
func TestDependencyCounts(t *testing.T) {
	std := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(goList(t, "{{.ImportPath}} {{.Standard}}", "-deps", "./pkg/...")), "\n") {
		p, s, _ := strings.Cut(line, " ")
		std[p] = s == "true"
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(goList(t, "{{.ImportPath}}:{{join .Deps \" \"}}", "./pkg/...")), "\n") {
		p, deps, _ := strings.Cut(line, ":")
		if strings.Contains(p, "/internal/") {
			continue // part of its parent's row
		}
		var all, own int
		for _, d := range strings.Fields(deps) {
			if std[d] {
				continue
			}
			all++
			if strings.HasPrefix(d, module) {
				own++
			}
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %d | %d |\n", strings.TrimPrefix(p, module), all, own))
	}
	slices.Sort(rows)
	table := "| package | packages it links outside the standard library | of them this module's |\n|---|--:|--:|\n" + strings.Join(rows, "")
	data, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(data), depsBegin)
	_, after, ok2 := strings.Cut(rest, depsEnd)
	if !ok || !ok2 {
		t.Fatalf("ARCHITECTURE.md has no table between %q and %q", depsBegin, depsEnd)
	}
	golden.Check(t, "ARCHITECTURE.md", []byte(before+depsBegin+table+depsEnd+after))
}
