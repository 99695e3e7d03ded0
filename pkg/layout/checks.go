package layout

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/internal/helmvalues"
	"github.com/repotool/repotool/internal/yamlpos"
)

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
// gitIgnored reports a values file Git ignores (Options.Ignored), left
// out of every target, with a diagnostic.
func (l *loader) gitIgnored(f entry) bool {
	if l.ignored == nil || !l.ignored(f.path) {
		return false
	}
	l.diag(l.ignoredIs, CodeGitIgnored, f.path, 0,
		"Git ignores this values file: Argo CD renders from Git and never sees it, so it is left out of every target",
		"commit it (git add -f "+f.path+") if it is meant to deploy; keep a local override out of the repository's folders")
	return true
}

func (l *loader) valueFile(f entry, scope Scope) ValueFile {
	if _, ok := l.checked[f.path]; ok { // a file several targets list
		return ValueFile{Path: f.path, Scope: scope, Secret: l.isSecret(f.name)}
	}
	l.checked[f.path] = struct{}{}
	return l.checkValueFile(f, scope)
}

// ownValueFile is valueFile for a file of a target's own folder, which
// no other target lists: not remembered (a repository has thousands).
func (l *loader) ownValueFile(f entry) ValueFile {
	return l.checkValueFile(f, ScopeCluster)
}

// checkValueFile checks the values file f, once.
func (l *loader) checkValueFile(f entry, scope Scope) ValueFile {
	return l.checkValueFileAs(f, scope, l.isSecret(f.name))
}

