package layout

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/config"
)

// Where a target's chart and values come from when the folders alone do
// not say it (repotool.yaml's namespaces.<ns>.chart and values lists), and
// the values files directly in a cluster folder, which every target of the
// cluster reads.

// isValuesSchema reports whether a file name is a chart's values schema,
// which a values pattern may match but is never values.
func isValuesSchema(name string) bool {
	switch name {
	case "values.schema.json", "values.schema.yaml", "values.schema.yml":
		return true
	}
	return false
}

// sharedChart loads the chart repotool.yaml names for namespace ns
// (namespaces.<ns>.chart), once per chart folder however many namespaces
// share it; nil, with a diagnostic at the setting, when it cannot be.
func (l *loader) sharedChart(ns string) *Chart {
	at := l.repo.Config.Namespaces[ns].Chart
	if c, ok := l.shared[at.Path]; ok {
		return c
	}
	line := yamlpos.Line(l.cfgNode, at.Line, "namespaces", ns, "chart")
	var chart *Chart
	defer func() { l.shared[at.Path] = chart }()
	real, err := resolve(l.fsys, path.Join(at.Path, "Chart.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		d := Diagnostic{Severity: SeverityError, Code: CodeChartMissing, File: l.repo.ConfigFile, Line: line,
			Message: fmt.Sprintf("namespaces.%s.chart names %s, which has no Chart.yaml", ns, at.Path),
			Hint:    "point it at a chart folder (the one holding Chart.yaml), relative to the repository root"}
		l.repo.Diagnostics = append(l.repo.Diagnostics, d)
		l.missing[ns] = d
		return nil
	}
	if err != nil {
		l.linkDiag(path.Join(at.Path, "Chart.yaml"), err)
		return nil
	}
	if err := l.checkTree(at.Path); err != nil {
		l.diag(SeverityError, CodeUnreadable, at.Path, 0, "cannot read the chart folder: "+err.Error(), "check the folder's permissions")
		return nil
	}
	chart = l.loadChart(entry{name: "Chart.yaml", path: path.Join(at.Path, "Chart.yaml"), real: real})
	return chart
}

// configNamespaces adds the namespaces repotool.yaml gives a chart to that
// have no folder under namespaces/ (a shared chart needs none), sorted
// among the others.
func (l *loader) configNamespaces() {
	cfg := &l.repo.Config
	for _, name := range slices.Sorted(maps.Keys(cfg.Namespaces)) {
		if cfg.Namespaces[name].Chart.Path == "" || l.only != nil && name != l.only.Namespace {
			continue
		}
		if _, ok := l.repo.Namespace(name); ok {
			continue
		}
		ns := Namespace{Name: name, Dir: path.Join(cfg.Layout.NamespacesDir, name), Tier: cfg.NamespaceTier(name), Values: []ValueFile{}, Clusters: []string{},
			Chart: l.sharedChart(name)}
		i, _ := slices.BinarySearchFunc(l.repo.Namespaces, name, func(n Namespace, k string) int { return strings.Compare(n.Name, k) })
		l.repo.Namespaces = slices.Insert(l.repo.Namespaces, i, ns)
	}
}

// clusterWide classifies a file directly in a cluster folder: values
// every target of the cluster reads when it matches
// layout.clusterWideValues, else, for a YAML file, a warning that it is
// not read.
func (l *loader) clusterWide(cl *Cluster, f entry) {
	lc := l.repo.Config.Layout
	switch {
	case f.dir:
		return
	case matchAny(lc.ClusterWideValues, f.name) && !isValuesSchema(f.name):
		if !l.gitIgnored(f) {
			cl.Values = append(cl.Values, l.valueFile(f, ScopeClusterWide))
		}
	case isYAML(f.name) && len(lc.ClusterWideValues) == 0:
		l.pending = append(l.pending, Diagnostic{Severity: SeverityWarning, Code: CodeFileUnrecognized, File: f.path,
			Message: "YAML file directly in a cluster folder is not read: no target reads files here unless layout.clusterWideValues names them " +
				"or a values list in " + config.FileName + " lists them",
			Hint: "set layout.clusterWideValues in " + config.FileName + " (for example [\"*values*.yaml\"]) to apply it to every target of the " +
				"cluster, or move it into a target's folder"})
	case isYAML(f.name):
		l.pending = append(l.pending, Diagnostic{Severity: SeverityWarning, Code: CodeFileUnrecognized, File: f.path,
			Message: fmt.Sprintf("YAML file matches no cluster-wide values pattern (%s) and is ignored", strings.Join(lc.ClusterWideValues, ", ")),
			Hint:    "rename it to match layout.clusterWideValues, or move it out of " + cl.Dir + "/"})
	}
}

