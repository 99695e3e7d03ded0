package output

import (
	"io"

	"github.com/repotool/repotool/pkg/layout"
)

// LayoutFormatter writes a repository inventory.
type LayoutFormatter interface {
	// Name is the format's name as given to -o.
	Name() string
	// Write formats repo to w.
	Write(w io.Writer, repo *layout.Repo) error
}

var layoutFormatters = []LayoutFormatter{layoutApplications{}, layoutJSON{}, layoutText{}}

// LayoutFormats returns the names of the layout formats, sorted.
func LayoutFormats() []string {
	return formatNames(layoutFormatters)
}

// NewLayoutFormatter returns the layout formatter called name.
func NewLayoutFormatter(name string) (LayoutFormatter, error) {
	return formatNamed(layoutFormatters, name)
}