// checkValueFileAs is checkValueFile, secret or not as the caller says (an
// Application's values file is secret by its name, or by helm-secrets'
// secrets:// or being SOPS-encrypted).
func (l *loader) checkValueFileAs(f entry, scope Scope, secret bool) ValueFile {
	vf := ValueFile{Path: f.path, Scope: scope, Secret: secret}
	if st, err := fs.Stat(l.fsys, f.real); err == nil && l.maxValues > 0 && st.Size() > l.maxValues {
		l.diag(SeverityError, CodeTooLarge, f.path, 0,
			fmt.Sprintf("the values file has %d bytes, more than the limit of %d", st.Size(), l.maxValues),
			"split it or move data out of it; raise the limit with --max-values-size only if it really is this large")
		return vf
	}
	file := l.repo.Files.Get(f.path)
	if _, err := file.Data(); err != nil {
		l.diag(SeverityError, CodeValuesInvalid, f.path, 0, "cannot read the values file: "+err.Error(), ReadHint(err, "check the file's permissions"))
		return vf
	}
	l.checkDocuments(file, vf.Secret)
	if msg, line, hint := checkValuesYAML(file, vf.Secret, l.helm4); msg != "" {
		l.diag(SeverityError, CodeValuesInvalid, f.path, line, msg, cmp.Or(hint, "make it a YAML mapping of values (key: value), as helm --values expects"))
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

// ReadHint is the fix for a file that could not be read: fallback, unless
// it is not a regular file or is too large. lint's scans give it too.
func ReadHint(err error, fallback string) string {
	switch {
	case errors.Is(err, fsutil.ErrNotRegular):
		return "replace it with a regular file, or remove it: repotool never reads named pipes, devices or sockets, which can block a read forever"
	case errors.Is(err, fsutil.ErrTooLarge):
		return "split it or move data out of it"
	}
	return fallback
}

// checkDocuments warns about a values file of several YAML documents:
// Helm 3 reads the first and Helm 4 merges them all, so moving to Helm 4
// changes the values it deploys.
func (l *loader) checkDocuments(file *File, secret bool) {
	docs, _ := file.Docs()
	if len(docs) < 2 {
		return
	}
	lines := make([]string, len(docs))
	for i, d := range docs {
		lines[i] = strconv.Itoa(d.Line)
	}
	reads := "Helm 3, which this repository renders as, reads only the first; Helm 4 would merge all of them"
	if l.helm4 {
		reads = "Helm 4, which this repository renders as, merges all of them, later ones winning; Helm 3 reads only the first"
	}
	hint := "merge them into one document, or move the later ones into values files of their own"
	if secret {
		hint = "split it into one encrypted values file per document"
	}
	l.diag(SeverityWarning, CodeValuesDocuments, file.Path, docs[1].Line,
		fmt.Sprintf("the values file has %d YAML documents (from lines %s): %s", len(docs), strings.Join(lines, ", "), reads), hint)
}

// checkValuesYAML returns a message, line and fix when a values file does
// not load as the Helm that renders reads it (an empty file is fine): the
// first document (Helm 3) or every one (Helm 4) must be a YAML mapping
// without a key set twice, and the file must parse as Helm parses it
// (helmvalues: aliases expanded within its limit, keys it can convert).
// Messages about secret files never quote the file's content; their
// content is checked as encrypted, its decrypted form by render.
func checkValuesYAML(file *File, secret, helm4 bool) (msg string, line int, hint string) {
	docs, err := file.Docs()
	read, err := helmvalues.Counted(docs, err, helm4)
	switch {
	case err != nil:
		line, msg := yamlpos.ErrorLine(err)
		if secret {
			msg = yamlpos.Redact(msg)
		}
		return "not valid YAML: " + msg, line, ""
	case len(docs) == 0:
		return "", 0, ""
	case helm4 && secret && len(docs) > 1:
		return "a secret values file of several YAML documents, which Helm 4 would merge: repotool decrypts one document per file (SOPS keeps one set of " +
				"metadata)", docs[1].Line,
			"split it into one encrypted values file per document"
	}
	for _, root := range read {
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			continue
		}
		if root.Kind != yaml.MappingNode {
			return "the top level must be a mapping of values (key: value), not a " + kindName(root.Kind), root.Line, ""
		}
		if key, first, again := duplicateKey(root); key != "" {
			return fmt.Sprintf("duplicate key %q (first at line %d): helm silently keeps only the last value; remove one", key, first), again, ""
		}
	}
	if secret {
		return "", 0, ""
	}
	data, _ := file.Data()
	if _, err := helmvalues.Read(data, helm4); err != nil {
		if strings.Contains(err.Error(), "excessive aliasing") {
			return "the file's YAML aliases expand beyond what Helm's YAML parser allows (document contains excessive aliasing): helm would refuse it", 0,
				"write the values out, or with fewer aliases: a small file whose aliases refer to each other can expand to gigabytes"
		}
		line, msg := yamlpos.ErrorLine(err)
		return "Helm cannot read it: " + msg, line, ""
	}
	return "", 0, ""
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
		fmt.Sprintf("%q is not a valid %s name: it must be a DNS label (lower-case letters, digits and '-', at most 63, starting and ending with a letter or "+
			"digit)", e.name, what),
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

// about reports whether d is about one of dirs, what is in it, or a folder
// that holds it (a cluster folder with an invalid name).
func about(d Diagnostic, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(dir string) bool { return within(d.File, dir) || within(dir, d.File) })
}

// finish reports unused namespaces and configuration entries and sorts.
func (l *loader) finish() {
	r := l.repo
	for _, ns := range r.Namespaces {
		if l.only != nil {
			break // repository-wide: a full load checks it
		}
		switch {
		case ns.Chart == nil || len(ns.Clusters) > 0:
		case r.Config.Namespaces[ns.Name].Chart.Path != "":
			l.diag(SeverityWarning, CodeNamespaceUnused, r.ConfigFile, yamlpos.Line(l.cfgNode, 0, "namespaces", ns.Name, "chart"),
				fmt.Sprintf("namespace %q has a chart (%s) but no cluster deploys it", ns.Name, ns.Chart.Dir),
				fmt.Sprintf("add %s/<cluster>/%s/ to deploy it, or remove namespaces.%s", r.Config.Layout.ClustersDir, ns.Name, ns.Name))
		default:
			l.diag(SeverityWarning, CodeNamespaceUnused, ns.Dir+"/Chart.yaml", 0,
				fmt.Sprintf("namespace %q has a chart but no cluster deploys it", ns.Name),
				fmt.Sprintf("add %s/<cluster>/%s/ to deploy it, or remove %s/", r.Config.Layout.ClustersDir, ns.Name, ns.Dir))
		}
	}
	if l.only == nil {
		l.unread()
	}
	if r.ConfigFile != "" && l.only == nil {
		for _, name := range slices.Sorted(maps.Keys(r.Config.Clusters)) {
			if _, ok := r.Cluster(name); !ok {
				msg := fmt.Sprintf("cluster %q is configured but %s/%s/ does not exist", name, r.Config.Layout.ClustersDir, name)
				if r.Config.Applications.Enabled() {
					msg += ", and no Application deploys to it"
				}
				l.diag(SeverityWarning, CodeConfigUnused, r.ConfigFile, yamlpos.Line(l.cfgNode, 0, "clusters", name), msg, "remove the entry or fix the name")
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
		return strings.Compare(a.Short(), b.Short())
	})
	sortDiagnostics(r.Diagnostics)
	for i := range r.Targets {
		t := &r.Targets[i]
		for _, d := range r.Diagnostics {
			// About the target's folders, what is in them, or a folder
			// that holds them (a cluster folder with an invalid name), or a
			// values file it reads or would read.
			if d.Severity != SeverityError || slices.Contains(t.Errors, d) {
				continue
			}
			reads := slices.ContainsFunc(t.Values, func(v ValueFile) bool { return v.Path == d.File }) || l.wouldRead(t, d.File)
			if about(d, t.Folders()) || within(t.Dir, d.File) || reads {
				t.Errors = append(t.Errors, d)
			}
		}
	}
}
