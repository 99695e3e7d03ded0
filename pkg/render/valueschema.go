package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// Helm checks a chart's values against its values.schema.json (and each
// subchart's against its own) before rendering, compiling the schema every
// time: for real charts that is a large share of a render. The renderer
// does the same check, with the same library, loaders and messages, and
// compiles each schema once per run; Helm's own check is switched off
// (Install.SkipSchemaValidation).

// schemaErrFmt is Helm's message for values its schemas refuse
// (chartutil.ToRenderValuesWithSchemaValidation).
const schemaErrFmt = "values don't meet the specifications of the schema(s) in the following chart(s):\n%s"

// hasSchema reports whether c or a chart it holds has a values schema.
func hasSchema(c *chart.Chart) bool {
	if c.Schema != nil {
		return true
	}
	for _, d := range c.Dependencies() {
		if hasSchema(d) {
			return true
		}
	}
	return false
}

// validateAgainstSchema is chartutil.ValidateAgainstSchema with compiled
// schemas kept; a schema that is not JSON fails it as a *SchemaError at
// its file (origins: where each chart of the tree was loaded from).
func (r *Renderer) validateAgainstSchema(c *chart.Chart, values map[string]any, origins map[string]string) error {
	var sb strings.Builder
	if c.Schema != nil {
		if err := r.validateSingle(values, c); err != nil {
			var se *SchemaError
			if errors.As(err, &se) {
				at := *se // the compiled schemas' cache shares se
				at.File = schemaFile(c, origins)
				return &at
			}
			fmt.Fprintf(&sb, "%s:\n", c.Name())
			sb.WriteString(err.Error())
		}
	}
	for _, sub := range c.Dependencies() {
		raw, ok := values[sub.Name()]
		if !ok || raw == nil {
			continue
		}
		subValues, ok := raw.(map[string]any)
		if !ok {
			fmt.Fprintf(&sb, "%s:\ninvalid type for values: expected object (map), got %T\n", sub.Name(), raw)
			continue
		}
		if err := r.validateAgainstSchema(sub, subValues, origins); err != nil {
			var se *SchemaError
			if errors.As(err, &se) {
				return se
			}
			sb.WriteString(err.Error())
		}
	}
	if sb.Len() > 0 {
		return errors.New(sb.String())
	}
	return nil
}

// validateSingle is chartutil.ValidateAgainstSingleSchema for c's schema,
// compiled once per run.
func (r *Renderer) validateSingle(values chartutil.Values, c *chart.Chart) (reterr error) {
	defer func() {
		if p := recover(); p != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", p)
		}
	}()
	s, err := r.valueSchemas.Get(schemaKey(c), func() (*jsonschema.Schema, error) { return r.compileValuesSchema(c) })
	if err != nil {
		return err
	}
	if err := s.Validate(values.AsMap()); err != nil {
		// Helm's JSONSchemaValidationError.
		return errors.New(strings.TrimPrefix(err.Error(), "jsonschema validation failed with 'file:///values.schema.json#'\n") + "\n")
	}
	return nil
}

// schemaKey is what c's compiled values schema depends on: the schema's
// bytes and, when it has a $ref to another document than itself, every
// file of the chart (a file $ref reads them). A $ref within the schema
// ("#/definitions/...", the common kind) needs no file, and the chart's
// files are not read for it at every rendering.
func schemaKey(c *chart.Chart) string {
	h := sha256.New()
	h.Write(c.Schema)
	if bytes.Count(c.Schema, []byte(`ref"`)) != len(internalRef.FindAllIndex(c.Schema, -1)) {
		for _, f := range c.Raw {
			fmt.Fprintf(h, "\x00%s\x00%d\x00", f.Name, len(f.Data))
			h.Write(f.Data)
		}
	}
	return string(h.Sum(nil))
}

// internalRef finds a $ref within the schema; any other "ref" in it (a
// $ref to another document, one written with escapes, a property named
// href) keys the compiled schema by the chart's files too.
var internalRef = regexp.MustCompile(`"\$ref"\s*:\s*"#`)

