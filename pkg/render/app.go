package render

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"helm.sh/helm/v3/pkg/strvals"

	"github.com/repotool/repotool/internal/helmvalues"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/values"
)

// What an Application's helm source adds to its values files, as the
// repo-server passes it to `helm template`: its inline values (values or
// valuesObject) as the last --values, then its parameters as --set and
// --set-string, then its file parameters as --set-file
// (docs/applications.md).

// appValues merges a's inline values and parameters over base, the merged
// values files.
func (r *Renderer) appValues(a *layout.App, base map[string]any) (map[string]any, error) {
	if len(a.Values) > 0 {
		inline, err := helmvalues.Read(a.Values, r.helm4())
		if err != nil {
			return nil, &ValuesError{File: a.File, Err: fmt.Errorf("Application %q: its helm values are not a YAML mapping: %w", a.Name, err)}
		}
		base = helmvalues.Merge(base, inline)
	}
	// helm applies every --set, then every --set-string, then every
	// --set-file; the repo-server passes each once (a map), in no order:
	// by name here.
	params, err := r.allParameters(a)
	if err != nil {
		return nil, err
	}
	for _, p := range params {
		if err := p.into(base); err != nil {
			return nil, &ValuesError{File: a.File, Err: fmt.Errorf("Application %q: helm parameter: %w", a.Name, err)}
		}
	}
	return base, nil
}

// appParameter is one --set, --set-string or --set-file as the
// repo-server writes it.
type appParameter struct {
	kv     string // name=value, commas escaped
	string bool   // --set-string
	file   []byte // --set-file: the file's content
	isFile bool
	line   int
}

func (p appParameter) into(dest map[string]any) error {
	switch {
	case p.isFile:
		return strvals.ParseIntoFile(p.kv, dest, func([]rune) (any, error) { return string(p.file), nil })
	case p.string:
		return strvals.ParseIntoString(p.kv, dest)
	}
	return strvals.ParseInto(p.kv, dest)
}

// allParameters are a's parameters (appParameters) and then its file
// parameters, the last of a name winning, by name, each with its file
// read.
func (r *Renderer) allParameters(a *layout.App) ([]appParameter, error) {
	out := appParameters(a)
	last := map[string]layout.FileParameter{}
	for _, fp := range a.FileParameters {
		last[fp.Name] = fp
	}
	for _, name := range slices.Sorted(maps.Keys(last)) {
		fp := last[name]
		data, err := r.valuesFile(fp.Path)
		if err != nil {
			return nil, &ValuesError{File: fp.Path, Err: fmt.Errorf("Application %q: helm file parameter %s: %w", a.Name, name, err)}
		}
		out = append(out, appParameter{kv: name + "=" + escapeCommas(fp.Path), file: data, isFile: true, line: fp.Line})
	}
	return out, nil
}

// appParameters are a's parameters as helm applies them from the
// repo-server's call: the last of a name wins, each "name=value" with its
// commas escaped unless the value is a list in braces; the --set ones,
// then the --set-string ones, each by name.
func appParameters(a *layout.App) []appParameter {
	last := map[[2]string]layout.Parameter{}
	for _, p := range a.Parameters {
		kind := "set"
		if p.ForceString {
			kind = "string"
		}
		last[[2]string{kind, p.Name}] = p
	}
	var out []appParameter
	for _, k := range slices.SortedFunc(maps.Keys(last), func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) }) {
		p := last[k]
		out = append(out, appParameter{kv: p.Name + "=" + escapeCommas(p.Value), string: p.ForceString, line: p.Line})
	}
	return out
}

// escapeCommas is the repo-server's cleanSetParameters: a comma not after
// a backslash is escaped, but in a value in braces (a helm list).
func escapeCommas(v string) string {
	if strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}") {
		return v
	}
	var b strings.Builder
	var prev rune
	for _, c := range v {
		if c == ',' && prev != '\\' {
			b.WriteString(`\,`)
		} else {
			b.WriteRune(c)
		}
		prev = c
	}
	return b.String()
}

// appLayers are the trace layers of a's inline values and parameters, in
// the order helm applies them, at their lines in the Application's file.
func (r *Renderer) appLayers(a *layout.App) ([]values.Layer, error) {
	var out []values.Layer
	if len(a.Values) > 0 {
		doc, err := valuesNode(a.Values, r.helm4())
		if err != nil {
			return nil, &ValuesError{File: a.File, Err: fmt.Errorf("Application %q: its helm values are not valid YAML", a.Name)}
		}
		shiftLines(doc, a.ValuesLine-1)
		out = append(out, values.Layer{File: a.File, Doc: doc})
	}
	ps, err := r.allParameters(a)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		params := map[string]any{}
		if err := p.into(params); err != nil {
			return nil, &ValuesError{File: a.File, Err: fmt.Errorf("Application %q: helm parameter: %w", a.Name, err)}
		}
		var doc yaml.Node
		if err := doc.Encode(params); err != nil {
			return nil, err
		}
		setLines(&doc, p.line)
		out = append(out, values.Layer{File: a.File, Doc: &doc})
	}
	return out, nil
}

// skipTests leaves out of hooks the test hooks, as helm template
// --skip-tests does: those whose helm.sh/hook names the test event
// ("test", or the old "test-success").
func skipTests(hooks []doc) []doc {
	return slices.DeleteFunc(hooks, func(d doc) bool {
		md, _ := d.content["metadata"].(map[string]any)
		ann, _ := md["annotations"].(map[string]any)
		events, _ := ann["helm.sh/hook"].(string)
		for e := range strings.SplitSeq(events, ",") {
			if e = strings.ToLower(strings.TrimSpace(e)); e == "test" || e == "test-success" {
				return true
			}
		}
		return false
	})
}

// shiftLines moves every node below n by d lines.
func shiftLines(n *yaml.Node, d int) {
	if n == nil {
		return
	}
	n.Line += d
	for _, c := range n.Content {
		shiftLines(c, d)
	}
}

// setLines puts every node below n at line.
func setLines(n *yaml.Node, line int) {
	n.Line = line
	for _, c := range n.Content {
		setLines(c, line)
	}
}
