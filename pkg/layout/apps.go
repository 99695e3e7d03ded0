package layout

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/repotool/repotool/pkg/config"
)

// An Application of the repository's own (applications.paths) is a target
// of the cluster it deploys to: Target.App says which, and what its source
// adds to a chart and values files (docs/applications.md). Load reads
// them after the folders' targets; what it cannot follow is a diagnostic
// at the Application's line, and what it cannot render yet fails the
// target in every command: nothing is rendered from a guess.

// App is the Argo CD Application a target comes from.
type App struct {
	// Name is metadata.name: the target's name in its cluster, and the
	// release's unless ReleaseName says otherwise.
	Name string `json:"name"`
	// File and Line are where the Application is written.
	File string `json:"file"`
	Line int    `json:"line"`
	// ReleaseName is helm.releaseName, else Name.
	ReleaseName string `json:"releaseName"`
	// Values are helm.valuesObject, else helm.values, as YAML: merged
	// after the values files, as Argo CD passes them to helm last.
	Values []byte `json:"-"`
	// ValuesLine is the line of File where Values begin.
	ValuesLine int `json:"-"`
	// Parameters are helm.parameters, applied after every values file
	// as --set and --set-string are, in order; FileParameters are
	// helm.fileParameters, applied after them as --set-file.
	Parameters     []Parameter     `json:"-"`
	FileParameters []FileParameter `json:"fileParameters,omitempty"`
	// ValueGlobs are the globs of its valueFiles, resolved: a file added
	// that one matches is a change to it (Repo.Inputs).
	ValueGlobs []string `json:"valueGlobs,omitempty"`
	// Digest identifies what the Application says (its document, without
	// comments or layout): an edit to its file that leaves it equal
	// changes nothing it renders (scope.Affected).
	Digest string `json:"-"`
	// SkipCRDs and SkipSchemaValidation are helm's.
	SkipCRDs             bool `json:"skipCrds,omitempty"`
	SkipSchemaValidation bool `json:"skipSchemaValidation,omitempty"`
	// SkipTests leaves out the chart's test hooks, as --skip-tests.
	SkipTests bool `json:"skipTests,omitempty"`
	// FromSet is set when an ApplicationSet in File makes it, at Line its
	// template's; SetInputs are the files its parameters come from, and
	// for a merge generator's the folders its git generators list
	// (appset.App.Inputs, Repo.Inputs).
	FromSet   bool     `json:"fromApplicationSet,omitempty"`
	SetInputs []string `json:"setInputs,omitempty"`
	// Doc is the Application's document as YAML, without comments (as
	// its ApplicationSet makes it, for one that does).
	Doc []byte `json:"-"`
}

// FileParameter is one of an Application's helm.fileParameters: the
// value at Name is the content of the repository file Path.
type FileParameter struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Line is its line in the Application's file.
	Line int `json:"-"`
}

// Parameter is one of an Application's helm.parameters.
type Parameter struct {
	Name        string
	Value       string
	ForceString bool
	// Line is its line in the Application's file.
	Line int
}

// InClusterServer is the API server address of the cluster an Argo CD runs
// in, and the destination of a cluster that repotool.yaml gives none.
const InClusterServer = "https://kubernetes.default.svc"

// inClusterName is Argo CD's name for InClusterServer.
const inClusterName = "in-cluster"

// loadApps reads the Applications that applications.paths finds.
func (l *loader) loadApps() error {
	cfg := l.repo.Config.Applications
	if !cfg.Enabled() {
		return nil
	}
	files, err := l.appFiles(cfg.Paths)
	if err != nil {
		return err
	}
	seen := map[string]int{} // each target's index in Targets, by name
	folders := map[string]string{}
	for _, t := range l.repo.Targets {
		folders[t.Name()] = t.Dir
	}
	for _, f := range files {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		for _, a := range l.readApps(f) {
			if l.only != nil && (l.only.Namespace != a.meta.Name || f.cluster != "" && f.cluster != l.only.Cluster) {
				continue // one target's load: not this one, whose problems a full load tells
			}
			cluster, ok := l.appCluster(a, f.cluster)
			if !ok || l.only != nil && l.only.Cluster != cluster {
				continue
			}
			key := cluster + "/" + a.meta.Name
			if dir, dup := folders[key]; dup {
				l.diag(SeverityError, CodeTargetConflict, f.path, a.line,
					fmt.Sprintf("Application %q and the folder %s are both target %s", a.meta.Name, dir, key),
					"rename the Application, or leave one out")
				continue
			}
			if i, dup := seen[key]; dup {
				// Argo CD keeps one of them, the last applied: both fail.
				first := &l.repo.Targets[i]
				msg := fmt.Sprintf("Application %q deploys to cluster %q, as the one at %s:%d does", a.meta.Name, cluster, first.App.File, first.App.Line)
				if a.fromSet && first.App.FromSet && first.App.File == f.path && first.App.Line == a.line {
					msg = fmt.Sprintf("the ApplicationSet makes two Applications %q for cluster %q", a.meta.Name, cluster)
				}
				d := Diagnostic{Severity: SeverityError, Code: CodeApplicationInvalid, File: f.path, Line: a.line, Message: msg,
					Hint: "Argo CD keeps one Application of a name: rename one (an ApplicationSet's names come from its generators' parameters)"}
				l.repo.Diagnostics = append(l.repo.Diagnostics, d)
				first.Errors = append(first.Errors, d)
				continue
			}
			seen[key] = len(l.repo.Targets)
			l.repo.Targets = append(l.repo.Targets, l.appTarget(a, cluster))
		}
	}
	return nil
}

