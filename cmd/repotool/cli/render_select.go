package cli

import (
	"errors"
	"fmt"

	"github.com/repotool/repotool/pkg/layout"
)

// selection is what --cluster/--namespace/--all select: the targets, and
// the layout's errors outside any target in what was selected (a cluster
// folder replaced by a file, for --all), which fail the run too.
type selection struct {
	targets []layout.Target
	outside error
}

// selectTargets applies --cluster/--namespace/--all.
func selectTargets(repo *layout.Repo, f *renderFlags) (selection, error) {
	switch {
	case f.all && (f.cluster != "" || f.namespace != ""):
		return selection{}, errors.New("--all renders every target: do not combine it with --cluster or --namespace")
	case f.all:
		return selection{repo.Targets, repo.ErrorsOutside("")}, nil
	case f.cluster == "":
		return selection{}, errors.New("say what to render: --cluster C [--namespace N], or --all")
	case f.namespace != "":
		t, ok := repo.Target(f.cluster, f.namespace)
		if !ok {
			return selection{}, notFound(repo, fmt.Sprintf("no target %s/%s: run `repotool layout` to list the targets", f.cluster, f.namespace))
		}
		return selection{targets: []layout.Target{*t}}, nil
	}
	cl, ok := repo.Cluster(f.cluster)
	if !ok {
		return selection{}, notFound(repo, fmt.Sprintf("no cluster %q: run `repotool layout` to list the clusters", f.cluster))
	}
	var out []layout.Target
	for _, ns := range cl.Namespaces {
		t, _ := repo.Target(cl.Name, ns)
		out = append(out, *t)
	}
	return selection{out, repo.ErrorsOutside(cl.Dir)}, nil
}

// notFound is the error for a target or cluster that is not in the
// layout, with the layout's errors outside any target, which may be why.
func notFound(repo *layout.Repo, msg string) error {
	if err := repo.ErrorsOutside(""); err != nil {
		return fmt.Errorf("%s; %w", msg, err)
	}
	return errors.New(msg)
}
