package layout

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// appDoc is what repotool reads of an Application: what decides its
// target and what it renders. Fields that change rendering and that
// repotool does not follow yet are named by unsupported, never passed by.
type appDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	meta       struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	Spec struct {
		Destination appDestination `yaml:"destination"`
		Source      *appSource     `yaml:"source"`
		Sources     []appSource    `yaml:"sources"`
		Project     string         `yaml:"project"`
	} `yaml:"spec"`

	file             string
	line, destLine   int
	node, sourceNode *yaml.Node
	// Of spec.sources: the one that renders is Spec.Source (at
	// sourceNode), refs the others' repositories by their ref names;
	// several that render are sourcesErr (at sourcesLine).
	multi       bool
	refs        map[string]string
	sourcesErr  string
	sourcesLine int
	// An ApplicationSet in file made it, from parameters that come from
	// setInputs.
	fromSet   bool
	setInputs []string
}

type appDestination struct {
	Server    string `yaml:"server"`
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
}

type appSource struct {
	Ref            string   `yaml:"ref"`
	RepoURL        string   `yaml:"repoURL"`
	Path           string   `yaml:"path"`
	TargetRevision string   `yaml:"targetRevision"`
	Helm           *appHelm `yaml:"helm"`
}

type appHelm struct {
	ValueFiles              []string      `yaml:"valueFiles"`
	IgnoreMissingValueFiles bool          `yaml:"ignoreMissingValueFiles"`
	Values                  string        `yaml:"values"`
	ValuesObject            yaml.Node     `yaml:"valuesObject"` // a value, not a pointer: yaml.v3 leaves a *Node empty
	Parameters              []appHelmPara `yaml:"parameters"`
	FileParameters          []appFilePara `yaml:"fileParameters"`
	SkipTests               bool          `yaml:"skipTests"`
	ReleaseName             string        `yaml:"releaseName"`
	Namespace               string        `yaml:"namespace"`
	KubeVersion             string        `yaml:"kubeVersion"`
	APIVersions             []string      `yaml:"apiVersions"`
	SkipCrds                bool          `yaml:"skipCrds"`
	SkipSchemaValidation    bool          `yaml:"skipSchemaValidation"`
	Version                 string        `yaml:"version"`
	PassCredentials         bool          `yaml:"passCredentials"`

	valuesNode *yaml.Node // values' own, for its line
}

type appFilePara struct {
	Name string `yaml:"name"`
	Path string `yaml:"path"`
}

type appHelmPara struct {
	Name        string `yaml:"name"`
	Value       string `yaml:"value"`
	ForceString bool   `yaml:"forceString"`
}

// managedBy is the label of the objects repotool generate writes.
const managedBy = "app.kubernetes.io/managed-by"

// The fields repotool reads, and those it knows change nothing it
// renders (Argo CD's sync, health and display settings); any other field
// of the spec, a source or its helm is named as not followed.
var (
	appSpecFields   = []string{"destination", "source", "sources", "project", "syncPolicy", "ignoreDifferences", "info", "revisionHistoryLimit"}
	appSourceFields = []string{"repoURL", "path", "targetRevision", "helm", "ref", "name"}
	appHelmFields   = []string{
		"valueFiles", "ignoreMissingValueFiles", "values", "valuesObject", "parameters", "releaseName", "namespace",
		"kubeVersion", "apiVersions", "skipCrds", "skipSchemaValidation", "version", "passCredentials", "fileParameters", "skipTests",
	}
)

