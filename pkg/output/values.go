package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/values"
)

// ValuesOptions say what a ValuesFormatter writes.
type ValuesOptions struct {
	// Path selects the subtree at this key path (nil: every value).
	Path []string
	// Origin adds where each value comes from.
	Origin bool
}

// ValuesFormatter writes a target's effective values.
type ValuesFormatter interface {
	// Name is the format's name as given to -o.
	Name() string
	// Write formats e to w. A value from a secret values file is never
	// written: "(secret: FILE:LINE)" stands in its place.
	Write(w io.Writer, e *values.Effective, opts ValuesOptions) error
}

var valuesFormatters = []ValuesFormatter{valuesJSON{}, valuesYAML{}}

// ValuesFormats returns the names of the values formats, sorted.
func ValuesFormats() []string {
	return formatNames(valuesFormatters)
}

// NewValuesFormatter returns the values formatter called name.
func NewValuesFormatter(name string) (ValuesFormatter, error) {
	return formatNamed(valuesFormatters, name)
}

// selected is the value at opts.Path, as a formatter writes it: maps kept,
// every other value (a leaf) shown, or stood in for when it is secret.
func selected(e *values.Effective, opts ValuesOptions) (any, error) {
	v, ok := e.Get(opts.Path)
	if !ok {
		return nil, missingPath(opts.Path)
	}
	return shown(e, v, opts.Path), nil
}

// missingPath is the error of a path the values do not have.
func missingPath(path []string) error {
	return fmt.Errorf("the target's values have nothing at %s", strings.Join(path, "."))
}

func shown(e *values.Effective, v any, path []string) any {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = shown(e, x, append(path[:len(path):len(path)], k))
		}
		return out
	}
	if o := e.Origin(path); o != nil && o.From.Secret {
		return secretMarker(o.From)
	}
	return v
}

// secretMarker stands in for a value from a secret values file.
func secretMarker(s values.Source) string {
	return fmt.Sprintf("(secret: %s)", where(s))
}

func where(s values.Source) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// describeOrigin says where a value comes from, in one line.
func describeOrigin(o *values.Origin) string {
	if o == nil {
		return "no values file sets it: Helm computes it"
	}
	s := where(o.From)
	if o.ReplacedList {
		s += ", replacing the list before it whole (lists are not merged)"
	}
	if len(o.Overrode) > 0 {
		var over []string
		for _, x := range o.Overrode {
			over = append(over, where(x))
		}
		s += "; over " + strings.Join(over, ", ")
	}
	return s
}