// appFile is a file applications.paths finds, with the cluster its
// {cluster} folder names.
type appFile struct{ path, cluster string }

// appFiles are the files the globs find, sorted, each once. A folder that
// cannot be read is an error: Applications in it would go unchecked.
func (l *loader) appFiles(globs []string) ([]appFile, error) {
	var out []appFile
	for _, g := range globs {
		base, _ := doublestar.SplitPattern(strings.ReplaceAll(g, config.ClusterPart, "*"))
		err := fs.WalkDir(l.fsys, base, func(p string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist) && p == base:
				return fs.SkipAll // no Applications there (yet)
			case err != nil:
				l.diag(SeverityError, CodeUnreadable, p, 0, "cannot read the folder, which applications.paths says holds Applications: "+err.Error(),
					ReadHint(err, "check the folder's permissions"))
				return nil
			case d.IsDir() && p != base && strings.HasPrefix(d.Name(), "."):
				return fs.SkipDir
			case d.IsDir() || !isYAML(d.Name()) && path.Ext(p) != ".json":
				return nil
			}
			cluster, ok := config.MatchApplications(g, p)
			switch {
			case !ok:
			case l.ignored != nil && l.ignored(p):
				// Argo CD renders from Git, which does not carry it.
				l.diag(l.ignoredIs, CodeGitIgnored, p, 0, "Git ignores this file of Applications: Argo CD never sees it, so its Applications are no targets",
					"commit it (git add -f "+p+") if it is meant to deploy")
			default:
				out = append(out, appFile{p, cluster})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b appFile) int { return strings.Compare(a.path, b.path) })
	return slices.CompactFunc(out, func(a, b appFile) bool { return a.path == b.path }), nil
}

// appCluster is the cluster an Application deploys to: the one its
// destination names, among the {cluster} folder's when its file is in
// one. An unknown or ambiguous destination is an error at its line.
func (l *loader) appCluster(a appDoc, folder string) (string, bool) {
	d := a.Spec.Destination
	dest := "server " + cmp.Or(d.Server, `""`)
	if d.Name != "" {
		dest = "name " + d.Name
	}
	names := l.clusterNames()
	if folder != "" {
		if !slices.Contains(names, folder) {
			l.diag(SeverityError, CodeDestinationUnknown, a.file, a.line,
				fmt.Sprintf("Application %q is in the folder of cluster %q, which neither %s nor a cluster folder names", a.meta.Name, folder, config.FileName),
				fmt.Sprintf("add clusters.%s to %s (with its Kubernetes version), or move the file to its cluster's folder", folder, config.FileName))
			return "", false
		}
		names = []string{folder}
	}
	var found []string
	for _, c := range names {
		if l.destinationOf(c, d) {
			found = append(found, c)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], true
	case len(found) > 1:
		l.diag(SeverityError, CodeDestinationUnknown, a.file, a.destLine,
			fmt.Sprintf("Application %q deploys to %s, which is the destination of clusters %s", a.meta.Name, dest, strings.Join(found, ", ")),
			"give each cluster its own destination in "+config.FileName+" (clusters.<c>.destination), or put {cluster} in applications.paths")
	case folder != "":
		l.diag(SeverityError, CodeDestinationUnknown, a.file, a.destLine,
			fmt.Sprintf("Application %q is in cluster %q's folder but deploys to %s, which is not that cluster's destination", a.meta.Name, folder, dest),
			fmt.Sprintf("set clusters.%s.destination in %s to where its Argo CD deploys, or fix the Application's destination", folder, config.FileName))
	default:
		l.diag(SeverityError, CodeDestinationUnknown, a.file, a.destLine,
			fmt.Sprintf("Application %q deploys to %s, the destination of no cluster repotool knows", a.meta.Name, dest),
			"add the cluster to "+config.FileName+" with clusters.<c>.destination, or fix the Application's destination")
	}
	return "", false
}

// clusterNames are the clusters the folders and repotool.yaml name, sorted.
func (l *loader) clusterNames() []string {
	var names []string
	for _, c := range l.repo.Clusters {
		names = append(names, c.Name)
	}
	for name := range l.repo.Config.Clusters {
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// destinationOf reports whether d is cluster's destination, as Argo CD
// resolves one: by name when it has one (in-cluster is the in-cluster
// server's name), else by server.
func (l *loader) destinationOf(cluster string, d appDestination) bool {
	own := l.repo.Config.Clusters[cluster].Destination
	server, name := strings.TrimSuffix(cmp.Or(own.Server, InClusterServer), "/"), own.Name
	if name == "" && server == InClusterServer {
		name = inClusterName
	}
	if d.Name != "" {
		return d.Name == name
	}
	return d.Server != "" && strings.TrimSuffix(d.Server, "/") == server
}

// appClusterModel is the cluster of an Application's target, made when no
// folder made it.
func (l *loader) appClusterModel(name string) *Cluster {
	if cl, ok := l.repo.Cluster(name); ok {
		return cl
	}
	cl := l.newCluster(name, "")
	cl.FromApps = true
	l.repo.Clusters = append(l.repo.Clusters, cl)
	slices.SortFunc(l.repo.Clusters, func(a, b Cluster) int { return strings.Compare(a.Name, b.Name) })
	made, _ := l.repo.Cluster(name)
	return made
}
