package layout

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/config"
)

// A layout whose targets are not <clustersDir>/<cluster>/<namespace> names
// their folders with a template (layout.targets, config.TargetTemplate):
// projects/{team}/{namespace}/{cluster}/{env}. The walk below finds every
// folder the template matches; the parts name the target, and the rest of
// the model (namespaces, clusters, values, inputs) is built as for the
// default layout, so that nothing downstream reads folder names.

// helmFolders are the folders of a chart that Helm gives a meaning to:
// below a Chart.yaml, they are never a part of the template.
var helmFolders = map[string]bool{"templates": true, "charts": true, "crds": true}

// match is a folder the template matches, with its parts.
type match struct {
	parts map[string]string
	e     entry
}

func (m match) cluster() string   { return m.parts[config.PartCluster] }
func (m match) namespace() string { return m.parts[config.PartNamespace] }

// loadTemplated loads a repository whose targets the template finds.
func (l *loader) loadTemplated(tpl config.TargetTemplate) error {
	var matches []match
	if err := l.walk(tpl, 0, entry{path: ".", real: ".", dir: true}, map[string]string{}, &matches); err != nil {
		return err
	}
	if first := tpl.Segments[0]; tpl.Part(0) == "" && len(matches) == 0 {
		if _, err := resolve(l.fsys, first); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: it has no %s/ folder, where layout.targets (%s) begins (is this the repository root?)",
				ErrNotRepository, first, strings.Join(tpl.Segments, "/"))
		}
	}
	matches = slices.DeleteFunc(matches, func(m match) bool {
		return l.only != nil && (m.cluster() != l.only.Cluster || m.namespace() != l.only.Namespace)
	})
	if tpl.NamespaceFirst() {
		if err := l.templatedNamespaces(tpl, matches); err != nil {
			return err
		}
	} else {
		entries, err := l.readDir(l.repo.Config.Layout.NamespacesDir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := l.loadNamespaces(entries); err != nil {
			return err
		}
	}
	byCluster := map[string][]match{}
	for _, m := range matches {
		byCluster[m.cluster()] = append(byCluster[m.cluster()], m)
	}
	for _, name := range slices.Sorted(maps.Keys(byCluster)) {
		if err := l.templatedCluster(tpl, name, byCluster[name]); err != nil {
			return err
		}
	}
	l.finish()
	return nil
}

// walk finds the folders below e that the template's segments from i on
// match, and adds them to out with their parts. Hidden folders are not
// parts (.git).
func (l *loader) walk(tpl config.TargetTemplate, i int, e entry, parts map[string]string, out *[]match) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	if i == len(tpl.Segments) {
		*out = append(*out, match{parts: maps.Clone(parts), e: e})
		return nil
	}
	name := tpl.Part(i)
	if name == "" {
		p := path.Join(e.path, tpl.Segments[i])
		real, err := resolve(l.fsys, p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				l.linkDiag(p, err)
			}
			return nil
		}
		if st, err := fs.Stat(l.fsys, real); err != nil || !st.IsDir() {
			return nil
		}
		return l.walk(tpl, i+1, entry{name: tpl.Segments[i], path: p, real: real, dir: true}, parts, out)
	}
	entries, err := l.readDir(e.path)
	if err != nil {
		return err
	}
	// The files of a cluster's or a namespace's folder are read (or
	// reported) as theirs; those of any other folder on the way are not
	// read: say so.
	prev := ""
	if i > 0 {
		prev = tpl.Part(i - 1)
	}
	own := prev == config.PartCluster && !tpl.NamespaceFirst() || prev == config.PartNamespace && tpl.NamespaceFirst()
	chart := slices.ContainsFunc(entries, func(c entry) bool { return c.name == "Chart.yaml" && !c.dir })
	found := len(*out)
	var stray []Diagnostic
	defer func() {
		if len(*out) > found { // only folders on the way to a target are the layout's
			l.pending = append(l.pending, stray...)
		}
	}()
	for _, c := range entries {
		if strings.HasPrefix(c.name, ".") || chart && helmFolders[c.name] {
			continue // Git's folder; a chart's own folders are no part
		}
		if i > 0 && !c.dir && !own && isYAML(c.name) { // the root holds repotool.yaml and the like
			stray = append(stray, Diagnostic{Severity: SeverityWarning, Code: CodeFileUnrecognized, File: c.path,
				Message: fmt.Sprintf("YAML file in a folder layout.targets (%s) passes through is not read: it is no target's, cluster's or namespace's folder",
					strings.Join(tpl.Segments, "/")),
				Hint: "move it into a target's folder, or list it in the values lists of the targets it is for"})
		}
		if name == config.PartCluster || name == config.PartNamespace {
			l.checkFolder(c, name)
		}
		if !c.dir {
			continue
		}
		parts[name] = c.name
		if err := l.walk(tpl, i+1, c, parts, out); err != nil {
			return err
		}
	}
	delete(parts, name)
	return nil
}

