package lint

import (
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/held"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// Rules see rendered objects through one door, whatever a run keeps of
// each: contentOf (the parsed content, parsed again when the run let it
// go), textOf (the YAML, read back from where the run holds it) and
// objects.fact (what a rule keeps of each object). Lint keeps every
// target's rendering until the checks across targets have run, and parsed
// content is most of that memory: so as each rendering arrives, it keeps
// the parsed content only of the kinds the rules read whole (readWhole),
// and for the others, the facts rules declare (Rule.facts). A rule that
// reads another kind's content is slower, never wrong.

// readWhole reports whether the rules read o's content whole, so that a
// run keeps it parsed: Secrets, Namespaces and ServiceAccounts, Ingresses,
// and the External Secrets, cert-manager and SecretMirror objects that
// make Secrets.
func readWhole(o *manifest.Object) bool {
	switch {
	case o.APIVersion == "v1":
		return o.Kind == "Secret" || o.Kind == "Namespace" || o.Kind == "ServiceAccount"
	case isKind(o, "networking.k8s.io", "Ingress"):
		return true
	}
	switch o.Group() {
	case groupESO, groupCertManager, groupSecretMirror:
		return true
	}
	return false
}

// objects are the facts a run keeps of the objects whose parsed content
// it let go. A nil *objects keeps none: every fact is taken from the
// object when asked (Check, whose caller keeps its renderings whole).
type objects struct {
	facts []*fact // the facts the rules declare, each at its index
	// kept are the facts of the objects let go that have some; bare
	// holds the others (most objects), each a key alone.
	kept map[*manifest.Object]held.Facts
	bare map[*manifest.Object]struct{}
}

// newObjects keeps facts (every rule's: declared) of the objects a run
// lets go.
func newObjects(facts []*fact) *objects {
	return &objects{facts: facts, kept: map[*manifest.Object]held.Facts{}, bare: map[*manifest.Object]struct{}{}}
}

// fact is f of o: kept, or taken now from o.
func (v *objects) fact(o *manifest.Object, f *fact) []string {
	if v != nil {
		if k, ok := v.kept[o]; ok {
			return k[f.at]
		}
		if _, ok := v.bare[o]; ok {
			return nil
		}
	}
	return f.of(o)
}

// letGo lets go of the parsed content of res's objects that the rules do
// not read whole, keeping their facts.
func (v *objects) letGo(res *render.Result) {
	for i := range res.Objects {
		o := &res.Objects[i]
		if readWhole(o) || o.Content == nil {
			continue
		}
		v.keep(o, v.factsOf(o))
		o.Content = nil
	}
}

// keep keeps fs, o's facts.
func (v *objects) keep(o *manifest.Object, fs held.Facts) {
	if fs.Empty() {
		v.bare[o] = struct{}{}
		return
	}
	v.kept[o] = fs
}

// factsOf are o's facts, nil when it has none.
func (v *objects) factsOf(o *manifest.Object) held.Facts {
	var fs held.Facts
	for _, f := range v.facts {
		if words := f.of(o); words != nil {
			if fs == nil {
				fs = make(held.Facts, len(v.facts))
			}
			fs[f.at] = words
		}
	}
	return fs
}

// take hands o's facts to a store, which keeps them while o is let go:
// none (not nil) when it has none, nil when the rules read o whole.
func (v *objects) take(o *manifest.Object) held.Facts {
	if _, ok := v.bare[o]; ok {
		delete(v.bare, o)
		return held.Facts{}
	}
	fs, ok := v.kept[o]
	if !ok {
		return nil
	}
	delete(v.kept, o)
	return fs
}

// give keeps what a store gives back: the facts of res's objects.
func (v *objects) give(res *render.Result, facts []held.Facts) {
	for i := range res.Objects {
		if i < len(facts) && facts[i] != nil {
			v.keep(&res.Objects[i], facts[i])
		}
	}
}

// forget lets go of the facts of res's objects, once checked.
func (v *objects) forget(res *render.Result) {
	for i := range res.Objects {
		delete(v.kept, &res.Objects[i])
		delete(v.bare, &res.Objects[i])
	}
}

// contentOf is o's parsed content: the one kept, or its YAML parsed again
// (the same parse the renderer does) when the run let it go.
func contentOf(o *manifest.Object) map[string]any {
	if o.Content != nil {
		return o.Content
	}
	text := textOf(o)
	if len(text) == 0 {
		return nil
	}
	var c map[string]any
	if yaml.Unmarshal(text, &c) != nil {
		return nil // it parsed when rendered: not reached
	}
	return c
}

// textOf is o's YAML, read back from where the run holds it (a stored
// rendering's pool): nil only when that fails, and then the run fails
// once the cluster is checked (held.Store.Release).
func textOf(o *manifest.Object) []byte {
	text, err := o.Text()
	if err != nil {
		return nil
	}
	return text
}

// withNamespace gives content the namespace it lands in when it names
// none (a chart's objects usually do not).
func withNamespace(content map[string]any, ns string) map[string]any {
	meta, _ := content["metadata"].(map[string]any)
	if ns == "" || meta == nil || meta["namespace"] != nil {
		return content
	}
	c := make(map[string]any, len(content))
	for k, v := range content {
		c[k] = v
	}
	m := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m["namespace"] = ns
	c["metadata"] = m
	return c
}

// fact is what a rule keeps of each rendered object whose parsed content
// a run lets go: of is taken from the object as it arrives, and read back
// with objects.fact. A fact is a list of words, so that any store can
// hold it (pkg/held); nil (or empty) is "nothing", the common case.
type fact struct {
	of func(o *manifest.Object) []string
	at int // its index in declared
}
