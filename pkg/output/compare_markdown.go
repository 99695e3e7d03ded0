package output

import (
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/change"
)

// compareMarkdown writes the differing values as a table, a column per
// cluster (value, then origin), then the objects as `diff -o markdown`
// does.
type compareMarkdown struct{}

func (compareMarkdown) Name() string { return "markdown" }

func (compareMarkdown) Write(w io.Writer, c *change.Comparison, opts DiffOptions) error {
	ew := &errWriter{w: w}
	ew.printf("### namespace `%s` on %s\n\n", c.Namespace, "`"+strings.Join(c.Clusters, "`, `")+"`")
	if len(c.Values) == 0 {
		ew.printf("The values are the same on every cluster.\n")
	} else {
		ew.printf("Values that differ (secret values are compared by presence only):\n\n| key |")
		for _, cl := range c.Clusters {
			ew.printf(" `%s` |", cl)
		}
		ew.printf("\n|---|%s\n", strings.Repeat("---|", len(c.Clusters)))
		for _, d := range c.Values {
			ew.printf("| `%s` |", strings.Join(d.Path, "."))
			for _, s := range d.Sides {
				cellText := "`" + strings.ReplaceAll(sideValue(s), "`", "'") + "`"
				if o := sideOrigin(s); o != "" {
					cellText += " " + o
				}
				ew.printf(" %s |", strings.ReplaceAll(cellText, "|", "\\|"))
			}
			ew.printf("\n")
		}
	}
	if ew.err != nil || c.Objects == nil {
		return ew.err
	}
	ew.printf("\n")
	if len(c.Objects.Changes) == 0 && len(c.Objects.Errors) == 0 {
		ew.printf("The rendered objects are the same on both clusters.\n")
		return ew.err
	}
	return diffMarkdown{}.Write(w, c.Objects, opts)
}
