package render

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"iter"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render/internal/util"
)

// `helm template` is Helm's install action in client-only dry-run mode:
// check the release name, process the dependencies, coalesce and check the
// values, run the templates, split and sort what they print (manifests by
// kind, hooks apart) and print CRDs, manifests and hooks. The renderer
// does the same steps with Helm's own functions, with three differences
// that change no byte of the output or of an error:
//   - each chart's templates are parsed once per run (internal/engine),
//     not once per target;
//   - each rendered document is parsed once, for sorting and as the
//     object callers get, where Helm parses it to sort and callers would
//     parse it again;
//   - values.schema.json files are compiled once per run (validateAgainstSchema).
// TestHelmParity, TestEngineParity and TestCommunityChartParity compare
// the output and the messages with the helm CLI's.

// notesSuffix ends the name of the templates Helm prints as release notes,
// never as manifests (action's notesFileSuffix).
const notesSuffix = "NOTES.txt"

// template renders t with vals as `helm template --include-crds` does and
// returns the stream it prints and its objects.
func (r *Renderer) template(ctx context.Context, t *layout.Target, entry *chartEntry, vals map[string]any) ([]byte, []manifest.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	caps := r.capabilities(t)
	kv, err := chartutil.ParseKubeVersion(caps.KubeVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid Kubernetes version %q: %w", caps.KubeVersion, err)
	}
	c := copyChart(entry.chart)
	valueConflicts(c, vals, true) // reported by renderNow; Helm would print them
	if req := c.Metadata.Dependencies; req != nil {
		if err := missingDependencies(c, req); err != nil {
			return nil, nil, err
		}
	}
	top, hcaps, err := r.renderValuesOf(t, c, vals, kv)
	if err != nil {
		return nil, nil, err
	}
	if hasSchema(c) {
		if err := r.validateAgainstSchema(c, top["Values"].(chartutil.Values)); err != nil {
			return nil, nil, fmt.Errorf(schemaErrFmt, err.Error())
		}
	}
	if c.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(c.Metadata.KubeVersion, hcaps.KubeVersion.String()) {
		shown := hcaps.KubeVersion.String()
		if r.helm4() {
			shown = top["Capabilities"].(*capabilities4).KubeVersion.Version // Helm 4 names the version as given
		}
		return nil, nil, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c.Metadata.KubeVersion, shown)
	}
	files, err := r.engine.RenderContext(ctx, c, top)
	if err != nil {
		return nil, nil, err
	}
	for k := range files {
		if strings.HasSuffix(k, notesSuffix) {
			delete(files, k)
		}
	}
	if max := r.opts.MaxOutputSize; max > 0 {
		size := 0
		for _, f := range files {
			size += len(f)
		}
		if int64(size) > max {
			return nil, nil, errOutputSize{size: size, max: max}
		}
	}
	docs, hooks, err := sortDocs(files, r.helm4())
	if err != nil {
		return nil, nil, err
	}
	return assemble(c, docs, hooks, !r.opts.SkipCRDs)
}

// renderValuesOf is what the templates of c (a copy: dependencies are
// processed in it) see for t with the merged values vals: .Values, the
// release and the capabilities, as `helm template` makes them.
func (r *Renderer) renderValuesOf(t *layout.Target, c *chart.Chart, vals map[string]any, kv *chartutil.KubeVersion) (chartutil.Values, *chartutil.Capabilities, error) {
	name := cmp.Or(r.opts.ReleaseName, t.Namespace)
	if err := chartutil.ValidateReleaseName(name); err != nil {
		return nil, nil, fmt.Errorf("release name %q: %w", name, err)
	}
	if err := chartutil.ProcessDependenciesWithMerge(c, vals); err != nil {
		return nil, nil, err
	}
	hcaps := chartutil.DefaultCapabilities.Copy()
	hcaps.KubeVersion = *kv
	hcaps.APIVersions = append(hcaps.APIVersions, r.capabilities(t).APIVersions...)
	top, err := chartutil.ToRenderValuesWithSchemaValidation(c, vals,
		chartutil.ReleaseOptions{Name: name, Namespace: t.Namespace, Revision: 1, IsInstall: true}, hcaps, true)
	if err == nil && r.helm4() {
		top["Capabilities"] = newCapabilities4(r.capabilities(t).KubeVersion, kv, hcaps.APIVersions)
	}
	return top, hcaps, err
}