// listedValues are a target's values files as repotool.yaml lists them,
// in its order: a listed file that does not exist, or cannot be followed,
// is an error of the target. ok is false when repotool.yaml lists none
// for it.
func (l *loader) listedValues(t *Target) (vs []ValueFile, ok bool) {
	cfg := &l.repo.Config
	list, ok, err := cfg.TargetValues(t.Cluster, t.Namespace)
	if err != nil {
		l.targetDiag(t, SeverityError, l.repo.ConfigFile, 0, err.Error(), "")
		return []ValueFile{}, true
	}
	if !ok {
		return nil, false
	}
	vs = []ValueFile{}
	for i, f := range list.Expand(t.Cluster, t.Namespace) {
		scope := ScopeCommon
		if config.PerCluster(list.Files[i].Path) || slices.Contains(strings.Split(path.Dir(f.Path), "/"), t.Cluster) {
			scope = ScopeCluster
		}
		real, err := resolve(l.fsys, f.Path)
		var st fs.FileInfo
		if err == nil {
			st, err = fs.Stat(l.fsys, real)
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			l.targetDiag(t, SeverityError, l.repo.ConfigFile, f.Line, fmt.Sprintf("%s lists %s for target %s, which does not exist", list.Key, f.Path, t.Name()),
				"create the file, or correct or remove it in the list")
			continue
		case err != nil:
			l.linkDiag(f.Path, err)
			continue
		case st.IsDir():
			l.targetDiag(t, SeverityError, f.Path, 0, fmt.Sprintf("%s lists %s for target %s, which is a folder", list.Key, f.Path, t.Name()),
				"list the values files in it, one by one, in merge order")
			continue
		}
		e := entry{name: path.Base(f.Path), path: f.Path, real: real}
		if !l.gitIgnored(e) {
			vs = append(vs, l.valueFile(e, scope))
		}
	}
	return vs, true
}

// targetDiag is a values-list diagnostic that is t's error whatever its
// file.
func (l *loader) targetDiag(t *Target, sev Severity, file string, line int, msg, hint string) {
	l.addTargetDiag(t, Diagnostic{Severity: sev, Code: CodeValuesList, File: file, Line: line, Message: msg, Hint: hint})
}

// targetDiagCode is an error of t with code, whatever its file.
func (l *loader) targetDiagCode(t *Target, code Code, file, msg, hint string) {
	l.addTargetDiag(t, Diagnostic{Severity: SeverityError, Code: code, File: file, Message: msg, Hint: hint})
}

func (l *loader) addTargetDiag(t *Target, d Diagnostic) {
	sev := d.Severity
	l.repo.Diagnostics = append(l.repo.Diagnostics, d)
	if sev == SeverityError {
		t.Errors = append(t.Errors, d)
	}
}

// unread warns of the files that no target reads in the end: common
// values of a namespace whose targets all list their values, cluster-wide
// values of a cluster whose targets do, and the files that were left for
// now (pending: a file in a target's folder its list leaves out, a YAML
// file directly in a cluster folder), which a values list may read.
func (l *loader) unread() {
	read := map[string]bool{}
	for _, t := range l.repo.Targets {
		for _, v := range t.Values {
			read[v.Path] = true
		}
	}
	var found []ValueFile
	for _, ns := range l.repo.Namespaces {
		if len(ns.Clusters) > 0 {
			found = append(found, ns.Values...)
		}
	}
	for _, cl := range l.repo.Clusters {
		if len(cl.Namespaces) > 0 {
			found = append(found, cl.Values...)
		}
	}
	for _, f := range found {
		if !read[f.Path] {
			l.diag(SeverityWarning, CodeFileUnrecognized, f.Path, 0,
				fmt.Sprintf("no target reads this values file: the values lists in %s leave it out", l.repo.ConfigFile),
				"add it to the lists of the targets it is for, where it belongs in the merge order, or remove it")
		}
	}
	for _, d := range l.pending {
		if !read[d.File] {
			l.repo.Diagnostics = append(l.repo.Diagnostics, d)
		}
	}
}

// wouldRead reports whether t would read the values file p had it loaded:
// a file its values list names, or, for a target without one, a
// cluster-wide values file of its cluster. An error about such a file (a
// link that leaves the repository or loops, a file Git ignores under
// --strict) fails the target even though the file is not among its values.
func (l *loader) wouldRead(t *Target, p string) bool {
	cfg := &l.repo.Config
	if t.App != nil {
		return false // its values are its Application's files, which it lists
	}
	if list, ok, _ := cfg.TargetValues(t.Cluster, t.Namespace); ok {
		return slices.ContainsFunc(list.Expand(t.Cluster, t.Namespace), func(f config.PathAt) bool { return f.Path == p })
	}
	cl, ok := l.repo.Cluster(t.Cluster)
	return ok && cl.Dir != "" && path.Dir(p) == cl.Dir && matchAny(cfg.Layout.ClusterWideValues, path.Base(p)) && !isValuesSchema(path.Base(p))
}
