package render_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/render"
)

// TestValuesSchemaParity: repotool checks values against the charts'
// values.schema.json itself (each schema compiled once per run), so it
// must accept and refuse exactly what `helm template` does, with the same
// message: subcharts, disabled subcharts, import-values, urn: references,
// and a real chart (cert-manager's schema).
func TestValuesSchemaParity(t *testing.T) {
	helm := helmCLI{testtool.Helm(t), render.HelmV3}
	const enumSchema = `{"type":"object","properties":{"greeting":{"type":"string","enum":["hello","hi"]}}}`
	const strictSchema = `{"type":"object","additionalProperties":false,"properties":{"enabled":{"type":"boolean"},"size":{"type":"integer","minimum":1},"exported":{"type":"object"},"global":{"type":"object"}}}`
	chart := func(deps string) map[string]string {
		files := map[string]string{
			"app/Chart.yaml":                   "apiVersion: v2\nname: app\nversion: 1.0.0\n" + deps,
			"app/values.schema.json":           enumSchema,
			"app/values.yaml":                  "greeting: hello\nimported: {}\n",
			"app/templates/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: {{ .Values.greeting | quote }}\n  imported: {{ .Values.imported | toJson | quote }}\n",
			"app/charts/db/Chart.yaml":         "apiVersion: v2\nname: db\nversion: 1.0.0\n",
			"app/charts/db/values.schema.json": strictSchema,
			"app/charts/db/values.yaml":        "enabled: true\nsize: 1\nexported:\n  port: 5432\n",
			"app/charts/db/templates/s.yaml":   "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  ports:\n    - port: {{ .Values.exported.port }}\n",
		}
		return files
	}
	withDB := "dependencies:\n  - name: db\n    version: 1.0.0\n    condition: db.enabled\n    import-values:\n      - child: exported\n        parent: imported\n"
	tests := []struct {
		name   string
		files  map[string]string
		values string
		// fails says how helm template ends: "" renders, else its error
		// holds this.
		fails string
	}{
		{"valid", chart(withDB), "greeting: hi\n", ""},
		{"parent refuses", chart(withDB), "greeting: bonjour\n", "app:\n- at '/greeting'"},
		{"subchart refuses", chart(withDB), "db:\n  size: 0\n  colour: red\n", "- at '': additional properties 'colour' not allowed"},
		{"subchart values not a map", chart(withDB), "db: [1]\n", "type mismatch on db"},
		{"disabled subchart is not checked", chart(withDB), "db:\n  enabled: false\n  size: 0\n", ""},
		{"both refuse", chart(withDB), "greeting: 3\ndb:\n  size: -1\n", "db:\n- at '/size'"},
		{"urn reference is permissive", func() map[string]string {
			f := chart(withDB)
			f["app/values.schema.json"] = `{"type":"object","properties":{"greeting":{"$ref":"urn:example:greeting"}}}`
			return f
		}(), "greeting: anything\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			compareSchemaHandling(t, helm, tt.files, tt.values, tt.fails)
		})
	}
	t.Run("cert-manager", func(t *testing.T) {
		files := map[string]string{}
		for p, data := range testtool.Community(t, "cert-manager").Files(t) {
			files["app/"+p] = data
		}
		compareSchemaHandling(t, helm, files, "replicaCount: 2\n", "")
		compareSchemaHandling(t, helm, files, "replicaCount: two\nunknownKey: 1\n", "- at '': additional properties 'unknownKey' not allowed")
	})
}

// compareSchemaHandling renders chart files (app/...) with values as
// repotool and as helm template: the same bytes, or the same error.
func compareSchemaHandling(t *testing.T, helm helmCLI, files map[string]string, values, fails string) {
	t.Helper()
	root := t.TempDir()
	repoFiles := map[string]string{"clusters/c1/app/c1-values.yaml": values}
	for p, data := range files {
		repoFiles["namespaces/"+p] = data
	}
	testtool.WriteFiles(t, root, repoFiles)
	repo, err := layout.LoadDir(context.Background(), root, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tg, ok := repo.Target("c1", "app")
	if !ok {
		t.Fatalf("no target: %v", repo.Diagnostics)
	}
	res := render.New(repo, render.DefaultOptions()).RenderAll(context.Background(), []layout.Target{*tg})[0]
	stderr := compareTarget(t, helm, root, res)
	if (res.Err != nil) != (fails != "") || !strings.Contains(string(stderr), fails) {
		t.Fatalf("helm template: %s, want it to fail with %q; repotool: %v", stderr, fails, res.Err)
	}
}

// TestSharingWith: a renderer sharing another's caches does not compile
// again a values schema the other compiled (its remote $ref is fetched
// once), and still checks its own values against it.
func TestSharingWith(t *testing.T) {
	var fetched atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		fmt.Fprint(w, `{"type":"string","enum":["hello","hi"]}`)
	}))
	defer srv.Close()
	load := func(greeting string) *layout.Repo {
		root := t.TempDir()
		testtool.WriteFiles(t, root, map[string]string{
			"namespaces/app/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 1.0.0\n",
			"namespaces/app/values.schema.json": `{"type":"object","properties":{"greeting":{"$ref":"` + srv.URL + `/greeting.json"}}}`,
			"namespaces/app/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: {{ .Values.greeting | quote }}\n",
			"clusters/c1/app/c1-values.yaml":    "greeting: " + greeting + "\n",
		})
		repo, err := layout.LoadDir(context.Background(), root, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return repo
	}
	for _, share := range []bool{false, true} {
		fetched.Store(0)
		base, head := load("hello"), load("bonjour")
		opts := render.DefaultOptions()
		opts.RemoteSchemaRefs = true // the operator asks
		first := render.New(base, opts, render.WithHTTPClient(srv.Client()))
		if res := first.RenderAll(context.Background(), base.Targets); res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
		extra := []render.Option{render.WithHTTPClient(srv.Client())}
		if share {
			extra = append(extra, render.SharingWith(first))
		}
		res := render.New(head, opts, extra...).RenderAll(context.Background(), head.Targets)
		if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "/greeting") {
			t.Errorf("share %v: the second rendering's error %v, want the schema to refuse its greeting", share, res[0].Err)
		}
		if want := map[bool]int64{false: 2, true: 1}[share]; fetched.Load() != want {
			t.Errorf("share %v: the remote $ref was fetched %d times, want %d", share, fetched.Load(), want)
		}
	}
}