// templatedNamespaces loads the namespaces of a template that names them
// before their clusters: a namespace's folder, up to {namespace}, holds
// its chart and common values. One namespace in two folders (two teams'
// "shop") is a target-conflict error at both.
func (l *loader) templatedNamespaces(tpl config.TargetTemplate, matches []match) error {
	n := tpl.Index(config.PartNamespace) + 1
	folders := map[string]entry{}
	for _, m := range matches {
		dir := tpl.Prefix(n, m.parts)
		prev, seen := folders[m.namespace()]
		switch {
		case !seen:
			real, err := resolve(l.fsys, dir)
			if err != nil {
				return err
			}
			folders[m.namespace()] = entry{name: m.namespace(), path: dir, real: real, dir: true}
		case prev.path != dir:
			for _, at := range []string{prev.path, dir} { // both fail: neither is the namespace
				l.diag(SeverityError, CodeTargetConflict, at, 0,
					fmt.Sprintf("namespace %q has two folders, %s and %s: a namespace is one chart and one set of common values", m.namespace(), prev.path, dir),
					"rename one of the folders (a namespace name is unique in each cluster)")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(folders)) {
		ns, err := l.loadNamespace(folders[name])
		if err != nil {
			return err
		}
		l.repo.Namespaces = append(l.repo.Namespaces, ns)
	}
	l.configNamespaces()
	return nil
}

// templatedCluster loads a cluster and the targets the template finds for
// it. The cluster has a folder when the template names it before the
// namespace and every target is below the same one: its cluster-wide
// values are there. Two folders for one target are a target-conflict
// error of the target.
func (l *loader) templatedCluster(tpl config.TargetTemplate, name string, matches []match) error {
	dir := ""
	if !tpl.NamespaceFirst() {
		n := tpl.Index(config.PartCluster) + 1
		dir = tpl.Prefix(n, matches[0].parts)
		if slices.ContainsFunc(matches, func(m match) bool { return tpl.Prefix(n, m.parts) != dir }) {
			dir = ""
		}
	}
	cl := l.newCluster(name, dir)
	l.checkName(entry{name: name, path: cmp.Or(dir, matches[0].e.path)}, "cluster")
	if dir != "" {
		entries, err := l.readDir(dir)
		if err != nil {
			return err
		}
		for _, f := range entries {
			l.clusterWide(&cl, f)
		}
		sortValues(cl.Values)
	}
	slices.SortFunc(matches, func(a, b match) int {
		return cmp.Or(strings.Compare(a.namespace(), b.namespace()), strings.Compare(a.e.path, b.e.path))
	})
	for i, m := range matches {
		if i > 0 && matches[i-1].namespace() == m.namespace() {
			continue // reported with the first
		}
		t, _, err := l.loadTarget(&cl, entry{name: m.namespace(), path: m.e.path, real: m.e.real, dir: true})
		if err != nil {
			return err
		}
		for _, other := range matches[i+1:] {
			if other.namespace() == m.namespace() {
				l.targetDiagCode(&t, CodeTargetConflict, other.e.path, fmt.Sprintf("target %s has two folders, %s and %s: one Application "+
					"cannot deploy both", t.Name(), m.e.path, other.e.path), "remove or rename one of them (an extra part such as {env} may not "+
					"tell two targets of one cluster and namespace apart)")
			}
		}
		cl.Namespaces = append(cl.Namespaces, t.Namespace)
		l.repo.Targets = append(l.repo.Targets, t)
	}
	l.declaredTargets(&cl)
	l.repo.Clusters = append(l.repo.Clusters, cl)
	return nil
}
