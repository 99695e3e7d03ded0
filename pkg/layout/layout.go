package layout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/config"
)

// Scope says which clusters a values file applies to.
type Scope string

const (
	// ScopeCommon values live in the namespace folder and apply to every cluster.
	ScopeCommon Scope = "common"
	// ScopeCluster values live in clusters/<cluster>/<namespace>/.
	ScopeCluster Scope = "cluster"
)

// ValueFile is one values file of a target.
type ValueFile struct {
	// Path is slash-separated and relative to the repository root.
	Path string `json:"path"`
	// Scope is common or cluster.
	Scope Scope `json:"scope"`
	// Secret is true for SOPS-encrypted files (by their suffix).
	Secret bool `json:"secret"`
}

// Chart is a namespace's Helm chart, as declared by its Chart.yaml.
type Chart struct {
	// Dir is the chart folder, relative to the repository root.
	Dir string `json:"dir"`
	// Name and Version come from Chart.yaml.
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Namespace is one folder under namespaces/.
type Namespace struct {
	Name string      `json:"name"`
	Dir  string      `json:"dir"`
	Tier config.Tier `json:"tier"`
	// Chart is nil when the folder has no (valid) Chart.yaml.
	Chart *Chart `json:"chart,omitempty"`
	// Values are the common values files, plain ones first, each class in
	// lexical order.
	Values []ValueFile `json:"values"`
	// Clusters that deploy this namespace, sorted.
	Clusters []string `json:"clusters"`
}

// Cluster is one folder under clusters/.
type Cluster struct {
	Name        string             `json:"name"`
	Dir         string             `json:"dir"`
	KubeVersion string             `json:"kubeVersion"`
	APIVersions []string           `json:"apiVersions,omitempty"`
	Destination config.Destination `json:"destination"`
	// Namespaces deployed to this cluster (targets), sorted.
	Namespaces []string `json:"namespaces"`
}

// Target is one (cluster, namespace) pair: what one Argo CD application
// deploys. It exists when clusters/<cluster>/<namespace>/ exists and
// namespaces/<namespace>/ has a chart.
type Target struct {
	Cluster   string      `json:"cluster"`
	Namespace string      `json:"namespace"`
	Tier      config.Tier `json:"tier"`
	// Dir is clusters/<cluster>/<namespace>.
	Dir string `json:"dir"`
	// ChartDir is namespaces/<namespace>.
	ChartDir    string   `json:"chartDir"`
	KubeVersion string   `json:"kubeVersion"`
	APIVersions []string `json:"apiVersions,omitempty"`
	// Values in merge order, later wins: common plain, common secret,
	// cluster plain, cluster secret; each class in lexical order.
	Values []ValueFile `json:"values"`
	// Errors are the layout's error diagnostics about the target's own
	// files: its cluster folder, its namespace folder (chart, common
	// values) and its values files. A target with errors is declared by
	// the repository but cannot be loaded as it is: every command fails it
	// (render, lint) or refuses to act on the repository (generate),
	// instead of leaving it out.
	Errors []Diagnostic `json:"errors,omitempty"`
}

// Name returns "cluster/namespace".
func (t *Target) Name() string { return t.Cluster + "/" + t.Namespace }

// Repo is a loaded repository.
type Repo struct {
	// FS is the file system the repository was loaded from.
	FS fs.FS `json:"-"`
	// Root is the repository's folder on disk when it was loaded with
	// LoadDir, "" otherwise. Settings that name folders (schema locations)
	// are relative to it.
	Root string `json:"-"`
	// Config is repotool.yaml merged over DefaultConfig.
	Config config.Config `json:"-"`
	// ConfigFile is the configuration file's path, "" when there is none.
	ConfigFile string `json:"configFile,omitempty"`
	// Clusters, Namespaces and Targets are sorted by name
	// (targets by cluster, then namespace).
	Clusters    []Cluster    `json:"clusters"`
	Namespaces  []Namespace  `json:"namespaces"`
	Targets     []Target     `json:"targets"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Files is the repository's file index, shared by every stage: each
	// file is read, and parsed, at most once.
	Files *Files `json:"-"`

	inputs *inputCache // what Inputs learnt of each chart folder
}

// Target returns the target for cluster and namespace.
func (r *Repo) Target(cluster, namespace string) (*Target, bool) {
	i, ok := slices.BinarySearchFunc(r.Targets, [2]string{cluster, namespace}, func(t Target, k [2]string) int {
		if c := strings.Compare(t.Cluster, k[0]); c != 0 {
			return c
		}
		return strings.Compare(t.Namespace, k[1])
	})
	if !ok {
		return nil, false
	}
	return &r.Targets[i], true
}

// Namespace returns the namespace named name.
func (r *Repo) Namespace(name string) (*Namespace, bool) {
	i, ok := slices.BinarySearchFunc(r.Namespaces, name, func(n Namespace, k string) int { return strings.Compare(n.Name, k) })
	if !ok {
		return nil, false
	}
	return &r.Namespaces[i], true
}

// Cluster returns the cluster named name.
func (r *Repo) Cluster(name string) (*Cluster, bool) {
	i, ok := slices.BinarySearchFunc(r.Clusters, name, func(c Cluster, k string) int { return strings.Compare(c.Name, k) })
	if !ok {
		return nil, false
	}
	return &r.Clusters[i], true
}

// HasErrors reports whether any diagnostic is an error.
func (r *Repo) HasErrors() bool {
	return slices.ContainsFunc(r.Diagnostics, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// DefaultMaxValuesSize is the default limit on a values file's size: a
// values file is configuration, and a huge one (50 MB took helm 48 s and
// 1 GB) is a mistake or an attack.
const DefaultMaxValuesSize = 8 << 20

// Options configure Load.
type Options struct {
	// MaxValuesSize bounds a values file, in bytes: a larger one is a
	// too-large error. Zero: DefaultMaxValuesSize; negative: no limit.
	MaxValuesSize int64
	// ConfigFile is the configuration file's path inside the repository.
	// Default config.FileName. A missing file means DefaultConfig.
	ConfigFile string
	// Config, when non-nil, is used instead of reading ConfigFile.
	Config *config.Config
	// Only, when set, loads one target of the repository and what it
	// needs: the configuration, its namespace folder (chart, common
	// values) and its cluster folder; no other namespace or cluster is
	// read. The checks of the target's files are the same; the
	// repository-wide ones (a namespace no cluster deploys, configuration
	// for a missing folder) are left to a full load (repotool lint). For
	// render -c -n and the Argo CD plugin, which renders one target per
	// call in repositories of thousands.
	Only *TargetRef
}

// TargetRef names a target.
type TargetRef struct{ Cluster, Namespace string }

// ErrNotRepository is returned when the file system has neither a
// namespaces nor a clusters folder.
var ErrNotRepository = errors.New("not a repotool repository")

// LoadDir loads the repository rooted at the directory dir. It is the entry
// point that touches the operating system; Load does the work.
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
	repo, err := Load(ctx, os.DirFS(dir), opts)
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
	l := &loader{ctx: ctx, fsys: fsys, repo: &Repo{FS: fsys, Files: NewFiles(fsys), inputs: &inputCache{}}, maxValues: cmp.Or(opts.MaxValuesSize, DefaultMaxValuesSize), only: opts.Only}
	if err := l.loadConfig(opts); err != nil {
		return nil, err
	}
	if err := l.load(); err != nil {
		return nil, err
	}
	sortDiagnostics(l.repo.Diagnostics)
	if l.repo.Diagnostics == nil {
		l.repo.Diagnostics = []Diagnostic{}
	}
	return l.repo, nil
}

type loader struct {
	ctx       context.Context
	maxValues int64
	fsys      fs.FS
	repo      *Repo
	cfgNode   *yaml.Node
	only      *TargetRef // Options.Only
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
	data, err := fs.ReadFile(l.fsys, real)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
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
	nsEntries, nsErr := l.readDir(lc.NamespacesDir)
	clEntries, clErr := l.readDir(lc.ClustersDir)
	if errors.Is(nsErr, fs.ErrNotExist) && errors.Is(clErr, fs.ErrNotExist) {
		return fmt.Errorf("%w: it has neither a %s/ nor a %s/ folder (is this the repository root? folder names can be changed in %s)",
			ErrNotRepository, lc.NamespacesDir, lc.ClustersDir, config.FileName)
	}
	for _, err := range []error{nsErr, clErr} {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
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
	for _, e := range clEntries {
		if l.only != nil && e.name != l.only.Cluster {
			continue
		}
		l.checkFolder(e, "cluster")
		if e.dir {
			if err := l.loadCluster(e); err != nil {
				return err
			}
		}
	}
	l.finish()
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
	for _, f := range entries {
		switch {
		case f.dir:
			l.checkValuesFolder(f, cfg.Layout.CommonValues)
		case f.name == "Chart.yaml":
			ns.Chart = l.loadChart(f)
		case f.name == "values.yaml" || f.name == "values.yml":
			// The chart's own defaults: Helm loads them itself.
		case matchAny(cfg.Layout.CommonValues, f.name):
			ns.Values = append(ns.Values, l.valueFile(f, ScopeCommon))
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
		l.diag(SeverityError, CodeChartInvalid, f.path, 0, "cannot read the chart: "+err.Error(), "check the file's permissions")
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

func (l *loader) loadCluster(e entry) error {
	cfg := &l.repo.Config
	cc := cfg.Clusters[e.name]
	cl := Cluster{
		Name:        e.name,
		Dir:         e.path,
		KubeVersion: cfg.ClusterKubeVersion(e.name),
		APIVersions: cfg.ClusterAPIVersions(e.name),
		Destination: cc.Destination,
		Namespaces:  []string{},
	}
	if cl.Destination.Server == "" && cl.Destination.Name == "" {
		cl.Destination.Server = "https://kubernetes.default.svc"
	}
	l.checkName(e, "cluster")
	entries, err := l.readDir(e.path)
	if err != nil {
		return err
	}
	for _, nsDir := range entries {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		if l.only != nil && nsDir.name != l.only.Namespace {
			continue
		}
		l.checkFolder(nsDir, "namespace")
		if !nsDir.dir {
			continue
		}
		t, ok, err := l.loadTarget(cl, nsDir)
		if err != nil {
			return err
		}
		if ok {
			cl.Namespaces = append(cl.Namespaces, t.Namespace)
			l.repo.Targets = append(l.repo.Targets, t)
		}
	}
	l.repo.Clusters = append(l.repo.Clusters, cl)
	return nil
}

func (l *loader) loadTarget(cl Cluster, e entry) (Target, bool, error) {
	cfg := &l.repo.Config
	nsDir := path.Join(cfg.Layout.NamespacesDir, e.name)
	ns, _ := l.repo.Namespace(e.name)
	t := Target{
		Cluster:     cl.Name,
		Namespace:   e.name,
		Tier:        cfg.NamespaceTier(e.name),
		Dir:         e.path,
		ChartDir:    nsDir,
		KubeVersion: cl.KubeVersion,
		APIVersions: cl.APIVersions,
	}
	if ns == nil || ns.Chart == nil {
		// The cluster folder declares the target: keep it, so that every
		// command fails it instead of acting as if it did not exist.
		l.diag(SeverityError, CodeChartMissing, e.path, 0,
			fmt.Sprintf("cluster %q deploys namespace %q, but %s/Chart.yaml does not exist or is invalid", cl.Name, e.name, nsDir),
			fmt.Sprintf("add the chart at %s/, or remove %s/ if the namespace is gone", nsDir, e.path))
	}
	var common []ValueFile
	if ns != nil {
		t.Tier, t.ChartDir, common = ns.Tier, ns.Dir, ns.Values
	}
	entries, err := l.readDir(e.path)
	if err != nil {
		return t, false, err
	}
	var own []ValueFile
	for _, f := range entries {
		switch {
		case f.dir && matchAny(cfg.Layout.ClusterValues, f.name):
			l.checkValuesFolder(f, cfg.Layout.ClusterValues)
		case f.dir:
			l.diag(SeverityWarning, CodeFileUnrecognized, f.path, 0,
				"folder is not part of the layout and is ignored",
				"values files go directly in "+e.path+"/; move or remove the folder")
		case matchAny(cfg.Layout.ClusterValues, f.name):
			own = append(own, l.valueFile(f, ScopeCluster))
		case isYAML(f.name):
			l.diag(SeverityWarning, CodeFileUnrecognized, f.path, 0,
				fmt.Sprintf("YAML file matches no values pattern (%s) and is ignored", strings.Join(cfg.Layout.ClusterValues, ", ")),
				"rename it like <env>-values-<name>.yaml (or <env>-values-<name>.secret.yaml), or change layout.clusterValues in "+config.FileName)
		}
	}
	sortValues(own)
	t.Values = slices.Concat(common, own)
	if ns != nil {
		ns.Clusters = append(ns.Clusters, cl.Name)
	}
	return t, true, nil
}

// checkValuesFolder reports f, a folder, when its name matches one of
// patterns, the values files of the folder it is in: whoever made it meant
// a values file, and leaving it out would render the target without the
// values it was meant to hold.
func (l *loader) checkValuesFolder(f entry, patterns []string) {
	if !matchAny(patterns, f.name) {
		return
	}
	l.diag(SeverityError, CodeNotAFile, f.path, 0,
		"a folder named like a values file: its name matches "+strings.Join(patterns, ", ")+", but only files are read as values",
		"make it a file of values, or rename or remove the folder")
}

// valueFile classifies and checks one values file.
func (l *loader) valueFile(f entry, scope Scope) ValueFile {
	vf := ValueFile{Path: f.path, Scope: scope, Secret: l.isSecret(f.name)}
	if st, err := fs.Stat(l.fsys, f.real); err == nil && l.maxValues > 0 && st.Size() > l.maxValues {
		l.diag(SeverityError, CodeTooLarge, f.path, 0,
			fmt.Sprintf("the values file has %d bytes, more than the limit of %d", st.Size(), l.maxValues),
			"split it or move data out of it; raise the limit with --max-values-size only if it really is this large")
		return vf
	}
	file := l.repo.Files.Get(f.path)
	if _, err := file.Data(); err != nil {
		l.diag(SeverityError, CodeValuesInvalid, f.path, 0, "cannot read the values file: "+err.Error(), "check the file's permissions")
		return vf
	}
	if msg, line := checkValuesYAML(file, vf.Secret); msg != "" {
		l.diag(SeverityError, CodeValuesInvalid, f.path, line, msg, "make it a YAML mapping of values (key: value), as helm --values expects")
		return vf
	}
	encrypted := file.Encrypted()
	switch {
	case vf.Secret && !encrypted:
		l.diag(SeverityError, CodeSecretNotEncrypted, f.path, 0,
			"secret values file is not SOPS-encrypted: its values are in plain text",
			"encrypt it in place with `sops --encrypt --in-place "+f.path+"` (and rotate any secret that was pushed)")
	case !vf.Secret && encrypted:
		l.diag(SeverityError, CodeSecretNotEncrypted, f.path, 0,
			"values file is SOPS-encrypted but not named as a secret, so it would be used without decryption",
			fmt.Sprintf("rename it to end in %s", l.repo.Config.Layout.SecretSuffixes[0]))
	}
	return vf
}

// checkValuesYAML returns a message and line when a values file's first
// document (the one helm reads) is not a YAML mapping (an empty file is
// fine). Messages about secret files never quote the file's content.
func checkValuesYAML(file *File, secret bool) (string, int) {
	docs, err := file.Docs()
	if err != nil && len(docs) == 0 {
		line, msg := yamlpos.ErrorLine(err)
		if secret {
			msg = yamlpos.Redact(msg)
		}
		return "not valid YAML: " + msg, line
	}
	if len(docs) == 0 {
		return "", 0
	}
	root := docs[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return "", 0
	}
	if root.Kind != yaml.MappingNode {
		return "the top level must be a mapping of values (key: value), not a " + kindName(root.Kind), root.Line
	}
	if key, first, again := duplicateKey(root); key != "" {
		return fmt.Sprintf("duplicate key %q (first at line %d): helm silently keeps only the last value; remove one", key, first), again
	}
	return "", 0
}

// duplicateKey finds the first mapping key that appears twice in the same
// mapping, anywhere in n, with the lines of both.
func duplicateKey(n *yaml.Node) (key string, first, again int) {
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				continue
			}
			if line, ok := seen[k.Value]; ok {
				return k.Value, line, k.Line
			}
			seen[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if key, first, again := duplicateKey(c); key != "" {
			return key, first, again
		}
	}
	return "", 0, 0
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value"
	case yaml.AliasNode:
		return "alias"
	default:
		return "document"
	}
}

// checkFolder reports a file that stands where the layout expects a
// cluster or namespace folder: a name that is a valid folder name and has no
// extension (README.md, .gitkeep and the like are left alone). A folder
// replaced by a file must not look like a folder that is gone, or generate
// would prune what it deployed.
func (l *loader) checkFolder(e entry, what string) {
	if e.dir || !isDNSLabel(e.name) {
		return
	}
	l.diag(SeverityError, CodeNotAFolder, e.path, 0,
		fmt.Sprintf("%s is a file where a %s folder is expected", e.path, what),
		fmt.Sprintf("if the %s folder was replaced by mistake, restore it; otherwise rename the file with an extension (like %s.md) or move it", what, e.name))
}

// checkName reports a cluster or namespace folder whose name is not a DNS
// label: Kubernetes refuses it as a namespace, and Argo CD as part of an
// Application's name.
func (l *loader) checkName(e entry, what string) {
	if isDNSLabel(e.name) {
		return
	}
	fix := "rename the folder"
	if s := dnsLabel(e.name); s != "" {
		fix += " to " + s
	}
	l.diag(SeverityError, CodeNameInvalid, e.path, 0,
		fmt.Sprintf("%q is not a valid %s name: it must be a DNS label (lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit)", e.name, what),
		fix+" (and any repotool.yaml entry that names it)")
}

// dnsLabel suggests a DNS label for s: lower case, '_' and '.' as '-'; ""
// when none can be made.
func dnsLabel(s string) string {
	s = strings.Trim(strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r == '_' || r == '.' || r == ' ':
			return '-'
		}
		return r
	}, s), "-")
	if len(s) > 63 {
		s = strings.TrimRight(s[:63], "-")
	}
	if !isDNSLabel(s) {
		return ""
	}
	return s
}

// isDNSLabel reports whether s is a DNS-1123 label (lowercase letters,
// digits and '-', at most 63, starting and ending alphanumeric): what
// Kubernetes requires of a namespace name.
func isDNSLabel(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

func (l *loader) isSecret(name string) bool {
	for _, s := range l.repo.Config.Layout.SecretSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// finish reports unused namespaces and configuration entries and sorts.
func (l *loader) finish() {
	r := l.repo
	for _, ns := range r.Namespaces {
		if l.only != nil {
			break // repository-wide: a full load checks it
		}
		if ns.Chart != nil && len(ns.Clusters) == 0 {
			l.diag(SeverityWarning, CodeNamespaceUnused, ns.Dir+"/Chart.yaml", 0,
				fmt.Sprintf("namespace %q has a chart but no cluster deploys it", ns.Name),
				fmt.Sprintf("add %s/<cluster>/%s/ to deploy it, or remove %s/", r.Config.Layout.ClustersDir, ns.Name, ns.Dir))
		}
	}
	if r.ConfigFile != "" && l.only == nil {
		for _, name := range slices.Sorted(maps.Keys(r.Config.Clusters)) {
			if _, ok := r.Cluster(name); !ok {
				l.diag(SeverityWarning, CodeConfigUnused, r.ConfigFile, yamlpos.Line(l.cfgNode, 0, "clusters", name),
					fmt.Sprintf("cluster %q is configured but %s/%s/ does not exist", name, r.Config.Layout.ClustersDir, name),
					"remove the entry or fix the name")
			}
		}
		for _, name := range slices.Sorted(maps.Keys(r.Config.Namespaces)) {
			if _, ok := r.Namespace(name); !ok {
				l.diag(SeverityWarning, CodeConfigUnused, r.ConfigFile, yamlpos.Line(l.cfgNode, 0, "namespaces", name),
					fmt.Sprintf("namespace %q is configured but %s/%s/ does not exist", name, r.Config.Layout.NamespacesDir, name),
					"remove the entry or fix the name")
			}
		}
	}
	if r.Clusters == nil {
		r.Clusters = []Cluster{}
	}
	if r.Namespaces == nil {
		r.Namespaces = []Namespace{}
	}
	if r.Targets == nil {
		r.Targets = []Target{}
	}
	slices.SortFunc(r.Targets, func(a, b Target) int {
		if c := strings.Compare(a.Cluster, b.Cluster); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace, b.Namespace)
	})
	sortDiagnostics(r.Diagnostics)
	for i := range r.Targets {
		t := &r.Targets[i]
		for _, d := range r.Diagnostics {
			// About the target's folders, what is in them, or a folder
			// that holds them (a cluster folder with an invalid name).
			if d.Severity == SeverityError && (within(d.File, t.Dir) || within(d.File, t.ChartDir) || within(t.Dir, d.File) || within(t.ChartDir, d.File)) {
				t.Errors = append(t.Errors, d)
			}
		}
	}
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

// Shard is one of N deterministic parts of a repository's targets, for
// spreading render and lint over CI jobs: every target of a namespace is in
// the same part (its chart is loaded once), chosen by a hash of the
// namespace's name, so a namespace stays in its part when others come and
// go. I is 1-based.
type Shard struct{ I, N int }

// ParseShard parses "i/n".
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.I, &sh.N); err != nil || fmt.Sprintf("%d/%d", sh.I, sh.N) != s || sh.N < 1 || sh.I < 1 || sh.I > sh.N {
		return Shard{}, fmt.Errorf("shard %q: give i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return sh, nil
}

// Holds reports whether the target is in the shard; every target is in the
// zero Shard.
func (s Shard) Holds(t Target) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(t.Namespace))
	return int(h.Sum32()%uint32(s.N))+1 == s.I
}

// Targets returns the targets of ts in the shard, in order.
func (s Shard) Targets(ts []Target) []Target {
	var out []Target
	for _, t := range ts {
		if s.Holds(t) {
			out = append(out, t)
		}
	}
	return out
}

// First reports whether this is the first shard (or no sharding): the one
// that reports what belongs to no target.
func (s Shard) First() bool { return s.N <= 1 || s.I == 1 }
