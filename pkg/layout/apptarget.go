package layout

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/config"
)

// appTarget is the target of the Application a in cluster: its chart,
// values and what its helm source adds. What repotool cannot follow is an
// error of the target, so that every command fails it.
func (l *loader) appTarget(a appDoc, cluster string) (t Target) {
	cl := l.appClusterModel(cluster)
	t = Target{
		Cluster:     cluster,
		Namespace:   a.Spec.Destination.Namespace,
		KubeVersion: cl.KubeVersion,
		APIVersions: cl.APIVersions,
		App:         &App{Name: a.meta.Name, File: a.file, Line: a.line, ReleaseName: a.meta.Name, Digest: a.digest(), FromSet: a.fromSet, SetInputs: a.setInputs},
		Values:      []ValueFile{},
	}
	t.App.Doc = a.encode()
	fail := func(code Code, line int, msg, hint string) {
		d := Diagnostic{Severity: SeverityError, Code: code, File: a.file, Line: line, Message: fmt.Sprintf("Application %q: %s", a.meta.Name, msg), Hint: hint}
		l.repo.Diagnostics = append(l.repo.Diagnostics, d)
		t.Errors = append(t.Errors, d)
	}
	defer func() {
		t.Namespace = cmp.Or(t.Namespace, "default") // helm's, when Argo CD passes none
		t.Tier = l.repo.Config.NamespaceTier(t.Namespace)
		t.Dir = t.ChartDir // Cluster.Namespaces are the folders' targets' (generate's): not an Application's
	}()
	if msg, line := a.unsupported(); msg != "" {
		fail(CodeApplicationUnsupported, line, msg, "check it another way for now, or leave its file out of applications.paths")
		return t
	}
	if a.Spec.Source == nil {
		fail(CodeApplicationInvalid, a.line, "the Application has no source that renders (spec.source, or a spec.sources entry with a path)",
			"give it the source it deploys")
		return t
	}
	src := a.Spec.Source
	if msg := l.ownRepo(src.RepoURL); msg != "" {
		fail(CodeApplicationUnsupported, yamlpos.Line(a.sourceNode, a.line, "repoURL"), msg,
			fmt.Sprintf("set git.repoURL in %s to this repository's URL as Argo CD clones it", config.FileName))
		return t
	}
	if t.ChartDir = chartDir(src.Path); t.ChartDir == "" {
		fail(CodeApplicationInvalid, yamlpos.Line(a.sourceNode, a.line, "path"), fmt.Sprintf("spec.source.path %q leaves the repository", src.Path),
			"give a folder inside the repository")
		return t
	}
	if msg := l.sourceKind(t.ChartDir, a.meta.Name); msg != "" {
		fail(CodeApplicationUnsupported, yamlpos.Line(a.sourceNode, a.line, "path"), msg, "check it another way for now, or leave its file out of applications.paths")
		return t
	}
	if h := src.Helm; h != nil {
		env := appEnv(a, t.Namespace)
		if msg, line := l.appHelm(&t, a, h, env); msg != "" {
			fail(CodeApplicationInvalid, line, msg, "fix the Application's spec.source.helm")
		}
	}
	return t
}

// appHelm fills in what the Application's helm settings add to t; a
// message and its line when one cannot be followed.
func (l *loader) appHelm(t *Target, a appDoc, h *appHelm, env func(string) (string, bool)) (string, int) {
	helmLine := func(key string) int { return yamlpos.Line(a.sourceNode, a.line, "helm", key) }
	if h.Version != "" && h.Version != "v3" {
		return fmt.Sprintf("helm.version %q: Argo CD 3 renders with Helm v3", h.Version), helmLine("version")
	}
	app := t.App
	app.ReleaseName = cmp.Or(h.ReleaseName, app.ReleaseName)
	t.Namespace = cmp.Or(h.Namespace, t.Namespace)
	t.KubeVersion = cmp.Or(h.KubeVersion, t.KubeVersion)
	if len(h.APIVersions) > 0 {
		t.APIVersions = h.APIVersions
	}
	app.SkipCRDs, app.SkipSchemaValidation, app.SkipTests = h.SkipCrds, h.SkipSchemaValidation, h.SkipTests
	vals, err := h.values()
	if err != nil {
		return "helm.valuesObject: " + err.Error(), helmLine("valuesObject")
	}
	app.Values, app.ValuesLine = vals, h.valuesLine()
	params, _ := yamlpos.Lookup(a.sourceNode, "helm", "parameters")
	for i, p := range h.Parameters {
		line := helmLine("parameters")
		if params != nil && i < len(params.Content) {
			line = params.Content[i].Line
		}
		v, ok := env(p.Value)
		if !ok {
			return fmt.Sprintf("helm.parameters %s: its value names the revision, which repotool does not fill in yet", p.Name), line
		}
		app.Parameters = append(app.Parameters, Parameter{Name: p.Name, Value: v, ForceString: p.ForceString, Line: line})
	}
	files, globs, raw, msg := l.appValueFiles(t.ChartDir, h, a.refs, env)
	if msg != "" {
		return fmt.Sprintf("helm.valueFiles %q: %s", raw, msg), helmLine("valueFiles")
	}
	t.Values, app.ValueGlobs = files, globs
	return l.appFileParameters(t, a, h, env)
}

