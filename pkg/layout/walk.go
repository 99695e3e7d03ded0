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

// A layout's targets are the folders a path template matches
// (config.TargetTemplate): the default <clustersDir>/{cluster}/{namespace},
// or layout.targets' (projects/{team}/{namespace}/{cluster}/{env}). One
// walk below finds them for every layout; the parts name the target, and
// the rest of the model (namespaces, clusters, values, inputs) is built
// alike, so that nothing downstream reads folder names.

// helmFolders are the folders of a chart that Helm gives a meaning to:
// below a Chart.yaml, they are never a part of the template.
var helmFolders = map[string]bool{"templates": true, "charts": true, "crds": true}

// match is a folder the template matches (e): its cluster and namespace,
// and the folders on its way that their parts matched (the template up to
// {cluster}, up to {namespace}). No other part names anything.
type match struct {
	clusterName, namespaceName string
	clusterDir, namespaceDir   string
	e                          entry
}

func (m match) cluster() string   { return m.clusterName }
func (m match) namespace() string { return m.namespaceName }

// loadTargets loads the targets the template finds, and their clusters
// and namespaces: the default layout's (<clustersDir>/{cluster}/{namespace})
// and layout.targets' alike, by one walk. templated: the template is
// layout.targets', which tells where the repository begins.
func (l *loader) loadTargets(tpl config.TargetTemplate, templated bool) error {
	w := &walker{tpl: tpl, templated: templated, clusterFiles: map[string][]entry{}}
	if err := l.walk(w, 0, entry{path: ".", real: ".", dir: true}, match{}); err != nil {
		return err
	}
	matches := w.matches
	if first := tpl.Segments[0]; templated && tpl.Part(0) == "" && len(matches) == 0 {
		if _, err := resolve(l.fsys, first); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: it has no %s/ folder, where layout.targets (%s) begins (is this the repository root?)",
				ErrNotRepository, first, strings.Join(tpl.Segments, "/"))
		}
	}
	if tpl.NamespaceFirst() {
		if err := l.loadNamespaceFolders(matches); err != nil {
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
	// Each cluster's matches, in one slice sorted by cluster (not copied:
	// a repository of 20,000 targets has as many).
	slices.SortStableFunc(matches, func(a, b match) int { return strings.Compare(a.cluster(), b.cluster()) })
	folders := map[string][]entry{} // each cluster's folders, when the template names clusters first
	names := make([]string, 0, len(w.clusters))
	for _, c := range w.clusters {
		folders[c.name] = append(folders[c.name], c)
		names = append(names, c.name)
	}
	for i := 0; i < len(matches); {
		names = append(names, matches[i].cluster())
		i += len(clusterRun(matches[i:]))
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		var run []match // none: a cluster's folder with no target's in it
		if i, ok := slices.BinarySearchFunc(matches, name, func(m match, c string) int { return strings.Compare(m.cluster(), c) }); ok {
			run = clusterRun(matches[i:])
		}
		if err := l.loadCluster(w, name, folders[name], run); err != nil {
			return err
		}
	}
	if err := l.loadApps(); err != nil {
		return err
	}
	l.finish()
	return nil
}

// clusterRun is the matches at the start of ms that are of its first
// match's cluster.
func clusterRun(ms []match) []match {
	n := 0
	for n < len(ms) && ms[n].cluster() == ms[0].cluster() {
		n++
	}
	return ms[:n:n]
}

// walker is what a walk finds: the folders the template matches, with
// their parts, and, when it names clusters before namespaces, every
// cluster's folder (one with no namespace folder is a cluster still) and
// the files the walk listed in it (by folder: its cluster-wide values
// files are among them). templated: the template is layout.targets'.
type walker struct {
	tpl          config.TargetTemplate
	templated    bool
	matches      []match
	clusters     []entry
	clusterFiles map[string][]entry
}

// walk finds the folders below e that the template's segments from i on
// match, and adds them to w, each as m with the parts below e. Hidden folders are not
// parts (.git); below the root, one where a cluster's or a namespace's
// folder is expected is reported as a name no cluster or namespace has.
func (l *loader) walk(w *walker, i int, e entry, m match) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	tpl := w.tpl
	if i == len(tpl.Segments) {
		m.e = e
		w.matches = append(w.matches, m)
		return nil
	}
	name := tpl.Part(i)
	if name == "" {
		next, ok, err := l.literal(e, tpl.Segments[i])
		if !ok || err != nil {
			return err
		}
		return l.walk(w, i+1, next, m)
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
	if own && prev == config.PartCluster { // listed once, for the walk and for the cluster's files
		w.keepClusterFiles(e, entries)
	}
	chart := slices.ContainsFunc(entries, func(c entry) bool { return c.name == "Chart.yaml" && !c.dir })
	found := len(w.matches)
	var stray []Diagnostic
	defer func() {
		if len(w.matches) > found { // only folders on the way to a target are the layout's
			l.pending = append(l.pending, stray...)
		}
	}()
	for _, c := range entries {
		if chart && helmFolders[c.name] {
			continue // a chart's own folders are no part
		}
		if strings.HasPrefix(c.name, ".") {
			if c.dir && i > 0 && (name == config.PartCluster || name == config.PartNamespace) {
				l.checkName(c, name) // no cluster's or namespace's: said, not passed by unseen
			}
			continue // Git's folder
		}
		if l.only != nil && (name == config.PartCluster && c.name != l.only.Cluster || name == config.PartNamespace && c.name != l.only.Namespace) {
			continue // Options.Only: another target's
		}
		if i > 0 && !c.dir && !own && isYAML(c.name) { // the root holds repotool.yaml and the like
			stray = append(stray, w.stray(e, c))
		}
		if name == config.PartCluster || name == config.PartNamespace {
			l.checkFolder(c, name)
			l.checkFolderLink(c, name)
		}
		if !c.dir {
			continue
		}
		if name == config.PartCluster && !tpl.NamespaceFirst() {
			w.clusters = append(w.clusters, c)
		}
		switch name {
		case config.PartCluster:
			m.clusterName, m.clusterDir = c.name, c.path
		case config.PartNamespace:
			m.namespaceName, m.namespaceDir = c.name, c.path
		}
		if err := l.walk(w, i+1, c, m); err != nil {
			return err
		}
	}
	return nil
}

// keepClusterFiles keeps the files of cluster folder e, listed as entries,
// for loadCluster: its files alone (it holds a folder per namespace).
func (w *walker) keepClusterFiles(e entry, entries []entry) {
	var files []entry
	for _, c := range entries {
		if !c.dir {
			files = append(files, c)
		}
	}
	w.clusterFiles[e.path] = files
}

// literal is the folder seg below e, a literal segment of the template:
// not ok when there is none (a link out of the repository is reported).
func (l *loader) literal(e entry, seg string) (entry, bool, error) {
	p := path.Join(e.path, seg)
	real, err := resolve(l.fsys, p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.linkDiag(p, err)
		}
		return entry{}, false, nil
	}
	st, err := fs.Stat(l.fsys, real)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && !st.IsDir():
		return entry{}, false, nil
	case err != nil:
		return entry{}, false, err // there, and cannot be read: fail, not pass by
	}
	return entry{name: seg, path: p, real: real, dir: true}, true, nil
}

