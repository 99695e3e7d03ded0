package appset

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// Env is what an ApplicationSet's generators may read: the repository
// under check (for the git generator) and the clusters of the Argo CD
// that reads the ApplicationSet (for the clusters generator). Nothing
// else: no network, no program, no other repository.
type Env struct {
	// Paths lists the repository's files (slash-separated, sorted) that
	// Git carries, hidden folders' too; Read reads one.
	Paths func() ([]string, error)
	Read  func(path string) ([]byte, error)
	// OwnRepo says why a git generator's repoURL is not the repository
	// under check, "" when it is.
	OwnRepo func(repoURL string) string
	// Clusters are the clusters the Argo CD knows, as its cluster Secrets
	// (or its own, in-cluster one) describe them.
	Clusters []Cluster
}

// Cluster is a cluster an Argo CD knows.
type Cluster struct {
	Name, Server string
	// Labels and Annotations are its Secret's; Secret is false for the
	// cluster Argo CD runs in when no Secret describes it (no metadata,
	// and a clusters generator with a selector leaves it out).
	Labels, Annotations map[string]string
	Secret              bool
}

// Result is what an ApplicationSet makes.
type Result struct {
	// Apps are the Applications, in the order the generators make them.
	Apps []App
}

// App is an Application an ApplicationSet makes.
type App struct {
	// Doc is its document, each node at the line of the template (or
	// templatePatch) it comes from.
	Doc *yaml.Node
	// Inputs are the files its parameters come from and the folders
	// whose new files could change them (a merge's), sorted: with the
	// ApplicationSet's file, all a change to which may change it.
	Inputs []string
}

// Error is what is wrong with an ApplicationSet, at its line.
type Error struct {
	Line int
	Msg  string
	// Unsupported is set when Argo CD could make the Applications but
	// repotool does not (a generator that needs a live API).
	Unsupported bool
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// MaxApplications bounds how many Applications one ApplicationSet makes.
const MaxApplications = 10000

// The fields of an ApplicationSet's spec that repotool reads, and those
// that change no Application it makes (how and when the controller
// applies them).
var specFields = []string{
	"generators", "template", "goTemplate", "goTemplateOptions", "templatePatch",
	"syncPolicy", "strategy", "preservedFields", "ignoreApplicationDifferences", "applyNestedSelectors",
}

// set is an ApplicationSet being expanded.
type set struct {
	ctx       context.Context
	env       Env
	r         renderer
	template  *yaml.Node
	patch     string
	patchLine int
	res       Result
	globs     []string // the patterns the git generators list with
	line      int      // the document's
}

// Expand makes the Applications of the ApplicationSet document n, as Argo
// CD 3.6's controller would with env's repository and clusters.
func Expand(ctx context.Context, n *yaml.Node, env Env) (Result, error) {
	s := &set{ctx: ctx, env: env, line: n.Line}
	spec, _ := yamlpos.Lookup(n, "spec")
	if spec == nil || spec.Kind != yaml.MappingNode {
		return Result{}, &Error{Line: n.Line, Msg: "ApplicationSet has no spec"}
	}
	if err := s.readSpec(spec); err != nil {
		return Result{}, err
	}
	gens, _ := yamlpos.Lookup(spec, "generators")
	if gens == nil || gens.Kind != yaml.SequenceNode || len(gens.Content) == 0 {
		return Result{}, &Error{Line: yamlpos.Line(spec, n.Line, "generators"), Msg: "ApplicationSet has no generators"}
	}
	for _, g := range gens.Content {
		tmpl, err := s.generatorTemplate(g)
		if err != nil {
			return Result{}, err
		}
		params, err := s.generate(g, nil, 0)
		if err != nil {
			return Result{}, err
		}
		for _, p := range params {
			if err := s.makeApp(tmpl, p); err != nil {
				return Result{}, err
			}
		}
	}
	return s.res, nil
}

// readSpec reads the options, template and templatePatch.
func (s *set) readSpec(spec *yaml.Node) error {
	for i := 0; i+1 < len(spec.Content); i += 2 {
		if k := spec.Content[i]; !slices.Contains(specFields, k.Value) {
			return &Error{Line: k.Line, Msg: fmt.Sprintf("spec.%s: not a field of an ApplicationSet that repotool knows", k.Value)}
		}
	}
	var o struct {
		GoTemplate        bool     `yaml:"goTemplate"`
		GoTemplateOptions []string `yaml:"goTemplateOptions"`
		TemplatePatch     *string  `yaml:"templatePatch"`
	}
	if err := spec.Decode(&o); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return &Error{Line: line, Msg: msg}
	}
	s.r = renderer{ctx: s.ctx, goTemplate: o.GoTemplate, options: o.GoTemplateOptions, parsed: map[string]*template.Template{}}
	if o.TemplatePatch != nil {
		s.patch = *o.TemplatePatch
		pn, _ := yamlpos.Lookup(spec, "templatePatch")
		s.patchLine = pn.Line
		if pn.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			s.patchLine++
		}
	}
	t, _ := yamlpos.Lookup(spec, "template")
	if t == nil || t.Kind != yaml.MappingNode {
		return &Error{Line: yamlpos.Line(spec, spec.Line, "template"), Msg: "ApplicationSet has no template"}
	}
	s.template = t
	return nil
}