// errOutputSize is a rendering larger than Options.MaxOutputSize.
type errOutputSize struct {
	size int
	max  int64
}

func (e errOutputSize) Error() string {
	return fmt.Sprintf("the rendered manifest has %d bytes, more than the limit of %d (--max-output-size): does a template loop over more than it should?", e.size, e.max)
}

// doc is one document of a rendered template, as Helm splits them.
type doc struct {
	path    string // the template's path, "<chart>/templates/x.yaml"
	text    string // trimmed, without separators
	kind    string
	content map[string]any // nil for a document of comments only
}

// sortDocs splits and sorts the rendered templates as Helm's
// releaseutil.SortManifests does, parsing each document once: manifests
// by kind in InstallOrder, hooks (documents with a known helm.sh/hook)
// apart, by kind too. A document Helm's sort would refuse fails with
// Helm's message. helm4 splits and orders as Helm 4 does.
func sortDocs(files map[string]string, helm4 bool) (docs, hooks []doc, err error) {
	split, order := splitManifests, installOrder
	if helm4 {
		split, order = splitManifests4, installOrder4
	}
	for p, text := range documents(files, split) {
		d := doc{path: p, text: text}
		perr := yaml.Unmarshal([]byte(d.text), &d.content)
		hd, ok := readHead(d.content)
		if perr != nil || !ok {
			// Rare: read it as Helm does, for Helm's message.
			sh, err := helmHead(p, d.text, helm4)
			if err != nil {
				return nil, nil, err
			}
			if perr != nil {
				// Helm reads it but repotool cannot; Helm's sort may
				// still refuse a later document, and its message
				// comes first.
				if err := helmHeadsError(files, split, helm4); err != nil {
					return nil, nil, err
				}
				return nil, nil, &manifest.DocumentError{Template: p, Err: perr}
			}
			hd = head{kind: sh.Kind}
			if sh.Metadata != nil {
				hd.annotations = sh.Metadata.Annotations
			}
		}
		d.kind = hd.kind
		switch h, ok := hd.annotations[release.HookAnnotation]; {
		case !ok:
			docs = append(docs, d)
		case knownHooks(h):
			hooks = append(hooks, d)
		default:
			// Helm skips a document with an unknown hook (and logs it).
		}
	}
	byKind := func(a, b doc) int { return compareKinds(order, a.kind, b.kind) }
	slices.SortStableFunc(docs, byKind)
	slices.SortStableFunc(hooks, byKind)
	return docs, hooks, nil
}

// splitManifests splits a rendered template into documents exactly as
// releaseutil.SplitManifests does with its regular expression
// `(?:^|\s*\n)---\s*` (RE2's \s: tab, newline, form feed, carriage return,
// space), in order, without the regular expression's cost: a separator is
// "---" at the start or after a newline, with the whitespace run before
// that newline and all whitespace after it. FuzzSplitManifests compares it
// with Helm's.
func splitManifests(big string) []string {
	s := strings.TrimSpace(big)
	var docs []string
	add := func(d string) {
		if d != "" {
			docs = append(docs, strings.TrimSpace(d))
		}
	}
	pos := 0
	if strings.HasPrefix(s, "---") {
		pos = skipSpace(s, 3)
	}
	beg := pos
	for {
		i := strings.Index(s[pos:], "\n---")
		if i < 0 {
			break
		}
		q := pos + i
		p := q
		for p > pos && isRE2Space(s[p-1]) {
			p--
		}
		add(s[beg:p])
		pos = skipSpace(s, q+4)
		beg = pos
	}
	add(s[beg:])
	return docs
}

