package render

import (
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/layout"
)

// ValueConflict is a value whose kind differs from the chart's default at
// the same key: a table where the chart has a single value, or the
// reverse. Helm keeps the values file's value and warns ("skipped value for
// app.replicas: Not a table") through Go's global logger, where nobody sees
// it; repotool reports it instead (Result.Conflicts), and keeps Helm quiet.
type ValueConflict struct {
	// Key is the dotted path in the chart's values ("replicas",
	// "redis.auth"), subchart keys under the subchart's name.
	Key string
	// File and Line locate the value in the last values file that sets it
	// (the one that wins); Line is 0 when it cannot be found.
	File string
	Line int
	// Table is true when the values file gives a table where the chart's
	// default is a single value, false for the reverse.
	Table bool
}

func (c ValueConflict) String() string {
	if c.Table {
		return fmt.Sprintf("%s: a table, where the chart's default is a single value", c.Key)
	}
	return fmt.Sprintf("%s: a single value, where the chart's default is a table", c.Key)
}

// valueConflicts finds where vals (the merged values files) and the chart's
// default values disagree on table or not, the cases Helm's coalescing
// warns about. With neutralize, it sets those chart defaults to null in c
// (which must be a copy): that changes nothing in the output (Helm keeps
// the values file's value either way) but keeps Helm from printing.
func valueConflicts(c *chart.Chart, vals map[string]any, neutralize bool) []ValueConflict {
	var out []ValueConflict
	var walk func(c *chart.Chart, defaults, user map[string]any, prefix []string)
	walk = func(c *chart.Chart, defaults, user map[string]any, prefix []string) {
		for _, key := range sortedKeys(defaults) {
			def, u := defaults[key], user[key]
			if def == nil || u == nil {
				continue
			}
			dm, dTable := def.(map[string]any)
			um, uTable := u.(map[string]any)
			switch {
			case dTable && uTable:
				walk(nil, dm, um, append(prefix, key))
			case dTable != uTable:
				out = append(out, ValueConflict{Key: strings.Join(append(slices.Clone(prefix), key), "."), Table: uTable})
				if neutralize {
					defaults[key] = nil
				}
			}
		}
		if c == nil {
			return
		}
		for _, sub := range c.Dependencies() {
			if um, ok := user[sub.Name()].(map[string]any); ok {
				walk(sub, sub.Values, um, append(prefix, sub.Name()))
			}
		}
	}
	walk(c, c.Values, vals, nil)
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// locateConflicts finds, for each conflict, the last values file of t that
// sets its key, and the line.
func (r *Renderer) locateConflicts(t *layout.Target, conflicts []ValueConflict) {
	if len(conflicts) == 0 {
		return
	}
	docs := make([]*yaml.Node, len(t.Values))
	for i, vf := range t.Values {
		// The file index's parse, which layout made: values() read the
		// file within the limits already.
		if d, err := r.files.Get(vf.Path).ValuesNode(r.helm4()); err == nil {
			docs[i] = d
		}
	}
	for ci := range conflicts {
		keys := strings.Split(conflicts[ci].Key, ".")
		for i := len(t.Values) - 1; i >= 0; i-- {
			if docs[i] == nil {
				continue
			}
			if line := yamlpos.Line(docs[i], 0, keys...); line > 0 {
				conflicts[ci].File, conflicts[ci].Line = t.Values[i].Path, line
				break
			}
		}
	}
}
