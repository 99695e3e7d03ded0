package render

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/repotool/repotool/internal/helmvalues"
	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render/internal/charts"
	"github.com/repotool/repotool/pkg/values"
)

// EffectiveValues returns what t's chart receives as .Values (the values
// files merged as `helm template -f` merges them, coalesced with the
// chart's and its subcharts' defaults) and where each key comes from:
// values.TraceLayers over the chart's values.yaml, its enabled subcharts'
// and the target's values files, in that order. Secret values files are
// not decrypted: their values are PlaceholderDecrypter's placeholders, and
// the trace marks their keys secret, so nothing returned holds a secret.
func (r *Renderer) EffectiveValues(ctx context.Context, t *layout.Target) (*values.Effective, error) {
	entry, err := r.targetChart(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("values of %s: %w", t.Name(), err)
	}
	vals, _, _, err := r.values(ctx, t, PlaceholderDecrypter{})
	if err != nil {
		return nil, err
	}
	caps := r.capabilities(t)
	kv, err := chartutil.ParseKubeVersion(caps.KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("invalid Kubernetes version %q: %w", caps.KubeVersion, err)
	}
	c := charts.Copy(entry.Chart)
	top, _, err := r.renderValuesOf(t, c, vals, kv)
	if err != nil {
		return nil, err
	}
	var layers []values.Layer
	if doc := r.valuesDocs.of(c, r.helm4()); doc != nil {
		layers = append(layers, values.Layer{File: path.Join(t.ChartDir, chartutil.ValuesfileName), Doc: doc})
	}
	layers = append(layers, r.subchartLayers(c, entry.Chart, entry, nil)...)
	defaults := len(layers)
	for _, vf := range t.Values {
		data, err := r.valuesFile(vf.Path)
		if err != nil {
			return nil, &ValuesError{File: vf.Path, Err: err}
		}
		doc, err := valuesNode(data, r.helm4())
		if err != nil {
			return nil, &ValuesError{File: vf.Path, Err: fmt.Errorf("not valid YAML")}
		}
		layers = append(layers, values.Layer{File: vf.Path, Doc: doc, Secret: vf.Secret})
	}
	if t.App != nil {
		app, err := r.appLayers(t.App)
		if err != nil {
			return nil, err
		}
		layers = append(layers, app...)
	}
	vs, _ := top["Values"].(chartutil.Values)
	return &values.Effective{Values: map[string]any(vs), Trace: values.TraceLayers(layers), Defaults: values.TraceLayers(layers[:defaults])}, nil
}

// ChartDefaults returns the keys the chart in dir and every subchart it
// loads declare in their values.yaml (each subchart's under its name or
// alias, enabled or not: a key one declares is never reported unused),
// traced once per run.
func (r *Renderer) ChartDefaults(ctx context.Context, dir string) (values.Trace, error) {
	return r.defaults.Get(dir, func() (values.Trace, error) {
		entry, err := r.supply.Load(ctx, dir)
		if err != nil {
			return nil, err
		}
		var layers []values.Layer
		if doc := chartValuesDoc(entry.Chart, r.helm4()); doc != nil {
			layers = append(layers, values.Layer{File: path.Join(dir, chartutil.ValuesfileName), Doc: doc})
		}
		return values.TraceLayers(append(layers, allSubchartLayers(entry.Chart, nil, r.helm4())...)), nil
	})
}