// skipSpace returns the index of the first byte of s at or after i that
// is not RE2's \s.
func skipSpace(s string, i int) int {
	for i < len(s) && isRE2Space(s[i]) {
		i++
	}
	return i
}

func isRE2Space(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// helmHead reads the head of the document text of the template p as Helm's
// sort does (Helm 4's with helm4), failing with Helm's message.
func helmHead(p, text string, helm4 bool) (releaseutil.SimpleHead, error) {
	var sh releaseutil.SimpleHead
	var err error
	if helm4 {
		var sh4 util.SimpleHead
		err = yaml.Unmarshal([]byte(text), &sh4)
		sh = releaseutil.SimpleHead(sh4)
	} else {
		err = yaml.Unmarshal([]byte(text), &sh)
	}
	if err != nil {
		return sh, fmt.Errorf("YAML parse error on %s: %w", p, err)
	}
	return sh, nil
}

// helmHeadsError is the first failure of Helm's sort reading the heads of
// every document of files, in its order.
func helmHeadsError(files map[string]string, split func(string) []string, helm4 bool) error {
	for p, text := range documents(files, split) {
		if _, err := helmHead(p, text, helm4); err != nil {
			return err
		}
	}
	return nil
}

// documents yields the documents of the rendered templates files, with
// their template's path, as Helm's sort reads them: templates in path
// order, partials and blank ones left out, each split with split.
func documents(files map[string]string, split func(string) []string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, p := range slices.Sorted(maps.Keys(files)) {
			content := files[p]
			if strings.HasPrefix(path.Base(p), "_") || strings.TrimSpace(content) == "" {
				continue
			}
			for _, text := range split(content) {
				if !yield(p, text) {
					return
				}
			}
		}
	}
}

// head is what Helm's sort reads of a document (releaseutil.SimpleHead).
type head struct {
	kind        string
	annotations map[string]string
}

// readHead reads what Helm's sort reads of a parsed document, as JSON
// decoding into releaseutil.SimpleHead would (null reads as empty); ok is
// false where that decoding could fail or read otherwise: a value of the
// wrong type, or a key that matches a field only case-insensitively (JSON
// decoding accepts "Kind" for "kind").
func readHead(m map[string]any) (h head, ok bool) {
	if !exactKeys(m, "apiVersion", "kind", "metadata") || !isString(m["apiVersion"]) || !isString(m["kind"]) {
		return h, false
	}
	h.kind, _ = m["kind"].(string)
	md, isMap := m["metadata"].(map[string]any)
	if !isMap {
		return h, m["metadata"] == nil
	}
	if !exactKeys(md, "name", "annotations") || !isString(md["name"]) {
		return h, false
	}
	switch ann := md["annotations"].(type) {
	case nil:
	case map[string]any:
		h.annotations = make(map[string]string, len(ann))
		for k, v := range ann {
			if !isString(v) {
				return h, false
			}
			h.annotations[k], _ = v.(string)
		}
	default:
		return h, false
	}
	return h, true
}

// exactKeys reports whether every key of m that JSON decoding would match
// to one of fields (case-insensitively, as bytes.EqualFold) is that field.
func exactKeys(m map[string]any, fields ...string) bool {
	for k := range m {
		for _, f := range fields {
			if k != f && strings.EqualFold(k, f) {
				return false
			}
		}
	}
	return true
}

// isString reports whether JSON decoding v into a Go string succeeds.
func isString(v any) bool {
	switch v.(type) {
	case nil, string:
		return true
	}
	return false
}

// hookEvents are the hook names Helm knows (releaseutil's events).
var hookEvents = map[string]bool{"test-success": true}

