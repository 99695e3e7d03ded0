package output

import (
	"io"

	"github.com/repotool/repotool/pkg/layout"
)

// layoutApplications writes the Application of each target that is one,
// as Argo CD holds it: the repository's own, and those its ApplicationSets
// make, expanded (what argocd appset generate shows, offline), each
// document headed by its target and where it is written. Folder targets,
// whose Applications generate writes, are left out.
type layoutApplications struct{}

func (layoutApplications) Name() string { return "applications" }

func (layoutApplications) Write(w io.Writer, repo *layout.Repo) error {
	ew := &errWriter{w: w}
	for _, t := range repo.Targets {
		if t.App == nil {
			continue
		}
		from := "Application"
		if t.App.FromSet {
			from = "made by the ApplicationSet"
		}
		ew.printf("---\n# %s: %s at %s:%d\n", t.Name(), from, t.App.File, t.App.Line)
		ew.Write(t.App.Doc) //nolint:errcheck // kept in ew.err
	}
	return ew.err
}
