package output

import (
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/change"
)

// compareText writes the differing values, key by key with each
// cluster's value and origin, then the objects as `diff -o text` does.
type compareText struct{}

func (compareText) Name() string { return "text" }

func (compareText) Write(w io.Writer, c *change.Comparison, opts DiffOptions) error {
	ew := &errWriter{w: w}
	p := painter(opts.Color)
	ew.printf("%s\n\n", p.paint(ansiBold, "namespace "+c.Namespace+" on "+strings.Join(c.Clusters, ", ")))
	if len(c.Values) == 0 {
		ew.printf("the values are the same on every cluster\n")
	} else {
		ew.printf("%s\n", p.paint(ansiBold, "values that differ (secret values are compared by presence only):"))
		width := 0
		for _, cl := range c.Clusters {
			width = max(width, len(cl))
		}
		for _, d := range c.Values {
			ew.printf("  %s\n", strings.Join(d.Path, "."))
			for i, s := range d.Sides {
				ew.printf("    %-*s  %s", width+1, c.Clusters[i]+":", sideValue(s))
				if o := sideOrigin(s); o != "" {
					ew.printf("  %s", p.paint(ansiCyan, "("+o+")"))
				}
				ew.printf("\n")
			}
		}
	}
	if ew.err != nil || c.Objects == nil {
		return ew.err
	}
	ew.printf("\n%s\n", p.paint(ansiBold, "rendered objects ("+c.Objects.Base+" -> "+c.Objects.Head+"):"))
	if ew.err != nil {
		return ew.err
	}
	if len(c.Objects.Changes) == 0 && len(c.Objects.Errors) == 0 {
		ew.printf("the same on both clusters\n")
		return ew.err
	}
	return diffText{}.Write(w, c.Objects, opts)
}
