package output

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/repotool/repotool/pkg/layout"
)

// layoutText writes the inventory for people: each target with its values
// files in merge order, then the diagnostics.
type layoutText struct{}

func (layoutText) Name() string { return "text" }

// Write writes through a buffer: the inventory of 20,000 targets is some
// 100,000 lines, each a write of its own to an unbuffered standard output.
func (layoutText) Write(w io.Writer, repo *layout.Repo) error {
	bw := bufio.NewWriter(w)
	if err := writeLayoutText(bw, repo); err != nil {
		return err
	}
	return bw.Flush()
}

func writeLayoutText(w io.Writer, repo *layout.Repo) error {
	ew := &errWriter{w: w}
	ew.printf("%d clusters, %d namespaces, %d targets\n", len(repo.Clusters), len(repo.Namespaces), len(repo.Targets))
	for _, t := range repo.Targets {
		if t.App != nil {
			from := "Application"
			if t.App.FromSet {
				from = "Application from the ApplicationSet"
			}
			ew.printf("\n%s (%s at %s:%d, namespace %s, %s tier, Kubernetes %s, chart %s)\n", t.Name(), from, t.App.File, t.App.Line, t.Namespace, t.Tier,
				t.KubeVersion, cmp.Or(t.ChartDir, "none"))
		} else {
			ew.printf("\n%s (%s tier, Kubernetes %s, chart %s)\n", t.Name(), t.Tier, t.KubeVersion, t.ChartDir)
		}
		if n := len(t.Errors); n > 0 {
			ew.printf("  FAILS: %s below; every command fails this target until they are fixed\n", count(n, "layout error"))
		}
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for i, v := range t.Values {
			kind := "plain"
			if v.Secret {
				kind = "secret"
			}
			fmt.Fprintf(tw, "  %d.\t%s\t%s\t%s\n", i+1, v.Path, v.Scope, kind)
		}
		if len(t.Values) == 0 {
			fmt.Fprintf(tw, "  (no values files: chart defaults only)\n")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(repo.Diagnostics) == 0 {
		ew.printf("\nno problems found\n")
		return ew.err
	}
	errs, warns := 0, 0
	ew.printf("\n")
	for _, d := range repo.Diagnostics {
		if d.Severity == layout.SeverityError {
			errs++
		} else {
			warns++
		}
		ew.printf("%s\n", d)
		if d.Hint != "" {
			ew.printf("    fix: %s\n", d.Hint)
		}
	}
	ew.printf("\n%s, %s\n", count(errs, "error"), count(warns, "warning"))
	return ew.err
}

// errWriter remembers the first write error so formatters can check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}
