package output

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/values"
)

// CompareFormatter writes how a namespace differs between clusters
// (repotool compare).
type CompareFormatter interface {
	// Name is the format's name as given to -o.
	Name() string
	// Write formats c to w; opts as for the diff formats.
	Write(w io.Writer, c *change.Comparison, opts DiffOptions) error
}

var compareFormatters = []CompareFormatter{compareJSON{}, compareMarkdown{}, compareText{}}

// CompareFormats returns the names of the compare formats, sorted.
func CompareFormats() []string {
	return formatNames(compareFormatters)
}

// NewCompareFormatter returns the compare formatter called name.
func NewCompareFormatter(name string) (CompareFormatter, error) {
	return formatNamed(compareFormatters, name)
}

// sideValue is one cluster's value as the compare formats show it: the
// value in JSON (compact), "(not set)", or the secret marker; never a
// secret value.
func sideValue(s values.Side) string {
	switch {
	case !s.Present:
		return "(not set)"
	case s.Secret:
		return secretMarker(s.Origin.From)
	}
	b, err := json.Marshal(s.Value)
	if err != nil {
		return fmt.Sprint(s.Value)
	}
	return string(b)
}

// sideOrigin is where one cluster's value comes from, or "".
func sideOrigin(s values.Side) string {
	switch {
	case !s.Present, s.Secret:
		return "" // the secret marker names the file
	case s.Origin == nil:
		return "computed by Helm"
	}
	return where(s.Origin.From)
}
