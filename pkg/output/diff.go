package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/change"
)

// DiffFormatter writes a comparison of two revisions (repotool diff).
type DiffFormatter interface {
	// Name is the format's name as given to -o.
	Name() string
	// Write formats res to w.
	Write(w io.Writer, res *change.Result, opts DiffOptions) error
}

// DiffOptions configure the diff formats.
type DiffOptions struct {
	// Color colours text output (for a terminal).
	Color bool
	// PartSize is the most bytes one markdown part holds (0:
	// MaxCommentSize).
	PartSize int
	// FullOutput says where the whole diff can be read, for the notice
	// of a markdown diff that is cut (default: the output of `repotool
	// diff -o text`). Markdown.
	FullOutput string
}

var diffFormatters = []DiffFormatter{diffJSON{}, diffMarkdown{}, diffText{}}

// DiffFormats returns the names of the diff formats, sorted.
func DiffFormats() []string {
	return formatNames(diffFormatters)
}

// NewDiffFormatter returns the diff formatter called name.
func NewDiffFormatter(name string) (DiffFormatter, error) {
	return formatNamed(diffFormatters, name)
}

// hiddenSummary says how many changes the ignore rules hid, and which:
// nothing disappears silently.
func hiddenSummary(hidden []change.Hidden) string {
	var each []string
	for _, h := range hidden {
		each = append(each, fmt.Sprintf("%s %s (%s)", h.Target, h.Object, h.Reason))
	}
	return fmt.Sprintf("%s hidden by ignore rules (--no-ignore shows them): %s", count(len(hidden), "change"), strings.Join(each, "; "))
}