// TestSchemaRefsStayInTheChart: a values schema's file $ref reads the
// chart's own files only (never the machine's, whose content no error
// describes), and a remote $ref is fetched only when the operator asks.
func TestSchemaRefsStayInTheChart(t *testing.T) {
	var fetched atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()
	outside := t.TempDir() + "/outside.json"
	testtool.WriteFiles(t, "/", map[string]string{strings.TrimPrefix(outside, "/"): `{"type":"string","enum":["OUTSIDE-CANARY"]}`})
	for _, tt := range []struct {
		name, ref string
		remote    bool
		fails     string // "" renders
	}{
		{"the chart's own file", "defs.json", false, ""},
		{"the chart's own file, absolute", "file:///defs.json", false, ""},
		{"a file of the machine", "file://" + outside, false, "which is not a file of chart app"},
		{"the process's environment", "file:///proc/self/environ", false, "which is not a file of chart app"},
		{"a climb out of the chart", "../../../etc/passwd", false, "which is not a file of chart app"},
		{"remote, not asked", srv.URL + "/greeting.json", false, "only when the operator asks"},
		{"remote, asked", srv.URL + "/greeting.json", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fetched.Store(0)
			root := t.TempDir()
			testtool.WriteFiles(t, root, map[string]string{
				"namespaces/app/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 1.0.0\n",
				"namespaces/app/defs.json":          `{"type":"string"}`,
				"namespaces/app/values.schema.json": `{"type":"object","properties":{"greeting":{"$ref":"` + tt.ref + `"}}}`,
				"namespaces/app/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: {{ .Values.greeting | quote }}\n",
				"clusters/c1/app/c1-values.yaml":    "greeting: hello\n",
			})
			repo, err := layout.LoadDir(context.Background(), root, layout.Options{})
			if err != nil {
				t.Fatal(err)
			}
			opts := render.DefaultOptions()
			opts.RemoteSchemaRefs = tt.remote
			res := render.New(repo, opts, render.WithHTTPClient(srv.Client())).RenderAll(context.Background(), repo.Targets)[0]
			switch {
			case tt.fails == "" && res.Err != nil:
				t.Fatalf("fails: %v", res.Err)
			case tt.fails != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tt.fails)):
				t.Fatalf("error %v, want %q", res.Err, tt.fails)
			case res.Err != nil && (strings.Contains(res.Err.Error(), "OUTSIDE-CANARY") || strings.Contains(res.Err.Error(), "PATH=")):
				t.Fatalf("the error describes a file outside the chart: %v", res.Err)
			}
			if want := map[bool]int64{false: 0, true: 1}[tt.remote]; fetched.Load() != want {
				t.Errorf("fetched %d times, want %d", fetched.Load(), want)
			}
		})
	}
}

// TestSchemaKeyHoldsTheChartsFiles: two renderers that share compiled
// schemas (diff's base and head) do not share one whose $ref'd file
// differs between them, though the schema's own bytes are the same.
func TestSchemaKeyHoldsTheChartsFiles(t *testing.T) {
	load := func(allowed string) *layout.Repo {
		root := t.TempDir()
		testtool.WriteFiles(t, root, map[string]string{
			"namespaces/app/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 1.0.0\n",
			"namespaces/app/defs.json":          `{"type":"string","enum":["` + allowed + `"]}`,
			"namespaces/app/values.schema.json": `{"type":"object","properties":{"greeting":{"$ref":"defs.json"}}}`,
			"namespaces/app/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n",
			"clusters/c1/app/c1-values.yaml":    "greeting: bonjour\n",
		})
		repo, err := layout.LoadDir(context.Background(), root, layout.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return repo
	}
	base, head := load("hello"), load("bonjour")
	first := render.New(base, render.DefaultOptions())
	if res := first.RenderAll(context.Background(), base.Targets); res[0].Err == nil {
		t.Fatal("the base's schema accepts bonjour")
	}
	if res := render.New(head, render.DefaultOptions(), render.SharingWith(first)).RenderAll(context.Background(), head.Targets); res[0].Err != nil {
		t.Errorf("the head was validated with the base's defs.json: %v", res[0].Err)
	}
}
