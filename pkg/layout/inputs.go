package layout

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// SumsFile is the file that pins remote chart dependencies' digests
// (render reads it; see docs/render.md).
const SumsFile = "repotool.sum"

// SOPSConfigFile is SOPS's creation rules, which lint checks secret values
// files against.
const SOPSConfigFile = sopsfile.ConfigFile

// RepoFiles returns the repository-wide files whose change affects every
// target: the configuration file (whether it exists or not: adding one
// changes everything), SOPSConfigFile and SumsFile. Sorted.
func (r *Repo) RepoFiles() []string {
	cfg := r.ConfigFile
	if cfg == "" {
		cfg = config.FileName
	}
	return slices.Compact(slices.Sorted(slices.Values([]string{cfg, SOPSConfigFile, SumsFile})))
}

// SecretsInputs are the files that write cluster's Secrets under mode,
// inputs of each of its targets that Inputs does not hold: the cluster's
// sealed-secrets certificate for SecretsSealed (none when the cluster has
// no folder and names none: sealing then fails). SecretsSOPS encrypts by
// SOPSConfigFile, which RepoFiles holds already.
func (r *Repo) SecretsInputs(cluster string, mode config.SecretsMode) []string {
	if mode != config.SecretsSealed {
		return nil
	}
	dir := ""
	if cl, ok := r.Cluster(cluster); ok {
		dir = cl.Dir
	}
	if c := r.Config.Hydrate.CertificateFor(cluster, dir); c != "" {
		return []string{c}
	}
	return nil
}

// Inputs returns every repository path whose change can change what t
// renders, sorted, a folder standing for everything below it (and none
// listed inside another):
//
//   - the repository-wide files (RepoFiles);
//   - for an Application's target, the file the Application is in, and
//     the globs of its valueFiles; for one an ApplicationSet makes, the
//     files its parameters come from (and a merge's folders);
//   - the target's folder (a new values file changes the merge, and a
//     stray file or folder in it is a layout error that fails the target),
//     and its namespace's folder when its chart is elsewhere;
//   - the cluster-wide values a new file directly in its cluster's folder
//     could be, as globs (clusters/<c>/*values*.yaml), when
//     layout.clusterWideValues names some and repotool.yaml does not list
//     the target's values;
//   - its chart's folder, and the folders of the charts that chart depends
//     on through file://, transitively;
//   - where the symbolic links in those folders, and its values files,
//     lead when that is outside them.
//
// diff decides which targets a change affects from it (InputHolds), and
// generate writes it into each Application's manifest-generate-paths
// annotation, so that the two can never disagree about what a commit
// re-renders.
func (r *Repo) Inputs(t *Target) []string {
	out := r.RepoFiles()
	add := func(p string) {
		out = append(out, p)
		if real, err := fsutil.Resolve(r.FS, p); err == nil && real != p {
			out = append(out, real)
		}
	}
	if !t.Declared { // a declared target's folder is its cluster's: its inputs are its listed files
		add(t.Dir)
	}
	if t.NamespaceDir != "" {
		add(t.NamespaceDir)
	}
	if t.App != nil {
		add(t.App.File) // its source, values and parameters
		for _, fp := range t.App.FileParameters {
			add(fp.Path) // read whole into a value
		}
		for _, p := range t.App.SetInputs {
			add(p) // where its ApplicationSet's parameters for it come from
		}
		for _, g := range t.App.ValueGlobs {
			// A file added that the glob matches: path.Match reads one
			// folder a "*"; below a "**", the folder it starts from.
			if strings.Contains(g, "**") {
				g, _ = doublestar.SplitPattern(g)
			}
			out = append(out, g)
		}
	} else if list, listed, _ := r.Config.TargetValues(t.Cluster, t.Namespace); listed {
		for _, f := range list.Expand(t.Cluster, t.Namespace) {
			add(f.Path) // a listed file that is missing fails the target: adding it is a change
		}
	} else if cl, ok := r.Cluster(t.Cluster); ok && cl.Dir != "" {
		for _, p := range r.Config.Layout.ClusterWideValues {
			out = append(out, path.Join(escapeGlob(cl.Dir), p))
		}
	}
	for _, v := range t.Values {
		add(v.Path)
	}
	for _, dir := range r.chartClosure(t.ChartDir) {
		add(dir)
		out = append(out, r.linksOf(dir)...)
	}
	return compactPaths(out)
}

// InputHolds reports whether a change to the repository path p is a
// change to input: p is input, is inside it, or matches it as a glob, as
// Argo CD matches manifest-generate-paths.
func InputHolds(input, p string) bool {
	if p == input || strings.HasPrefix(p, input+"/") {
		return true
	}
	m, err := path.Match(input, p)
	return err == nil && m
}

// escapeGlob escapes the characters path.Match reads in a folder name.
func escapeGlob(p string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(p)
}

