package layout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/config"
)

// ErrNotRepository is returned when the file system has neither a
// namespaces nor a clusters folder.
var ErrNotRepository = errors.New("not a repotool repository")

// LoadDir loads the repository rooted at the directory dir, a work tree:
// what no commit carries (Git's directory, the files opts.Ignored
// reports) is withheld from every reader of the repository (see
// fsutil.Carried). It is the entry point that touches the operating
// system; Load does the work.
func LoadDir(ctx context.Context, dir string, opts Options) (*Repo, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: the repository folder does not exist: %w", dir, fs.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", dir, err)
	case !st.IsDir():
		return nil, fmt.Errorf("%s: not a folder: give the repository's root folder", dir)
	}
	// A work tree is read as Git carries it: nothing in Git's directory
	// (the CI's credentials are in .git/config), and no file Git ignores,
	// through whatever path or link.
	repo, err := Load(ctx, fsutil.Carried(os.DirFS(dir), opts.Ignored, opts.GitDir), opts)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	repo.Root = dir
	return repo, nil
}

// Load reads the repository in fsys into a Repo. Problems with the layout
// are reported as Diagnostics; Load returns an error only when the
// repository cannot be read at all, the context ends, or repotool.yaml is
// invalid (a *config.Error).
func Load(ctx context.Context, fsys fs.FS, opts Options) (*Repo, error) {
	l := &loader{
		ctx:       ctx,
		fsys:      fsys,
		repo:      &Repo{FS: fsys, Files: NewFiles(fsys), inputs: &inputCache{}},
		maxValues: cmp.Or(opts.MaxValuesSize, DefaultMaxValuesSize),
		only:      opts.Only,
		ignored:   opts.Ignored,
		ignoredIs: SeverityWarning,
		shared:    map[string]*Chart{},
		missing:   map[string]Diagnostic{},
		checked:   map[string]struct{}{},
	}
	if opts.IgnoredIsError {
		l.ignoredIs = SeverityError
	}
	switch {
	case l.maxValues < 0:
		l.repo.Files.limit = 0 // no limit on values files: none on the files they are read from
	case l.maxValues > l.repo.Files.limit:
		l.repo.Files.limit = l.maxValues
	}
	if err := l.loadConfig(opts); err != nil {
		return nil, err
	}
	l.repo.helm = opts.Helm
	l.helm4 = l.repo.Helm() == config.HelmV4
	if err := l.load(); err != nil {
		return nil, err
	}
	sortDiagnostics(l.repo.Diagnostics)
	l.repo.Diagnostics = slices.Compact(l.repo.Diagnostics) // one problem found by two checks (a link listed and walked) is told once
	if l.repo.Diagnostics == nil {
		l.repo.Diagnostics = []Diagnostic{}
	}
	// The values files checked last (the last cluster's), which the stages
	// after a load seldom ask for next, go; what they learnt stays.
	l.repo.Files.letGo(func(f *File) bool { _, ok := l.checked[f.Path]; return ok || l.inClusterFolder(f.Path) })
	// And their entries: a values file's check learnt its SOPS metadata or nothing.
	l.repo.Files.Forget()
	return l.repo, nil
}

type loader struct {
	ctx       context.Context
	maxValues int64
	helm4     bool // values files are read as Helm 4 reads them (Options.Helm)
	fsys      fs.FS
	repo      *Repo
	cfgNode   *yaml.Node
	only      *TargetRef // Options.Only
	ignored   func(string) bool
	ignoredIs Severity // the git-ignored diagnostic's
	// gitListing is every file Git carries, for ApplicationSets' git
	// generators (gitPaths).
	gitListing []string
	// shared are the charts namespaces.<ns>.chart names, by folder;
	// checked the values files checked that several targets may list, by
	// path (such a file is checked once); unread the warnings about files that hold
	// for those no target reads in the end (see unread).
	shared  map[string]*Chart
	missing map[string]Diagnostic // by namespace: its chart setting names no chart
	checked map[string]struct{}
	pending []Diagnostic
}

func (l *loader) diag(sev Severity, code Code, file string, line int, msg, hint string) {
	l.repo.Diagnostics = append(l.repo.Diagnostics, Diagnostic{Severity: sev, Code: code, File: file, Line: line, Message: msg, Hint: hint})
}

func (l *loader) loadConfig(opts Options) error {
	if opts.Config != nil {
		l.repo.Config = *opts.Config
		l.repo.Config.Layout.ApplyDefaults()
		return nil
	}
	name := cmp.Or(opts.ConfigFile, config.FileName)
	real, err := resolve(l.fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := fs.Lstat(l.fsys, name); lerr == nil {
			// A link to a configuration that is gone is not "no
			// configuration": the defaults could deploy anything.
			return &config.Error{File: name, Message: "the file is a symbolic link whose target does not exist; point it at the configuration, or remove it"}
		}
		l.repo.Config = config.DefaultConfig()
		return nil
	}
	if err != nil {
		return &config.Error{File: name, Message: err.Error()}
	}
	data, err := fsutil.ReadFile(l.fsys, real, fsutil.DefaultMaxFileSize)
	if err != nil {
		return &config.Error{File: name, Message: "cannot read the configuration: " + err.Error()}
	}
	cfg, node, err := config.Parse(name, data)
	if err != nil {
		return err
	}
	l.repo.Config, l.cfgNode, l.repo.ConfigFile = cfg, node, name
	return nil
}