// readApps reads the Applications of the file f, and those its
// ApplicationSets make; an Application repotool cannot read, or an
// ApplicationSet it cannot expand, is an error at its line. Other kinds
// (an AppProject beside them) are not targets.
func (l *loader) readApps(f appFile) []appDoc {
	p := f.path
	docs, err := l.repo.Files.Get(p).Docs()
	if err != nil {
		line, msg := yamlpos.ErrorLine(err)
		l.diag(SeverityError, CodeApplicationInvalid, p, line, "cannot read the file, which applications.paths says holds Applications: "+msg,
			ReadHint(err, "fix the YAML syntax"))
		return nil
	}
	var out []appDoc
	for _, n := range docs {
		if n.Kind != yaml.MappingNode {
			continue // an empty document
		}
		var a appDoc
		a.APIVersion, a.Kind = scalarAt(n, "apiVersion"), scalarAt(n, "kind")
		if !strings.HasPrefix(a.APIVersion, "argoproj.io/") {
			continue // not Argo CD's: another kind of file the glob finds
		}
		a.file, a.line, a.node = p, n.Line, n
		switch a.Kind {
		case "Application":
		case "ApplicationSet":
			out = append(out, l.expandSet(p, n, f.cluster)...)
			continue
		default:
			continue
		}
		if msg, line := a.decode(); msg != "" {
			l.diag(SeverityError, CodeApplicationInvalid, p, line, msg, "write it as Argo CD's Application reference describes")
			continue
		}
		if a.meta.Labels[managedBy] == "repotool" {
			continue // repotool generate's: the folders' targets are its
		}
		out = append(out, a)
	}
	return out
}

// scalarAt is the scalar value of key in the mapping n, "" when it has
// none (or another kind of value).
func scalarAt(n *yaml.Node, key string) string {
	if v, _ := yamlpos.Lookup(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// decode reads the Application's name and spec from its node, with the
// line of a problem.
func (a *appDoc) decode() (string, int) {
	if md, _ := yamlpos.Lookup(a.node, "metadata"); md != nil {
		if err := md.Decode(&a.meta); err != nil {
			return "metadata: " + err.Error(), md.Line
		}
	}
	if a.meta.Name == "" || !isDNSSubdomain(a.meta.Name) {
		return fmt.Sprintf("Application has no valid metadata.name (%q)", a.meta.Name), a.line
	}
	spec, _ := yamlpos.Lookup(a.node, "spec")
	if spec == nil || spec.Kind != yaml.MappingNode {
		return fmt.Sprintf("Application %q has no spec", a.meta.Name), a.line
	}
	if err := a.node.Decode(a); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return fmt.Sprintf("Application %q: %s", a.meta.Name, msg), line
	}
	a.destLine = yamlpos.Line(spec, a.line, "destination")
	a.sourceNode, _ = yamlpos.Lookup(spec, "source")
	if ns, _ := yamlpos.Lookup(spec, "sources"); ns != nil && len(a.Spec.Sources) > 0 {
		a.pickSource(ns)
	}
	if h := a.Spec.Source; h != nil && h.Helm != nil {
		h.Helm.valuesNode, _ = yamlpos.Lookup(a.sourceNode, "helm", "values")
	}
	return "", 0
}

// pickSource reads spec.sources (the node ns), as Argo CD reads them in
// place of spec.source: the sources that only give a ref are refs, and the
// one other renders. Several that render are not followed yet.
func (a *appDoc) pickSource(ns *yaml.Node) {
	a.multi, a.refs, a.Spec.Source, a.sourceNode = true, map[string]string{}, nil, nil
	for i := range a.Spec.Sources {
		src, node := &a.Spec.Sources[i], ns.Content[i]
		if src.Ref != "" {
			a.refs[src.Ref] = src.RepoURL
		}
		if src.Ref != "" && src.Path == "" && yamlpos.Line(node, 0, "chart") == 0 {
			continue // only a ref: it renders nothing
		}
		if a.Spec.Source != nil {
			a.sourcesErr, a.sourcesLine = "spec.sources: several sources render, whose objects Argo CD joins: repotool renders one source a target, for now", node.Line
			continue
		}
		a.Spec.Source, a.sourceNode = src, node
	}
}

// unsupported names the first field of the Application that changes what
// it renders and that repotool does not follow, with its line; "" when
// there is none.
func (a *appDoc) unsupported() (string, int) {
	spec, _ := yamlpos.Lookup(a.node, "spec")
	if k, line := unknownKey(spec, appSpecFields); k != "" {
		return fmt.Sprintf("spec.%s: repotool does not follow this field yet", k), line
	}
	where, nodes := "spec.source", []*yaml.Node{a.sourceNode}
	if a.multi {
		if a.sourcesErr != "" {
			return a.sourcesErr, a.sourcesLine
		}
		ns, _ := yamlpos.Lookup(spec, "sources")
		where, nodes = "spec.sources[]", ns.Content
	}
	for _, n := range nodes {
		if k, line := unknownKey(n, appSourceFields); k != "" {
			return fmt.Sprintf("%s.%s: %s", where, k, sourceKindNote(k)), line
		}
		if h, _ := yamlpos.Lookup(n, "helm"); h != nil {
			if k, line := unknownKey(h, appHelmFields); k != "" {
				return fmt.Sprintf("%s.helm.%s: repotool does not follow this field yet", where, k), line
			}
		}
	}
	return "", 0
}

// sourceKindNote is why a source field is not followed.
func sourceKindNote(k string) string {
	switch k {
	case "chart":
		return "a chart from a chart repository or registry: repotool renders charts in this repository only, for now"
	case "directory":
		return "a folder of plain manifests: repotool does not render directory sources yet"
	case "kustomize":
		return "a kustomization: repotool does not render kustomize sources yet"
	case "plugin":
		return "a config management plugin runs a program, which repotool never does for repository content"
	}
	return "repotool does not follow this field yet"
}

// unknownKey is the first key of the mapping n (in the file's order) not
// in known, with its line.
func unknownKey(n *yaml.Node, known []string) (string, int) {
	if n == nil || n.Kind != yaml.MappingNode {
		return "", 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(known, k.Value) {
			return k.Value, k.Line
		}
	}
	return "", 0
}

// values are the Application's inline values as YAML: valuesObject, else
// values (Argo CD's ValuesYAML).
func (h *appHelm) values() ([]byte, error) {
	if h.hasValuesObject() {
		var b bytes.Buffer
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&h.ValuesObject); err != nil {
			return nil, err
		}
		return b.Bytes(), enc.Close()
	}
	return []byte(h.Values), nil
}