// appFileParameters resolves helm.fileParameters as the repo-server does
// (each path as a valueFiles entry, but no glob and no secrets://): each
// a file of the repository, which helm reads whole as a string.
func (l *loader) appFileParameters(t *Target, a appDoc, h *appHelm, env func(string) (string, bool)) (string, int) {
	nodes, _ := yamlpos.Lookup(a.sourceNode, "helm", "fileParameters")
	for i, fp := range h.FileParameters {
		line := yamlpos.Line(a.sourceNode, a.line, "helm", "fileParameters")
		if nodes != nil && i < len(nodes.Content) {
			line = nodes.Content[i].Line
		}
		vp, msg := l.valuePath(t.ChartDir, fp.Path, a.refs, env)
		switch {
		case msg != "":
		case vp.secret:
			msg = "helm-secrets' secrets:// is for valueFiles: helm reads a --set-file as it is"
		case isGlob(vp.path):
			msg = "a glob: helm reads one file"
		case l.ignored != nil && l.ignored(vp.path):
			msg = "Git ignores the file: Argo CD never sees it"
		default:
			if _, err := resolve(l.fsys, vp.path); err != nil {
				msg = "cannot be read: " + err.Error()
			}
		}
		if msg != "" {
			return fmt.Sprintf("helm.fileParameters %s (%q): %s", fp.Name, fp.Path, msg), line
		}
		t.App.FileParameters = append(t.App.FileParameters, FileParameter{Name: fp.Name, Path: vp.path, Line: line})
	}
	return "", 0
}

// sourceKind is why the source folder dir is not a chart repotool renders:
// Argo CD would render it as a kustomization or plain manifests, or
// override its parameters from a file in it; "" for a chart.
func (l *loader) sourceKind(dir, app string) string {
	exists := func(name string) bool { _, err := fs.Stat(l.fsys, path.Join(dir, name)); return err == nil }
	for _, f := range []string{".argocd-source.yaml", ".argocd-source-" + app + ".yaml"} {
		if exists(f) {
			return fmt.Sprintf("%s/%s overrides the Application's parameters, which repotool does not follow yet", dir, f)
		}
	}
	switch {
	case exists("Chart.yaml"):
		return ""
	case exists("kustomization.yaml") || exists("kustomization.yml") || exists("Kustomization"):
		return dir + " is a kustomization: repotool does not render kustomize sources yet"
	case exists("."):
		return dir + " has no Chart.yaml: Argo CD renders it as plain manifests, which repotool does not yet"
	}
	return fmt.Sprintf("spec.source.path %s does not exist", dir)
}

// ownRepo says why repoURL is not this repository's (git.repoURL), ""
// when it is.
func (l *loader) ownRepo(repoURL string) string {
	own := l.repo.Config.Git.RepoURL
	switch {
	case own == "":
		return "repotool cannot tell whether its source (" + repoURL + ") is this repository: git.repoURL is not set"
	case normalGitURL(repoURL) != normalGitURL(own):
		return "its source is another repository (" + repoURL + "), which repotool does not read"
	}
	return ""
}

// normalGitURL is a Git URL as Argo CD compares them: without scheme, user,
// ".git" or trailing slash, lower-case.
func normalGitURL(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at, colon := strings.Index(u, "@"), strings.Index(u, ":"); at >= 0 && colon > at {
		u = u[:colon] + "/" + u[colon+1:] // git@host:org/repo
	}
	if at := strings.Index(u, "@"); at >= 0 && at < strings.Index(u+"/", "/") {
		u = u[at+1:]
	}
	return strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
}

// appEnv expands $NAME in an Application's parameter or values file as
// the repo-server does; false when it names what depends on the revision.
func appEnv(a appDoc, namespace string) func(string) (string, bool) {
	vars := map[string]string{
		"ARGOCD_APP_NAME":                   a.meta.Name,
		"ARGOCD_APP_NAMESPACE":              namespace,
		"ARGOCD_APP_SOURCE_REPO_URL":        a.Spec.Source.RepoURL,
		"ARGOCD_APP_SOURCE_PATH":            a.Spec.Source.Path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": a.Spec.Source.TargetRevision,
		"ARGOCD_APP_PROJECT_NAME":           a.Spec.Project,
	}
	return func(s string) (string, bool) {
		ok := true
		out := os.Expand(s, func(k string) string {
			if k == "$" {
				return "$"
			}
			if strings.HasPrefix(k, "ARGOCD_APP_REVISION") {
				ok = false
			}
			return vars[k]
		})
		return out, ok
	}
}