func (l *loader) load() error {
	lc := l.repo.Config.Layout
	if !lc.Templated() { // the walk reads either folder, and fails when one cannot be read
		_, nsErr := resolve(l.fsys, lc.NamespacesDir)
		_, clErr := resolve(l.fsys, lc.ClustersDir)
		if errors.Is(nsErr, fs.ErrNotExist) && errors.Is(clErr, fs.ErrNotExist) && !l.repo.Config.Applications.Enabled() {
			return fmt.Errorf("%w: it has neither a %s/ nor a %s/ folder (is this the repository root? folder names can be changed in %s)",
				ErrNotRepository, lc.NamespacesDir, lc.ClustersDir, config.FileName)
		}
	}
	return l.loadTargets(lc.TargetTemplate(), lc.Templated())
}

// loadNamespaces loads the folders under namespaces/, then the namespaces
// repotool.yaml gives a shared chart.
func (l *loader) loadNamespaces(nsEntries []entry) error {
	for _, e := range nsEntries {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		if l.only != nil && e.name != l.only.Namespace {
			continue
		}
		l.checkFolder(e, "namespace")
		if e.dir {
			ns, err := l.loadNamespace(e)
			if err != nil {
				return err
			}
			l.repo.Namespaces = append(l.repo.Namespaces, ns)
		}
	}
	l.configNamespaces()
	return nil
}

func (l *loader) loadNamespace(e entry) (Namespace, error) {
	cfg := &l.repo.Config
	ns := Namespace{Name: e.name, Dir: e.path, Tier: cfg.NamespaceTier(e.name), Values: []ValueFile{}, Clusters: []string{}}
	l.checkName(e, "namespace")
	if err := l.checkTree(e.path); err != nil {
		return ns, err
	}
	entries, err := l.readDir(e.path)
	if err != nil {
		return ns, err
	}
	shared := cfg.Namespaces[e.name].Chart.Path != ""
	if shared {
		ns.Chart = l.sharedChart(e.name)
	}
	for _, f := range entries {
		switch {
		case f.dir:
			l.checkValuesFolder(f, cfg.Layout.CommonValues)
		case f.name == "Chart.yaml" && shared:
			l.diag(SeverityError, CodeChartInvalid, f.path, 0,
				fmt.Sprintf("namespace %q has its own chart, and %s names another (namespaces.%s.chart: %s)", e.name, l.repo.ConfigFile, e.name,
					cfg.Namespaces[e.name].Chart.Path),
				"keep one: remove this chart, or the chart setting")
		case f.name == "Chart.yaml":
			ns.Chart = l.loadChart(f)
		case f.name == "values.yaml" || f.name == "values.yml" || isValuesSchema(f.name):
			// The chart's own defaults and their schema: Helm loads them itself.
		case matchAny(cfg.Layout.CommonValues, f.name):
			if !l.gitIgnored(f) {
				ns.Values = append(ns.Values, l.valueFile(f, ScopeCommon))
			}
		case isYAML(f.name) && shared:
			l.diag(SeverityWarning, CodeFileUnrecognized, f.path, 0,
				fmt.Sprintf("YAML file matches no values pattern (%s) and is ignored", strings.Join(cfg.Layout.CommonValues, ", ")),
				"name it like common-values-<name>.yaml to share it with every cluster, or move it out of "+e.path+"/")
		}
	}
	// A folder without a chart is reported only when a cluster deploys it
	// (chart-missing).
	sortValues(ns.Values)
	return ns, nil
}

func (l *loader) loadChart(f entry) *Chart {
	data, err := l.repo.Files.Get(f.path).Data() // read once: diff reads dependencies from it too
	if err != nil {
		l.diag(SeverityError, CodeChartInvalid, f.path, 0, "cannot read the chart: "+err.Error(), ReadHint(err, "check the file's permissions"))
		return nil
	}
	var meta struct {
		Name    string `yaml:"name"`
		Version string `yaml:"version"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		l.diag(SeverityError, CodeChartInvalid, f.path, line, "Chart.yaml is not valid YAML: "+msg, "fix the YAML syntax")
		return nil
	}
	if meta.Name == "" {
		l.diag(SeverityError, CodeChartInvalid, f.path, 1, "Chart.yaml has no name", "add `name: <chart name>` (and `apiVersion: v2`, `version`)")
		return nil
	}
	return &Chart{Dir: path.Dir(f.path), Name: meta.Name, Version: meta.Version}
}

// newCluster is cluster name, in folder dir ("" when it has none), with
// what repotool.yaml says of it, without targets.
func (l *loader) newCluster(name, dir string) Cluster {
	cfg := &l.repo.Config
	cl := Cluster{
		Name:        name,
		Dir:         dir,
		KubeVersion: cfg.ClusterKubeVersion(name),
		APIVersions: cfg.ClusterAPIVersions(name),
		Destination: cfg.Clusters[name].Destination,
		Namespaces:  []string{},
	}
	if cl.Destination.Server == "" && cl.Destination.Name == "" {
		cl.Destination.Server = "https://kubernetes.default.svc"
	}
	return cl
}

func (l *loader) isSecret(name string) bool {
	for _, s := range l.repo.Config.Layout.SecretSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// within reports whether the repository path p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// sortValues orders one scope's files: plain before secret, then lexically.
func sortValues(vs []ValueFile) {
	slices.SortStableFunc(vs, func(a, b ValueFile) int {
		if a.Secret != b.Secret {
			if a.Secret {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Path, b.Path)
	})
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func isYAML(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}
