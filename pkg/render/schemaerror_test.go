package render_test

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// TestSchemaErrorNamesTheFile: a values.schema.json that is not JSON, the
// chart's own or a vendored subchart's, fails the target at that file and
// line. (Before, the message was Helm's "values don't meet the
// specifications of the schema(s)" with "unexpected EOF", and lint pointed
// at Chart.yaml.)
func TestSchemaErrorNamesTheFile(t *testing.T) {
	for name, tc := range map[string]struct {
		file, schema string
		line         int
	}{
		"the chart's, cut short":       {"namespaces/app/values.schema.json", "{\n  \"type\": \"object\",\n", 2},
		"the chart's, a stray comma":   {"namespaces/app/values.schema.json", "{\n  \"type\": \"object\",\n  \"properties\": {},\n}\n", 4},
		"a vendored subchart's":        {"namespaces/app/charts/db/values.schema.json", "{\"type\": \"object\"\n\"x\": 1}\n", 2},
		"the chart's, not JSON at all": {"namespaces/app/values.schema.json", "type: object\n", 1},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"namespaces/app/Chart.yaml":                 {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
				"namespaces/app/templates/cm.yaml":          {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n")},
				"namespaces/app/charts/db/Chart.yaml":       {Data: []byte("apiVersion: v2\nname: db\nversion: 1.0.0\n")},
				"namespaces/app/charts/db/templates/s.yaml": {Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: db\n")},
				"clusters/dev/app/dev-values-app.yaml":      {Data: []byte("db:\n  size: 1\n")},
				tc.file:                                     {Data: []byte(tc.schema)},
			}
			repo, err := layout.Load(context.Background(), fsys, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			target, _ := repo.Target("dev", "app")
			res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), target)
			if err == nil {
				err = res.Err
			}
			var se *render.SchemaError
			if !errors.As(err, &se) || se.File != tc.file || se.Line != tc.line {
				t.Fatalf("error %v, want a SchemaError at %s:%d", err, tc.file, tc.line)
			}
		})
	}
}
