package output

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/layout"
)

// LayoutFormatter writes a repository inventory.
type LayoutFormatter interface {
	// Name is the format's name as given to -o.
	Name() string
	// Write formats repo to w.
	Write(w io.Writer, repo *layout.Repo) error
}

var layoutFormatters = []LayoutFormatter{layoutJSON{}, layoutText{}}

// LayoutFormats returns the names of the layout formats, sorted.
func LayoutFormats() []string {
	names := make([]string, 0, len(layoutFormatters))
	for _, f := range layoutFormatters {
		names = append(names, f.Name())
	}
	slices.Sort(names)
	return names
}

// NewLayoutFormatter returns the layout formatter called name.
func NewLayoutFormatter(name string) (LayoutFormatter, error) {
	for _, f := range layoutFormatters {
		if f.Name() == name {
			return f, nil
		}
	}
	return nil, fmt.Errorf("unknown output format %q: use one of %s", name, strings.Join(LayoutFormats(), ", "))
}
