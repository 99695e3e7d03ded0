package output

import (
	"fmt"
	"slices"
	"strings"
)

// named is a formatter: each family's formatters have a name, as given to
// -o.
type named interface{ Name() string }

// formatNames returns the names of a family's formatters, sorted.
func formatNames[F named](fs []F) []string {
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		names = append(names, f.Name())
	}
	slices.Sort(names)
	return names
}

// formatNamed returns the formatter of a family called name.
func formatNamed[F named](fs []F, name string) (F, error) {
	for _, f := range fs {
		if f.Name() == name {
			return f, nil
		}
	}
	var zero F
	return zero, fmt.Errorf("unknown output format %q: use one of %s", name, strings.Join(formatNames(fs), ", "))
}