// TemplatesMention reports whether any template of the chart in dir or of
// a subchart it loads names the values key word as templates read keys:
// after a dot (.Values.word, $x.word) or quoted ("word", for index, hasKey,
// get, pluck). A cheap, conservative sign that the key may be read; a key
// no template names can still be read whole (toYaml .Values), which only
// rendering tells.
func (r *Renderer) TemplatesMention(ctx context.Context, dir, word string) (bool, error) {
	text, err := r.templateText.Get(dir, func() (string, error) {
		entry, err := r.supply.Load(ctx, dir)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		var add func(c *chart.Chart)
		add = func(c *chart.Chart) {
			for _, t := range c.Templates {
				b.Write(t.Data)
				b.WriteByte('\n')
			}
			for _, sub := range c.Dependencies() {
				add(sub)
			}
		}
		add(entry.Chart)
		return b.String(), nil
	})
	if err != nil {
		return false, err
	}
	return strings.Contains(text, `"`+word+`"`) || strings.Contains(text, "'"+word+"'") || dotted(text, word), nil
}

// MayRenderCRDs reports whether the chart in dir, or a subchart it loads,
// may render a CustomResourceDefinition: a template names the kind, or a
// template reads the chart's files (.Files) and one of them names it, or
// its crds/ folder holds one, or its values.yaml names it (a manifest in
// the defaults, passed through tpl). Conservative: a chart this says no for
// renders none from its own files.
func (r *Renderer) MayRenderCRDs(ctx context.Context, dir string) (bool, error) {
	entry, err := r.supply.Load(ctx, dir)
	if err != nil {
		return false, err
	}
	return mayRenderCRDs(entry.Chart), nil
}

func mayRenderCRDs(c *chart.Chart) bool {
	kind := []byte("CustomResourceDefinition")
	readsFiles := false
	for _, t := range c.Templates {
		if bytes.Contains(t.Data, kind) {
			return true
		}
		readsFiles = readsFiles || bytes.Contains(t.Data, []byte(".Files"))
	}
	for _, f := range c.Files {
		if (readsFiles || strings.HasPrefix(f.Name, "crds/")) && bytes.Contains(f.Data, kind) {
			return true
		}
	}
	for _, f := range c.Raw { // the chart's own values (extraObjects passed through tpl)
		if f.Name == chartutil.ValuesfileName && bytes.Contains(f.Data, kind) {
			return true
		}
	}
	return slices.ContainsFunc(c.Dependencies(), mayRenderCRDs)
}

// dotted reports whether text has "."+word not followed by a character
// of an identifier (.word, not .words).
func dotted(text, word string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], "."+word)
		if j < 0 {
			return false
		}
		end := i + j + 1 + len(word)
		if end == len(text) || !isIdentByte(text[end]) {
			return true
		}
		i = end
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// allSubchartLayers are the values.yaml of every subchart below c as
// loaded, each under its name and, when Chart.yaml gives one, its alias.
func allSubchartLayers(c *chart.Chart, prefix []string, helm4 bool) []values.Layer {
	var out []values.Layer
	for _, sub := range c.Dependencies() {
		names := []string{sub.Name()}
		if c.Metadata != nil {
			for _, d := range c.Metadata.Dependencies {
				if d.Name == sub.Name() && d.Alias != "" {
					names = append(names, d.Alias)
				}
			}
		}
		for _, name := range names {
			p := append(prefix[:len(prefix):len(prefix)], name)
			if doc := chartValuesDoc(sub, helm4); doc != nil {
				out = append(out, values.Layer{File: strings.Join(p, "/"), Doc: doc, Prefix: p})
			}
			out = append(out, allSubchartLayers(sub, p, helm4)...)
		}
	}
	return out
}

// chartValuesDoc is a chart's values.yaml as a YAML document (nil when it
// has none, or it does not parse: the chart did load, so Helm read it),
// its documents merged with helm4 (valuesNode).
func chartValuesDoc(c *chart.Chart, helm4 bool) *yaml.Node {
	f := valuesFileOf(c)
	if f == nil {
		return nil
	}
	doc, err := valuesNode(f.Data, helm4)
	if err != nil {
		return nil
	}
	return doc
}

// valuesFileOf is c's values.yaml as loaded; nil when it has none.
func valuesFileOf(c *chart.Chart) *chart.File {
	for _, f := range c.Raw {
		if f.Name == chartutil.ValuesfileName {
			return f
		}
	}
	return nil
}

