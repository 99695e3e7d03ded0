package render

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/repotool/repotool/internal/engine"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render/internal/charts"
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

// rendered is what a rendering printed: the stream, its objects, and the
// unstable template functions it called.
type rendered struct {
	stream []byte
	objs   []manifest.Object
	calls  []engine.Call
}

// template renders t with vals as `helm template --include-crds` does.
// With verify, the unstable calls are those whose result reaches the
// output (engine.RenderCalls); it costs a rendering per call site.
func (r *Renderer) template(ctx context.Context, t *layout.Target, entry *charts.Loaded, vals map[string]any, verify bool) (rendered, error) {
	if err := ctx.Err(); err != nil {
		return rendered{}, err
	}
	caps := r.capabilities(t)
	kv, err := chartutil.ParseKubeVersion(caps.KubeVersion)
	if err != nil {
		return rendered{}, fmt.Errorf("invalid Kubernetes version %q: %w", caps.KubeVersion, err)
	}
	c := charts.Copy(entry.Chart)
	valueConflicts(c, vals, true) // reported by renderNow; Helm would print them
	if req := c.Metadata.Dependencies; req != nil {
		if err := missingDependencies(c, req); err != nil {
			return rendered{}, err
		}
	}
	top, hcaps, err := r.renderValuesOf(t, c, vals, kv)
	if err != nil {
		return rendered{}, err
	}
	if hasSchema(c) && (t.App == nil || !t.App.SkipSchemaValidation) {
		if err := r.validateAgainstSchema(c, top["Values"].(chartutil.Values), entry.Origins); err != nil {
			var se *SchemaError
			if errors.As(err, &se) {
				return rendered{}, se
			}
			return rendered{}, fmt.Errorf(schemaErrFmt, err.Error())
		}
	}
	if c.Metadata.KubeVersion != "" && !chartutil.IsCompatibleRange(c.Metadata.KubeVersion, hcaps.KubeVersion.String()) {
		shown := hcaps.KubeVersion.String()
		if r.helm4() {
			shown = top["Capabilities"].(*capabilities4).KubeVersion.Version // Helm 4 names the version as given
		}
		return rendered{}, fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", c.Metadata.KubeVersion, shown)
	}
	files, calls, err := r.engine.RenderCalls(ctx, c, top, verify)
	if err != nil {
		return rendered{}, err
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
			return rendered{}, errOutputSize{size: size, max: max}
		}
	}
	docs, hooks, err := sortDocs(files, r.helm4(), r.docs.decode)
	if err != nil {
		return rendered{}, err
	}
	if t.App != nil && t.App.SkipTests {
		hooks = skipTests(hooks)
	}
	stream, objs, err := assemble(c, docs, hooks, !r.opts.SkipCRDs && (t.App == nil || !t.App.SkipCRDs))
	return rendered{stream: stream, objs: objs, calls: calls}, err
}

// renderValuesOf is what the templates of c (a copy: dependencies are
// processed in it) see for t with the merged values vals: .Values, the
// release and the capabilities, as `helm template` makes them.
func (r *Renderer) renderValuesOf(
	t *layout.Target,
	c *chart.Chart,
	vals map[string]any,
	kv *chartutil.KubeVersion,
) (chartutil.Values, *chartutil.Capabilities, error) {
	name := cmp.Or(r.opts.ReleaseName, t.ReleaseName())
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
	return fmt.Sprintf(
		"the rendered manifest has %d bytes, more than the limit of %d (--max-output-size): does a template loop over more than it should?",
		e.size,
		e.max,
	)
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