// compactPaths sorts paths and drops those that are inside another, or
// that a glob among them matches.
func compactPaths(ps []string) []string {
	slices.Sort(ps)
	ps = slices.Compact(ps)
	var out []string
	for _, p := range ps {
		// "a/b/c" need not follow "a/b" directly ("a/b-x" sorts between
		// them), nor a file the glob that matches it: check them all.
		if slices.ContainsFunc(ps, func(d string) bool { return d != p && InputHolds(d, p) }) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// inputCache keeps, per chart folder, what Inputs learnt of it: the
// charts it depends on through file:// and where its links lead.
type inputCache struct {
	mu    sync.Mutex
	deps  map[string][]string
	links map[string][]string
}

func (r *Repo) cache() *inputCache {
	if r.inputs == nil {
		return &inputCache{} // a Repo not made by Load: nothing kept
	}
	return r.inputs
}

// Charts returns the folders of every chart a namespace deploys and of the
// charts they depend on through file://, transitively, sorted.
func (r *Repo) Charts() []string {
	var out []string
	for _, ns := range r.Namespaces {
		if ns.Chart != nil {
			out = append(out, r.chartClosure(ns.Chart.Dir)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// chartClosure returns dir and the folders of the charts it depends on
// through file://, transitively, sorted. A Chart.yaml that cannot be read
// or parsed adds nothing: its targets fail to render (chart-invalid), and
// the folder that holds it is an input already.
func (r *Repo) chartClosure(dir string) []string {
	c := r.cache()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deps == nil {
		c.deps = map[string][]string{}
	}
	seen := map[string]bool{}
	todo := []string{dir}
	for len(todo) > 0 {
		d := todo[0]
		todo = todo[1:]
		if seen[d] {
			continue // a cycle: render reports it
		}
		seen[d] = true
		direct, ok := c.deps[d]
		if !ok {
			direct = r.fileDeps(d)
			c.deps[d] = direct
		}
		todo = append(todo, direct...)
	}
	return slices.Sorted(func(yield func(string) bool) {
		for d := range seen {
			if !yield(d) {
				return
			}
		}
	})
}

// fileDeps returns the folders of the file:// dependencies in dir's
// Chart.yaml, read through the run's file index (layout read it already).
func (r *Repo) fileDeps(dir string) []string {
	files := r.Files
	if files == nil {
		files = NewFiles(r.FS)
	}
	return ChartFileDependencies(files, dir)
}

// ChartFileDependencies returns the folders of the file:// dependencies
// that the Chart.yaml in dir declares, in its order, read through files:
// the one reading of them that the inputs, the renderer's cycle check and
// its loader share. A Chart.yaml that cannot be read or parsed declares
// none (its targets fail to render), and a path that leaves the repository
// is left out (FileDependency; the loader refuses it).
func ChartFileDependencies(files *Files, dir string) []string {
	data, err := files.Get(path.Join(dir, "Chart.yaml")).Data()
	if err != nil {
		return nil
	}
	var c struct {
		Dependencies []struct {
			Repository string `yaml:"repository"`
		} `yaml:"dependencies"`
	}
	if yaml.Unmarshal(data, &c) != nil {
		return nil
	}
	var out []string
	for _, d := range c.Dependencies {
		if dep, ok, err := FileDependency(dir, d.Repository); ok && err == nil {
			out = append(out, dep)
		}
	}
	return out
}

// ErrLeavesRepository is FileDependency's error for a path outside the
// repository.
var ErrLeavesRepository = errors.New("the path leaves the repository")

// FileDependency is the one rule for a chart's file:// dependencies, which
// the inputs (manifest-generate-paths, diff, --changed-since), the
// renderer and its cycle check all follow: for the chart in dir and a
// dependency's repository, the dependency's folder in the repository and
// ok when it is a file:// one; ErrLeavesRepository when its path is
// absolute or goes above the repository's root (Helm would read a folder
// repotool cannot see, so rendering refuses it).
func FileDependency(dir, repository string) (string, bool, error) {
	rel, ok := strings.CutPrefix(repository, "file://")
	if !ok {
		return "", false, nil
	}
	sub := path.Join(dir, rel)
	if strings.HasPrefix(rel, "/") || sub == ".." || strings.HasPrefix(sub, "../") {
		return "", true, ErrLeavesRepository
	}
	return sub, true, nil
}

// linksOf returns where the symbolic links below dir lead when that is
// outside dir (linksIn). A namespace folder's were found when layout
// checked its tree; other folders (file:// dependencies) are walked here,
// once. A folder that cannot be walked adds what was found before the
// error: the layout or the chart loader fails the target on it.
func (r *Repo) linksOf(dir string) []string {
	c := r.cache()
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.links[dir]; ok {
		return l
	}
	out, _ := linksIn(r.FS, dir, func(string, string, fs.FileInfo, error) error { return nil })
	c.setLinks(dir, out)
	return out
}

func (c *inputCache) setLinks(dir string, links []string) {
	if c.links == nil {
		c.links = map[string][]string{}
	}
	c.links[dir] = links
}

// linksIn walks dir as the chart loader does (links followed inside the
// repository) and returns where its links lead outside it, compacted: the
// loader reads what they point to as part of the chart. A link that dangles
// adds where it points, when that is inside the repository: creating the
// file there changes the chart. visit is called for every entry (p as
// listed, real what it leads to, info what that is), with the error of one
// that cannot be followed; an error it returns stops the walk.
func linksIn(fsys fs.FS, dir string, visit func(p, real string, info fs.FileInfo, err error) error) ([]string, error) {
	real, err := fsutil.Resolve(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []string
	err = fsutil.Walk(fsys, dir, func(rel, p string, info fs.FileInfo, err error) error {
		switch {
		case err != nil:
			if t, ok := danglingTarget(fsys, p); ok && !within(t, real) {
				out = append(out, t)
			}
		case !within(p, real):
			out = append(out, p)
		}
		return visit(path.Join(dir, rel), p, info, err)
	})
	return compactPaths(out), err
}

// danglingTarget returns where the link p points, as a repository path,
// when p is a link and that path is inside the repository.
func danglingTarget(fsys fs.FS, p string) (string, bool) {
	target, err := fs.ReadLink(fsys, p)
	if err != nil || path.IsAbs(target) {
		return "", false
	}
	t := path.Join(path.Dir(p), target)
	return t, fs.ValidPath(t) && t != "."
}