// valuesNode parses a values file into one YAML node, with its keys'
// lines: the documents a Helm reads (helmvalues.Counted).
func valuesNode(data []byte, helm4 bool) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	var err error
	for {
		var doc yaml.Node
		if err = dec.Decode(&doc); err != nil {
			break
		}
		docs = append(docs, yamlpos.Root(&doc))
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if docs, err = helmvalues.Counted(docs, err, helm4); err != nil {
		return nil, err
	}
	return helmvalues.Node(docs, helm4), nil
}

// subchartLayers are the values.yaml of c's enabled subcharts (after
// dependency processing: aliases applied, disabled ones gone), each under
// its name, depth first; prefix is c's path below the top chart, and orig
// is c as loaded (nil when unknown), whose chart.ChartFullPath names the
// subcharts entry.Origins knows, before aliases renamed them.
func (r *Renderer) subchartLayers(c, orig *chart.Chart, entry *charts.Loaded, prefix []string) []values.Layer {
	var out []values.Layer
	for _, sub := range c.Dependencies() {
		p := append(prefix[:len(prefix):len(prefix)], sub.Name())
		origSub := loadedAs(orig, sub.Name())
		if doc := r.valuesDocs.of(sub, r.helm4()); doc != nil {
			origin := strings.Join(p, "/")
			if origSub != nil {
				origin = cmp.Or(entry.Origins[origSub.ChartFullPath()], origin)
			}
			file := path.Join(origin, chartutil.ValuesfileName)
			if strings.HasSuffix(origin, ".tgz") {
				file = origin + ":" + chartutil.ValuesfileName
			}
			out = append(out, values.Layer{File: file, Doc: doc, Prefix: p})
		}
		out = append(out, r.subchartLayers(sub, origSub, entry, p)...)
	}
	return out
}

// loadedAs is the subchart of orig (a chart as loaded) that dependency
// processing named name: by its alias in orig's Chart.yaml, or its own.
func loadedAs(orig *chart.Chart, name string) *chart.Chart {
	if orig == nil || orig.Metadata == nil {
		return nil
	}
	want := name
	for _, d := range orig.Metadata.Dependencies {
		if d.Alias == name {
			want = d.Name
		}
	}
	for _, sub := range orig.Dependencies() {
		if sub.Name() == want {
			return sub
		}
	}
	return nil
}

// Without renders t as Render does, but with the values at paths removed
// from what its values files merge to (before the charts' defaults are
// coalesced in), and returns what `helm template` would print: the
// evidence that a key does something, when the output changes without it.
// Secret values are decrypted in memory as for Render; the stream is for
// comparing, never to be shown.
func (r *Renderer) Without(ctx context.Context, t *layout.Target, paths ...[]string) ([]byte, error) {
	type out struct {
		stream []byte
		err    error
	}
	o, err := bounded(ctx, r.opts.Timeout, func(ctx context.Context) out {
		entry, err := r.targetChart(ctx, t)
		if err != nil {
			return out{err: err}
		}
		vals, _, _, err := r.values(ctx, t, r.decrypter)
		if err != nil {
			return out{err: err}
		}
		for _, p := range paths {
			vals = withoutPath(vals, p)
		}
		rd, err := r.template(ctx, t, entry, vals, false)
		return out{rd.stream, err}
	})
	if err != nil {
		return nil, r.boundErr(t, err)
	}
	return o.stream, o.err
}

// withoutPath returns m without the value at path, copying the maps on
// the way (m is shared with nothing, but its maps may be).
func withoutPath(m map[string]any, path []string) map[string]any {
	if len(path) == 0 {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if len(path) == 1 {
		delete(out, path[0])
		return out
	}
	if sub, ok := out[path[0]].(map[string]any); ok {
		out[path[0]] = withoutPath(sub, path[1:])
	}
	return out
}