// compileValuesSchema compiles c's values.schema.json as Helm does: the
// same resource name and loaders, except that a file $ref reads only the
// chart's own files (chartFileLoader), a remote $ref is fetched only when
// the operator asks (Options.RemoteSchemaRefs, and not Offline), and an
// unresolved urn: is permissive without Helm's log line.
func (r *Renderer) compileValuesSchema(c *chart.Chart) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.Schema))
	if err != nil {
		return nil, &SchemaError{Line: jsonErrorLine(c.Schema, err), Err: err}
	}
	web := &schemaHTTPLoader{client: &http.Client{Timeout: 15 * time.Second, Transport: r.chartCfg.HTTP.Transport},
		offline: r.opts.Offline, allowed: r.opts.RemoteSchemaRefs}
	compiler := jsonschema.NewCompiler()
	compiler.UseLoader(jsonschema.SchemeURLLoader{
		"file":  chartFileLoader{c},
		"http":  web,
		"https": web,
		"urn":   urnLoader{},
	})
	if err := compiler.AddResource("file:///values.schema.json", doc); err != nil {
		return nil, err
	}
	return compiler.Compile("file:///values.schema.json")
}

// jsonErrorLine is the line of data a JSON parse error is at: its offset's,
// or the last line for a document cut short.
func jsonErrorLine(data []byte, err error) int {
	offset := int64(len(data))
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = se.Offset
	}
	offset = min(max(offset, 0), int64(len(data)))
	return 1 + bytes.Count(bytes.TrimRight(data[:offset], "\n"), []byte("\n"))
}

// schemaFile is where the values.schema.json of c, a chart of the tree
// origins describes, is in the repository.
func schemaFile(c *chart.Chart, origins map[string]string) string {
	o := origins[c.ChartFullPath()]
	if strings.HasSuffix(o, ".tgz") {
		return o + "!" + c.Name() + "/values.schema.json"
	}
	return path.Join(o, "values.schema.json")
}

// schemaHTTPLoader loads a remote $ref of a values schema, when allowed.
type schemaHTTPLoader struct {
	client           *http.Client
	offline, allowed bool
}

func (l *schemaHTTPLoader) Load(url string) (any, error) {
	if l.offline {
		return nil, fmt.Errorf("the values schema refers to %s, and --offline downloads nothing", url)
	}
	if !l.allowed {
		return nil, fmt.Errorf("the values schema refers to %s: repotool fetches a values schema's remote $ref only when the operator asks "+
			"(--remote-schema-refs, or REPOTOOL_REMOTE_SCHEMA_REFS=true); vendor the schema into the chart and refer to it by its path", url)
	}
	resp, err := l.client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("HTTP request failed for %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP request to %s returned status %d (%s)", url, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return jsonschema.UnmarshalJSON(resp.Body)
}

// urnLoader resolves urn: references with Helm's URNResolver, and else
// with a permissive schema, as Helm does (without its log line: the
// library never prints).
type urnLoader struct{}

func (urnLoader) Load(url string) (any, error) {
	if doc, err := chartutil.URNResolver(url); err == nil && doc != nil {
		return doc, nil
	}
	return jsonschema.UnmarshalJSON(strings.NewReader("true"))
}

// chartFileLoader loads a file $ref of a values schema from the chart's
// own files, as the chart reader read them (inside the repository, links
// checked, regular files within Helm's limits): "file:///defs.json" and a
// relative "defs.json" (which the schema's name, file:///values.schema.json,
// makes the same) are the chart's defs.json. Nothing of the machine is
// read, and an error names the reference, never what is there.
type chartFileLoader struct{ c *chart.Chart }

func (l chartFileLoader) Load(ref string) (any, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(path.Clean("/"+u.Path), "/")
	for _, f := range l.c.Raw {
		if f.Name == name {
			return jsonschema.UnmarshalJSON(bytes.NewReader(f.Data))
		}
	}
	return nil, fmt.Errorf("the values schema refers to %s, which is not a file of chart %s: a schema's $ref may name only the chart's own files", ref, l.c.Name())
}
