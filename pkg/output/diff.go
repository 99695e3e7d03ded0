package output

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/values"
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

// provenance says where a changed field's value comes from, quoting
// names with q (code spans in markdown): "FIELD <- KEY at FILE:LINE (base:
// FILE:LINE)", base being the base side's name; a removed key "KEY,
// removed (it was set at FILE:LINE)"; a secret value by its file only.
func provenance(p change.Provenance, base string, q func(string) string) string {
	at := func(s *values.Source) string {
		if s.Line > 0 {
			return q(fmt.Sprintf("%s:%d", s.File, s.Line))
		}
		return q(s.File)
	}
	switch {
	case p.Key == "" && p.Head != nil:
		return fmt.Sprintf("%s <- a secret value of %s (not shown)", q(p.Field), at(p.Head))
	case p.Head == nil && p.Base != nil:
		return fmt.Sprintf("%s <- %s, removed (it was set at %s)", q(p.Field), q(p.Key), at(p.Base))
	case p.Head == nil:
		return fmt.Sprintf("%s <- %s", q(p.Field), q(p.Key))
	}
	s := fmt.Sprintf("%s <- %s at %s", q(p.Field), q(p.Key), at(p.Head))
	if p.Base != nil {
		s += fmt.Sprintf(" (%s: %s)", cmp.Or(base, "base"), at(p.Base))
	}
	return s
}

// shownTargets splits res's targets into those shown (a changed object, a
// target added or removed, a rendering that failed) and the number of
// those that rendered the same at both revisions: they are folded into
// one line.
func shownTargets(res *change.Result) ([]change.Target, int) {
	changed := map[string]bool{}
	for _, c := range res.Changes {
		changed[c.Target] = true
	}
	var shown []change.Target
	for _, t := range res.Targets {
		failed := false
		for _, e := range res.Errors {
			failed = failed || strings.HasPrefix(e, t.Name+" ")
		}
		if changed[t.Name] || t.Added || t.Removed || failed {
			shown = append(shown, t)
		}
	}
	return shown, len(res.Targets) - len(shown)
}

// countsLine is the summary of res: "3 changed objects in 2 targets (8
// more re-rendered, no change), 1 changed Argo CD object".
func countsLine(res *change.Result) string {
	shown, same := shownTargets(res)
	s := fmt.Sprintf("%s in %s", count(len(res.Changes), "changed object"), count(len(shown), "target"))
	if same > 0 {
		s += fmt.Sprintf(" (%d more re-rendered, no change)", same)
	}
	if len(res.ArgoCD) > 0 {
		s += ", " + count(len(res.ArgoCD), "changed Argo CD object")
	}
	return s
}

// clusterTotal is the subtotal of a cluster's changes: "3 changed objects
// in 2 targets (1 added, 2 changed)".
func clusterTotal(changes []change.Change, cluster string) string {
	var mine []change.Change
	targets := map[string]bool{}
	for _, c := range changes {
		if strings.HasPrefix(c.Target, cluster+"/") {
			mine = append(mine, c)
			targets[c.Target] = true
		}
	}
	return fmt.Sprintf("%s in %s (%s)", count(len(mine), "changed object"), count(len(targets), "target"), actionCounts(mine))
}