// makeApp renders the template with one parameter set into an
// Application.
func (s *set) makeApp(tmpl *yaml.Node, ps pset) error {
	params := ps.p
	if len(s.res.Apps) >= MaxApplications {
		return &Error{Line: s.line, Msg: fmt.Sprintf("the ApplicationSet makes more than %d Applications", MaxApplications)}
	}
	app := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: tmpl.Line, Column: tmpl.Column}
	add := func(k string, v *yaml.Node) {
		app.Content = append(app.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: v.Line}, v)
	}
	add("apiVersion", scalar("argoproj.io/v1alpha1", tmpl.Line))
	add("kind", scalar("Application", tmpl.Line))
	for i := 0; i+1 < len(tmpl.Content); i += 2 {
		k, v := tmpl.Content[i], tmpl.Content[i+1]
		if k.Value != "metadata" && k.Value != "spec" {
			return &Error{Line: k.Line, Msg: fmt.Sprintf("template.%s: an ApplicationSet's template has metadata and spec", k.Value)}
		}
		add(k.Value, v)
	}
	if len(params) > 0 { // as Argo CD: no parameters, no rendering
		rendered, err := s.r.renderNode(app, params)
		if err != nil {
			return err
		}
		app = rendered
	}
	if s.patch != "" {
		p, err := s.r.replace(s.patch, params)
		if err != nil {
			return &Error{Line: s.patchLine, Msg: "templatePatch: " + err.Error()}
		}
		if app, err = patch(app, p, s.patchLine); err != nil {
			return err
		}
	}
	inputs := slices.Clone(ps.from)
	slices.Sort(inputs)
	s.res.Apps = append(s.res.Apps, App{Doc: app, Inputs: slices.Compact(inputs)})
	return nil
}

func scalar(v string, line int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: line}
}

// generatorKinds are the generators repotool expands; others is why it
// does not expand the rest.
var (
	generatorKinds = []string{"list", "clusters", "git", "matrix", "merge"}
	others         = map[string]string{
		"scmProvider":             "lists the repositories of an SCM provider's API",
		"pullRequest":             "lists the open pull requests of an SCM provider's API",
		"clusterDecisionResource": "reads a resource in the cluster Argo CD runs in",
		"plugin":                  "calls a plugin's HTTP service",
		"oci":                     "reads an OCI registry",
	}
)

// kindOf is the one generator a generator node names, with its node.
func kindOf(g *yaml.Node) (string, *yaml.Node, error) {
	if g.Kind != yaml.MappingNode {
		return "", nil, &Error{Line: g.Line, Msg: "a generator is a mapping with one generator"}
	}
	var kind string
	var node *yaml.Node
	for i := 0; i+1 < len(g.Content); i += 2 {
		k := g.Content[i]
		switch {
		case k.Value == "selector":
		case others[k.Value] != "":
			return "", nil, &Error{Line: k.Line, Unsupported: true,
				Msg: fmt.Sprintf("the %s generator %s, which repotool never does offline: the Applications it makes are not checked", k.Value, others[k.Value])}
		case !slices.Contains(generatorKinds, k.Value):
			return "", nil, &Error{Line: k.Line, Msg: fmt.Sprintf("%s: not a generator Argo CD knows (%s)", k.Value, strings.Join(generatorKinds, ", "))}
		case node != nil:
			return "", nil, &Error{Line: k.Line, Msg: fmt.Sprintf("%s: a generator has one kind, and this one has %s too", k.Value, kind)}
		default:
			kind, node = k.Value, g.Content[i+1]
		}
	}
	if node == nil {
		return "", nil, &Error{Line: g.Line, Msg: "a generator with no kind (" + strings.Join(generatorKinds, ", ") + ")"}
	}
	return kind, node, nil
}

// generatorTemplate is the template of the Applications the top-level
// generator g makes: its own template over spec.template, as Argo CD
// merges them (mergo.Merge: what the generator's leaves empty,
// spec.template fills). The templates of generators inside a matrix or
// merge are not read, as Argo CD does not read them.
func (s *set) generatorTemplate(g *yaml.Node) (*yaml.Node, error) {
	_, node, err := kindOf(g)
	if err != nil {
		return nil, err
	}
	t, _ := yamlpos.Lookup(node, "template")
	if t == nil || !hasValue(t) {
		return s.template, nil
	}
	if t.Kind != yaml.MappingNode {
		return nil, &Error{Line: t.Line, Msg: "a generator's template is a mapping of metadata and spec"}
	}
	return overlay(t, s.template, ""), nil
}

// overlay is t over base: base where t is empty, mappings key by key,
// anything else (a list, valuesObject, a scalar) whole.
func overlay(t, base *yaml.Node, key string) *yaml.Node {
	switch {
	case t == nil || !hasValue(t):
		if base == nil {
			return t
		}
		return base
	case base == nil || t.Kind != yaml.MappingNode || base.Kind != yaml.MappingNode || key == "valuesObject":
		return t
	}
	out := *t
	out.Content = slices.Clone(t.Content)
	for i := 0; i+1 < len(base.Content); i += 2 {
		k, v := base.Content[i], base.Content[i+1]
		have, _ := yamlpos.Lookup(&out, k.Value)
		if have == nil {
			out.Content = append(out.Content, k, v)
			continue
		}
		for j := 0; j+1 < len(out.Content); j += 2 {
			if out.Content[j].Value == k.Value {
				out.Content[j+1] = overlay(have, v, k.Value)
			}
		}
	}
	return &out
}

// hasValue reports whether n holds a value, as mergo tells an empty one:
// not null, "", false or 0, nor a mapping or list of nothing else (an
// exported generator's template is often all zeros, which merge to
// nothing).
func hasValue(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return false
		case "!!str":
			return n.Value != ""
		case "!!bool":
			return n.Value != "false"
		case "!!int", "!!float":
			f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
			return err != nil || f != 0
		}
		return true
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if hasValue(n.Content[i]) {
				return true
			}
		}
		return false
	}
	for _, c := range n.Content {
		if hasValue(c) {
			return true
		}
	}
	return false
}