// stray is the warning for YAML file c in folder e, which the walk passes
// through on the way to targets' folders: no target reads it.
func (w *walker) stray(e, c entry) Diagnostic {
	msg := fmt.Sprintf("YAML file in a folder layout.targets (%s) passes through is not read: it is no target's, cluster's or namespace's folder",
		strings.Join(w.tpl.Segments, "/"))
	if !w.templated {
		msg = fmt.Sprintf("YAML file directly in %s/ is not read: it is no cluster's folder", e.path)
	}
	return Diagnostic{Severity: SeverityWarning, Code: CodeFileUnrecognized, File: c.path, Message: msg,
		Hint: "move it into a target's folder, or list it in the values lists of the targets it is for"}
}

// loadNamespaceFolders loads the namespaces of a template that names them
// before their clusters: a namespace's folder, up to {namespace}, holds
// its chart and common values. One namespace in two folders (two teams'
// "shop") is a target-conflict error at both.
func (l *loader) loadNamespaceFolders(matches []match) error {
	folders := map[string]entry{}
	for _, m := range matches {
		dir := m.namespaceDir
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

// loadCluster loads a cluster and the targets the template finds for
// it. The cluster has a folder when the template names it before the
// namespace and every target is below the same one: its cluster-wide
// values are there; folders are the cluster's folders the walk passed
// (none when it names namespaces first), and with no target one folder is
// the cluster's. Two folders for one target are a target-conflict error
// of the target.
func (l *loader) loadCluster(w *walker, name string, folders []entry, matches []match) error {
	tpl := w.tpl
	dir, at := "", ""
	switch {
	case len(matches) > 0:
		at = matches[0].e.path
		if !tpl.NamespaceFirst() {
			dir = matches[0].clusterDir
			if slices.ContainsFunc(matches, func(m match) bool { return m.clusterDir != dir }) {
				dir = ""
			}
		}
	case len(folders) == 1:
		dir = folders[0].path
	default: // no target, and a folder in each of several places: not one cluster's
		at = folders[0].path
	}
	cl := l.newCluster(name, dir)
	l.checkName(entry{name: name, path: cmp.Or(dir, at)}, "cluster")
	if dir != "" {
		files, listed := w.clusterFiles[dir]
		if !listed { // the template names a folder after {cluster}: the walk did not list it
			entries, err := l.readDir(dir)
			if err != nil {
				return err
			}
			files = entries
		}
		for _, f := range files {
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
