package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
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
		if err := r.validateSingle(values, c.Schema); err != nil {
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

// validateSingle is chartutil.ValidateAgainstSingleSchema, the schema
// compiled once per run.
func (r *Renderer) validateSingle(values chartutil.Values, schemaJSON []byte) (reterr error) {
	defer func() {
		if p := recover(); p != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", p)
		}
	}()
	sum := sha256.Sum256(schemaJSON)
	s, err := r.valueSchemas.Get(string(sum[:]), func() (*jsonschema.Schema, error) { return r.compileValuesSchema(schemaJSON) })
	if err != nil {
		return err
	}
	if err := s.Validate(values.AsMap()); err != nil {
		// Helm's JSONSchemaValidationError.
		return errors.New(strings.TrimPrefix(err.Error(), "jsonschema validation failed with 'file:///values.schema.json#'\n") + "\n")
	}
	return nil
}

// compileValuesSchema compiles a values.schema.json as Helm does: the same
// resource name and loaders, except that offline runs fetch no remote
// $ref, and an unresolved urn: is permissive without Helm's log line.
func (r *Renderer) compileValuesSchema(schemaJSON []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, &SchemaError{Line: jsonErrorLine(schemaJSON, err), Err: err}
	}
	web := &schemaHTTPLoader{client: &http.Client{Timeout: 15 * time.Second, Transport: r.chartCfg.HTTP.Transport}, offline: r.opts.Offline}
	compiler := jsonschema.NewCompiler()
	compiler.UseLoader(jsonschema.SchemeURLLoader{
		"file":  jsonschema.FileLoader{},
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

// schemaHTTPLoader loads a remote $ref of a values schema.
type schemaHTTPLoader struct {
	client  *http.Client
	offline bool
}

func (l *schemaHTTPLoader) Load(url string) (any, error) {
	if l.offline {
		return nil, fmt.Errorf("the values schema refers to %s, and --offline downloads nothing", url)
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
