package layout

import (
	"cmp"
	"errors"
	"io/fs"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/appset"
)

// expandSet reads the Applications the ApplicationSet n (in the file p,
// read by the Argo CD of the {cluster} folder's cluster, or by a central
// one) makes, as Argo CD's controller would (package appset). What it
// cannot expand is an error at its line, and none of its Applications is
// a target.
func (l *loader) expandSet(p string, n *yaml.Node, folder string) []appDoc {
	env := appset.Env{
		Paths: l.gitPaths,
		Read: func(f string) ([]byte, error) {
			return l.repo.Files.Get(f).Data()
		},
		OwnRepo:  l.ownRepo,
		Clusters: l.setClusters(folder),
	}
	res, err := appset.Expand(l.ctx, n, env)
	var e *appset.Error
	switch {
	case errors.As(err, &e):
		code := CodeApplicationInvalid
		if e.Unsupported {
			code = CodeApplicationUnsupported
		}
		l.diag(SeverityError, code, p, e.Line, "ApplicationSet: "+e.Msg, setHint(e.Unsupported))
		return nil
	case err != nil:
		l.diag(SeverityError, CodeApplicationInvalid, p, n.Line, "ApplicationSet: "+err.Error(), setHint(false))
		return nil
	}
	var out []appDoc
	for _, app := range res.Apps {
		a := appDoc{APIVersion: "argoproj.io/v1alpha1", Kind: "Application", file: p, line: app.Doc.Line, node: app.Doc, fromSet: true, setInputs: app.Inputs}
		if msg, line := a.decode(); msg != "" {
			l.diag(SeverityError, CodeApplicationInvalid, p, line, "an Application the ApplicationSet makes: "+msg,
				"fix the ApplicationSet's template so that it makes Applications as Argo CD's reference describes them")
			continue
		}
		out = append(out, a)
	}
	return out
}

func setHint(unsupported bool) string {
	if unsupported {
		return "check its Applications another way for now, or leave this file out of applications.paths"
	}
	return "fix the ApplicationSet as Argo CD's ApplicationSet reference describes it"
}

// gitPaths are the repository's files that Git carries, as git ls-files
// lists them for the git generator: all but .git's and the git-ignored,
// hidden folders' and node_modules' too (which the file index leaves
// out). One walk a load.
func (l *loader) gitPaths() ([]string, error) {
	if l.gitListing != nil {
		return l.gitListing, nil
	}
	out := []string{}
	err := fs.WalkDir(l.fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.Name() == ".git" && d.IsDir():
			return fs.SkipDir
		case d.Name() == ".git": // a worktree's or submodule's pointer
		case !d.IsDir() && (l.ignored == nil || !l.ignored(p)):
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.gitListing = out
	return out, nil
}

// setClusters are the clusters the Argo CD that reads an ApplicationSet
// has a Secret for: with one Argo CD a cluster (the {cluster} folder's),
// its own cluster when clusters.<c>.labels gives its Secret labels; with
// a central one, every cluster whose destination is not the in-cluster
// server, or that has labels. The clusters generator adds the cluster
// Argo CD runs in, as Argo CD does, when no Secret describes it.
func (l *loader) setClusters(folder string) []appset.Cluster {
	names := l.clusterNames()
	if folder != "" {
		names = []string{folder}
	}
	var out []appset.Cluster
	for _, c := range names {
		cc := l.repo.Config.Clusters[c]
		server, name := cmp.Or(cc.Destination.Server, InClusterServer), cc.Destination.Name
		local := strings.TrimSuffix(server, "/") == InClusterServer
		if local && name == "" {
			name = inClusterName
		}
		if local && len(cc.Labels) == 0 && name == inClusterName {
			continue // the in-cluster one, which the generator adds
		}
		out = append(out, appset.Cluster{Name: name, Server: server, Labels: cc.Labels, Secret: true})
	}
	return out
}