// digest is a hash of the Application's document as YAML, comments and
// layout aside: equal for two revisions that say the same.
func (a *appDoc) digest() string {
	data := a.encode()
	if data == nil {
		return "" // never equal: the target counts as changed
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// encode is the Application's document as YAML, without comments; nil
// when it cannot be written.
func (a *appDoc) encode() []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(stripComments(a.node)); err != nil {
		return nil
	}
	if err := enc.Close(); err != nil {
		return nil
	}
	return b.Bytes()
}

// stripComments is a copy of n without comments.
func stripComments(n *yaml.Node) *yaml.Node {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = stripComments(k)
	}
	return &c
}

// hasValuesObject reports whether valuesObject is set (and not null).
func (h *appHelm) hasValuesObject() bool {
	return h.ValuesObject.Kind != 0 && h.ValuesObject.Tag != "!!null"
}

// valuesLine is the line of the Application's file where values' first
// line is.
func (h *appHelm) valuesLine() int {
	if h.hasValuesObject() {
		return h.ValuesObject.Line
	}
	if n := h.valuesNode; n != nil && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Line + 1
	} else if n != nil {
		return n.Line
	}
	return 0
}

// isDNSSubdomain reports whether s is a Kubernetes object name.
func isDNSSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !isDNSLabel(part) {
			return false
		}
	}
	return true
}

// chartDir is the source's folder in the repository, cleaned ("." for its
// root); "" when it leaves the repository.
func chartDir(p string) string {
	if c := path.Clean(strings.TrimSpace(p)); c == ".." || strings.HasPrefix(c, "../") {
		return ""
	}
	return cmp.Or(path.Clean("/" + strings.TrimSpace(p))[1:], ".")
}