func init() {
	for _, e := range []release.HookEvent{release.HookPreInstall, release.HookPostInstall, release.HookPreDelete,
		release.HookPostDelete, release.HookPreUpgrade, release.HookPostUpgrade, release.HookPreRollback,
		release.HookPostRollback, release.HookTest} {
		hookEvents[e.String()] = true
	}
}

// knownHooks reports whether Helm knows every hook of a helm.sh/hook
// annotation.
func knownHooks(v string) bool {
	for h := range strings.SplitSeq(v, ",") {
		if !hookEvents[strings.ToLower(strings.TrimSpace(h))] {
			return false
		}
	}
	return true
}

// installOrder is each kind's place in releaseutil.InstallOrder.
var installOrder = func() map[string]int {
	m := make(map[string]int, len(releaseutil.InstallOrder))
	for i, k := range releaseutil.InstallOrder {
		m[k] = i
	}
	return m
}()

// compareKinds orders kinds as Helm's sort does: known kinds in their
// install order, then unknown ones by name.
func compareKinds(order map[string]int, a, b string) int {
	ia, aok := order[a]
	ib, bok := order[b]
	switch {
	case aok && bok:
		return ia - ib
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}

// assemble prints the sorted documents as `helm template` does (CRDs of
// the chart and its subcharts, manifests, then hooks, each after a
// separator and its Source comment) and reads the objects of the stream,
// with the documents' parsed content.
func assemble(c *chart.Chart, docs, hooks []doc, crds bool) ([]byte, []manifest.Object, error) {
	const sep = "---\n" + manifest.SourcePrefix
	var crdFiles []chart.CRD
	if crds {
		crdFiles = c.CRDObjects()
	}
	// The stream is made at its size: renderings are kept (by lint, by
	// standard output), so slack would be kept too.
	size := 1
	for _, crd := range crdFiles {
		size += len(sep) + len(crd.Filename) + len(crd.File.Data) + 2
	}
	for _, d := range slices.Concat(docs, hooks) {
		size += len(sep) + len(d.path) + len(d.text) + 2
	}
	buf := make([]byte, 0, size)
	for _, crd := range crdFiles {
		buf = append(append(append(append(append(buf, sep...), crd.Filename...), '\n'), crd.File.Data...), '\n')
	}
	// known are the parsed documents, by the line they start at.
	known := map[int]doc{}
	line := 1 + bytes.Count(buf, []byte("\n"))
	write := func(d doc) {
		known[line+2] = d
		buf = append(append(append(append(append(buf, sep...), d.path...), '\n'), d.text...), '\n')
		line += 3 + strings.Count(d.text, "\n")
	}
	for _, d := range docs {
		write(d)
	}
	// Helm trims the manifests (not the hooks); they start with "---".
	buf = append(buf[:len(bytes.TrimRightFunc(buf, unicode.IsSpace))], '\n')
	line = 1 + bytes.Count(buf, []byte("\n"))
	for _, h := range hooks {
		write(h)
	}
	objs, err := manifest.ReadParsed(buf, func(y []byte, line int) (map[string]any, bool) {
		d, ok := known[line]
		if !ok || len(y) != len(d.text)+1 || string(y[:len(d.text)]) != d.text {
			return nil, false
		}
		return d.content, true
	})
	return buf, objs, err
}

// missingDependencies fails when a dependency Chart.yaml declares is not
// among the chart's loaded subcharts, with the message helm install and
// helm template give. (Helm's action package has this check, but linking
// that package brings Kubernetes' client, kubectl and helm's linter into
// every process: a fifth of repotool's start-up, paid by each Argo CD
// plugin call.)
func missingDependencies(c *chart.Chart, declared []*chart.Dependency) error {
	loaded := map[string]bool{}
	for _, sub := range c.Dependencies() {
		loaded[sub.Name()] = true
	}
	var missing []string
	for _, d := range declared {
		if !loaded[d.Name] {
			missing = append(missing, d.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("found in Chart.yaml, but missing in charts/ directory: %s", strings.Join(missing, ", "))
}
