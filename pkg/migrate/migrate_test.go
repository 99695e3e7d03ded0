package migrate_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/repotool/repotool/internal/testing/golden"
	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/lint"
	"github.com/repotool/repotool/pkg/migrate"
)

// plan runs migrate.Plan and fails the test on an error.
func plan(t *testing.T, fsys fstest.MapFS, opts migrate.Options) *migrate.Result {
	t.Helper()
	res, err := migrate.Plan(fsys, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// apply returns fsys with the plan's files written.
func apply(fsys fstest.MapFS, res *migrate.Result) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range fsys {
		out[k] = v
	}
	for _, f := range res.Files {
		out[f.Path] = &fstest.MapFile{Data: f.New}
	}
	return out
}

// report is the plan's diff and report, as the command prints them.
func report(t *testing.T, res *migrate.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(res.Diff())
	b.WriteString("=== report\n")
	if err := res.WriteReport(&b, false); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// esoCRDs are External Secrets Operator's own CRDs, from its Go module
// (internal/corpus pins the version), as repository files under crds/eso.
func esoCRDs(t *testing.T) fstest.MapFS {
	t.Helper()
	return esoCRDsIn(t, filepath.Join(testtool.CorpusDir(t, "github.com/external-secrets/external-secrets"), "config", "crds", "bases"))
}

// eso2CRDs are ESO 2.9's (../shared/eso, upstream's config/crds/bases):
// ESO 2 is not a Go module the proxy serves.
func eso2CRDs(t *testing.T) fstest.MapFS {
	t.Helper()
	return esoCRDsIn(t, filepath.Join(testtool.Shared(t, "eso"), "crds"))
}

func esoCRDsIn(t *testing.T, dir string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	for _, name := range []string{"external-secrets.io_externalsecrets.yaml", "external-secrets.io_secretstores.yaml", "external-secrets.io_clustersecretstores.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out["crds/eso/"+name] = &fstest.MapFile{Data: data}
	}
	return out
}

// lintFindings lints files (plain manifests) in a one-cluster repository
// that installs ESO's CRDs, and returns the schema and stray-api-version
// findings about files under dir.
func lintFindings(t *testing.T, files fstest.MapFS, crds fstest.MapFS, dir string) []string {
	t.Helper()
	fsys := fstest.MapFS{
		"repotool.yaml":                  {Data: []byte("clusters:\n  c1: {kubeVersion: v1.33.0}\n")},
		"namespaces/app/Chart.yaml":      {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"clusters/c1/app/c1-values.yaml": {Data: []byte("a: 1\n")},
	}
	for k, v := range crds {
		fsys[k] = v
	}
	for k, v := range files {
		fsys[k] = v
	}
	repo, err := layout.Load(context.Background(), fsys, layout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Lint(context.Background(), repo, lint.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		if (f.Rule == "schema" || f.Rule == "stray-api-version") && strings.HasPrefix(f.File, dir+"/") {
			out = append(out, f.File+": "+f.Rule+": "+f.Message)
		}
	}
	return out
}

// TestBackends converts one KES object per backend type KES documents
// (written for these tests from the fields KES documents, every one of
// them used): each gives its golden diff and report, and every object
// and store written validates strictly against External Secrets
// Operator 2.9's CRDs, with no stray-api-version left. Alibaba Cloud,
// whose provider ESO 2.0 removed, is refused for ESO 2 (what the ESO 1
// translation would write, ESO 2.9's CRDs refuse) and converted for ESO 1
// (--eso-version 1), validated against ESO 1.3's CRDs.
func TestBackends(t *testing.T) {
	crds1, crds2 := esoCRDs(t), eso2CRDs(t)
	inputs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "migrate", "backends", "*.yaml"))
	if err != nil || len(inputs) < 9 {
		t.Fatalf("inputs: %v %v", inputs, err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			fsys := fstest.MapFS{"bootstrap/" + name + ".yaml": {Data: data}}
			crds, opts := crds2, migrate.Options{}
			if before := lintFindings(t, fsys, crds, "bootstrap"); len(before) == 0 || !strings.Contains(before[0], "kubernetes-client.io/v1") {
				t.Fatalf("before the migration, lint does not flag the KES object: %v", before)
			}
			if name == "alibaba" {
				refused := plan(t, fsys, opts)
				if len(refused.Converted) > 0 || len(refused.Refused) != 1 || !strings.Contains(refused.Refused[0].Detail, "External Secrets Operator 2.0 removed its Alibaba Cloud provider") {
					t.Fatalf("for ESO 2: converted %v, refused %v", refused.Converted, refused.Refused)
				}
				crds, opts = crds1, migrate.Options{ESOVersion: "1"}
				if on2 := lintFindings(t, apply(fsys, plan(t, fsys, opts)), crds2, "bootstrap"); !slices.ContainsFunc(on2, func(f string) bool { return strings.Contains(f, "alibaba") }) {
					t.Errorf("ESO 2.9's CRDs accept the ESO 1 translation: %v", on2)
				}
			}
			res := plan(t, fsys, opts)
			if len(res.Refused) > 0 || len(res.Converted) == 0 {
				t.Fatalf("converted %v, refused %v", res.Converted, res.Refused)
			}
			golden.Check(t, filepath.Join("..", "..", "testdata", "migrate", "backends", name+".golden"), report(t, res))
			if strings.Contains(res.Diff(), "refreshInterval") {
				t.Error("a refreshInterval is written: ESO rewrites a non-canonical one (1h to 1h0m0s) and Argo CD then shows the object OutOfSync; ESO's default is left")
			}
			if after := lintFindings(t, apply(fsys, res), crds, "bootstrap"); len(after) > 0 {
				t.Errorf("after the migration:\n%s", strings.Join(after, "\n"))
			}
			again := plan(t, fsys, opts)
			if again.Diff() != res.Diff() {
				t.Error("two plans of the same input differ")
			}
			if second := plan(t, apply(fsys, res), opts); len(second.Files) > 0 {
				t.Errorf("a second run changes files:\n%s", second.Diff())
			}
		})
	}
}

// TestSettings fills the stores from settings instead of placeholders,
// and refuses unknown ones.
func TestSettings(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "migrate", "backends", "vault-kv1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"bootstrap/legacy.yaml": {Data: data}}
	res := plan(t, fsys, migrate.Options{Settings: migrate.Settings{"vault.server": "https://vault.example.com:8200", "vault.mountPath": "kubernetes", "vault.role": "legacy"}})
	diff := res.Diff()
	for _, want := range []string{"+      server: https://vault.example.com:8200", "+          mountPath: kubernetes", "+          role: legacy"} {
		if !strings.Contains(diff, want) {
			t.Errorf("no %q in\n%s", want, diff)
		}
	}
	if strings.Contains(diff, migrate.Placeholder) || len(res.Todo) > 0 {
		t.Errorf("placeholders left: %v", res.Todo)
	}
	if _, err := migrate.Plan(fsys, migrate.Options{Settings: migrate.Settings{"vault.adress": "x"}}); err == nil || !strings.Contains(err.Error(), `unknown setting "vault.adress"`) {
		t.Errorf("unknown setting: %v", err)
	}
	if _, err := migrate.Plan(fsys, migrate.Options{StoreKind: "Store"}); err == nil {
		t.Error("an unknown store kind was accepted")
	}
	cluster := plan(t, fsys, migrate.Options{StoreKind: "ClusterSecretStore"})
	if d := cluster.Diff(); !strings.Contains(d, "+kind: ClusterSecretStore") || !strings.Contains(d, "+    kind: ClusterSecretStore") {
		t.Errorf("--store-kind ClusterSecretStore:\n%s", d)
	}
}

// TestRefusals: what cannot be translated mechanically is refused with
// the file, the line and why, and the rest of the file is converted.
func TestRefusals(t *testing.T) {
	kes := func(spec string) string {
		return "apiVersion: kubernetes-client.io/v1\nkind: ExternalSecret\nmetadata:\n  name: x\nspec:\n" + spec
	}
	tests := []struct {
		name, doc, want string
		line            int
	}{
		{"lodash code", kes("  backendType: vault\n  data:\n    - key: a\n      name: s1\n  template:\n    stringData:\n      f: <%= JSON.parse(data.s1).f %>\n"), "is code, not a fetched value", 13},
		{"escaping lodash", kes("  backendType: vault\n  data:\n    - key: a\n      name: s1\n  template:\n    stringData:\n      f: <%- data.s1 %>\n"), "is code, not a fetched value", 13},
		{"template data", kes("  backendType: vault\n  data:\n    - key: a\n      name: s1\n  template:\n    data:\n      f: Zm9v\n"), "write them as stringData first", 12},
		{"unknown field", kes("  backendType: vault\n  controller: dev\n  data:\n    - key: a\n      name: s1\n"), "spec.controller has no External Secrets Operator equivalent", 8},
		{"unknown backend", kes("  backendType: keyWhisperer\n  data:\n    - key: a\n      name: s1\n"), `backendType "keyWhisperer" is not one KES documents`, 7},
		{"path outside SSM", kes("  backendType: vault\n  data:\n    - path: /a/\n"), "systemManager only", 9},
		{"no data", kes("  backendType: vault\n"), "neither data nor dataFrom", 7},
		{"no name", kes("  backendType: vault\n  data:\n    - key: a\n"), "a key and no name", 9},
		{"invalid Secret key", kes("  backendType: vault\n  data:\n    - key: a\n      name: fooName:5\n"), `name "fooName:5" is not a valid key of a Secret`, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			good := kes("  backendType: vault\n  data:\n    - key: b\n      name: s2\n")
			good = strings.Replace(good, "name: x", "name: fine", 1)
			fsys := fstest.MapFS{"bootstrap/es.yaml": {Data: []byte("# header comment\n" + tt.doc + "---\n" + good)}}
			res := plan(t, fsys, migrate.Options{})
			if len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Detail, tt.want) || res.Refused[0].Line != tt.line || res.Refused[0].File != "bootstrap/es.yaml" {
				t.Fatalf("refused = %+v, want line %d: %s", res.Refused, tt.line, tt.want)
			}
			if len(res.Converted) != 1 || res.Converted[0].Name != "fine" {
				t.Errorf("converted = %+v", res.Converted)
			}
			out := string(res.Files[0].New)
			if !strings.HasPrefix(out, "# header comment\n"+tt.doc+"---\n") {
				t.Errorf("the refused object was changed:\n%s", out)
			}
		})
	}
}

// TestChartTemplate converts an object a chart template writes with
// value substitutions, and refuses one built with template logic; the
// chart still renders, and ESO's own template actions survive Helm.
func TestChartTemplate(t *testing.T) {
	chart := fstest.MapFS{
		"namespaces/app/Chart.yaml":  {Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		"namespaces/app/values.yaml": {Data: []byte("region: eu-west-1\nsecretName: app-db\n")},
		"namespaces/app/templates/es.yaml": {Data: []byte(`# The database credentials.
apiVersion: kubernetes-client.io/v1
kind: ExternalSecret
metadata:
  name: {{ .Values.secretName }}
  labels:
    app.kubernetes.io/instance: "{{ .Release.Name }}"
spec:
  backendType: secretsManager
  region: {{ .Values.region | quote }}
  data:
    - key: {{ printf "%s/db" .Release.Namespace }}
      name: password
  template:
    stringData:
      dsn: "postgres://app:<%= data.password %>@db:5432/app"
`)},
		"namespaces/app/templates/logic.yaml": {Data: []byte(`{{- if .Values.enabled }}
apiVersion: kubernetes-client.io/v1
kind: ExternalSecret
metadata:
  name: optional
spec:
  backendType: vault
  data:
    - key: a
      name: b
{{- end }}
`)},
		"namespaces/app/templates/block.yaml":   {Data: []byte("apiVersion: kubernetes-client.io/v1\nkind: ExternalSecret\nmetadata:\n  name: labelled\n  labels:\n    {{- include \"app.labels\" . | nindent 4 }}\nspec:\n  backendType: vault\n  data:\n    - key: a\n      name: b\n")},
		"namespaces/app/templates/_helpers.tpl": {Data: []byte("{{- define \"app.labels\" -}}\napp: demo\n{{- end }}\n")},
		"namespaces/app/templates/cm.yaml":      {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: untouched\n")},
		"clusters/c1/app/c1-values.yaml":        {Data: []byte("a: 1\n")},
	}
	res := plan(t, chart, migrate.Options{})
	golden.Check(t, filepath.Join("..", "..", "testdata", "migrate", "chart-template.golden"), report(t, res))
	if len(res.Refused) != 2 || res.Refused[0].File != "namespaces/app/templates/block.yaml" || res.Refused[0].Line != 6 ||
		res.Refused[1].File != "namespaces/app/templates/logic.yaml" || res.Refused[1].Line != 1 || !strings.Contains(res.Refused[1].Detail, "template logic ({{- if .Values.enabled }})") {
		t.Errorf("refused: %+v", res.Refused)
	}
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != "namespaces/app/templates/es.yaml namespaces/app/templates/kes-secretstores.yaml" {
		t.Errorf("files: %v", paths)
	}
	es := string(res.Files[0].New)
	for _, want := range []string{"# The database credentials.\n", "name: {{ .Values.secretName }}\n", `app.kubernetes.io/instance: "{{ .Release.Name }}"`, `key: {{ printf "%s/db" .Release.Namespace }}`, "{{ `{{ .password }}` }}"} {
		if !strings.Contains(es, want) {
			t.Errorf("no %q in\n%s", want, es)
		}
	}
	stores := string(res.Files[1].New)
	if !strings.Contains(stores, `region: {{ .Values.region | quote }}`) {
		t.Errorf("the store lost the region's template action:\n%s", stores)
	}
	// Rendered, the chart holds ESO objects with ESO's template intact.
	out := renderApp(t, apply(chart, res))
	for _, want := range []string{"name: app-db\n", "region: \"eu-west-1\"", "key: app/db", `dsn: "postgres://app:{{ .password }}@db:5432/app"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendered chart has no %q:\n%s", want, out)
		}
	}
}

// TestSideBySide: --target-suffix keeps the KES object and adds the ESO
// one writing NAME+SUFFIX; --switch then removes the KES object and the
// suffix; comments and other objects are kept; SOPS files are not read.
func TestSideBySide(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "migrate", "backends", "vault-kv2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	other := "---\n# keep me\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other # trailing comment\n"
	secret := "apiVersion: kubernetes-client.io/v1\nkind: ExternalSecret\nmetadata:\n    name: ENC[AES256_GCM,data:abc,iv:x,tag:y,type:str]\nsops:\n    mac: ENC[AES256_GCM,data:m,iv:i,tag:t,type:str]\n    version: 3.9.0\n"
	fsys := fstest.MapFS{
		"clusters/c1/search/es.yaml":          {Data: append(append([]byte{}, data...), other...)},
		"clusters/c1/search/sealed.sops.yaml": {Data: []byte(secret)},
	}
	side := plan(t, fsys, migrate.Options{Suffix: "-eso"})
	golden.Check(t, filepath.Join("..", "..", "testdata", "migrate", "side-by-side.golden"), report(t, side))
	if !slices.Equal(side.Encrypted, []string{"clusters/c1/search/sealed.sops.yaml"}) {
		t.Errorf("encrypted: %v", side.Encrypted)
	}
	for _, f := range side.Files {
		if strings.HasSuffix(f.Path, ".sops.yaml") {
			t.Error("a SOPS file is written")
		}
	}
	mid := apply(fsys, side)
	es := string(mid["clusters/c1/search/es.yaml"].Data)
	if !strings.HasPrefix(es, string(data)) || !strings.HasSuffix(es, other) || !strings.Contains(es, "name: search-creds-eso") || !strings.Contains(es, migrate.SuffixAnnotation+": -eso") {
		t.Errorf("side by side:\n%s", es)
	}
	if again := plan(t, mid, migrate.Options{Suffix: "-eso"}); len(again.Files) > 0 || len(again.Converted) > 0 {
		t.Errorf("a second side-by-side run converts again:\n%s", again.Diff())
	}
	sw := plan(t, mid, migrate.Options{Switch: true})
	golden.Check(t, filepath.Join("..", "..", "testdata", "migrate", "switch.golden"), report(t, sw))
	done := string(apply(mid, sw)["clusters/c1/search/es.yaml"].Data)
	if strings.Contains(done, "kubernetes-client.io") || strings.Contains(done, "-eso") || strings.Contains(done, migrate.SuffixAnnotation) || !strings.Contains(done, "name: search-creds\n") || !strings.HasSuffix(done, other) {
		t.Errorf("after --switch:\n%s", done)
	}
	if !strings.HasPrefix(done, "# Written for repotool's tests") {
		t.Errorf("the file's first comment is gone:\n%s", done)
	}
}

// TestLinks: a link to a file with KES objects is refused (the file is
// converted where it is), and a link that cannot be followed is refused,
// not passed by.
func TestLinks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "migrate", "backends", "vault-kv1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testtool.WriteFiles(t, dir, map[string]string{"shared/es.yaml": string(data)})
	for link, target := range map[string]string{"clusters/c1/app/es.yaml": "../../../shared/es.yaml", "clusters/c1/app/gone.yaml": "../../../shared/missing.yaml"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := migrate.Plan(os.DirFS(dir), migrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Converted) != 1 || res.Converted[0].File != "shared/es.yaml" {
		t.Errorf("converted: %+v", res.Converted)
	}
	if len(res.Refused) != 2 ||
		res.Refused[0].File != "clusters/c1/app/es.yaml" || !strings.Contains(res.Refused[0].Detail, "a link to ../../../shared/es.yaml") ||
		res.Refused[1].File != "clusters/c1/app/gone.yaml" || !strings.Contains(res.Refused[1].Detail, "a link that cannot be followed") {
		t.Errorf("refused: %+v", res.Refused)
	}
	for _, f := range res.Files {
		if strings.HasPrefix(f.Path, "clusters/") {
			t.Errorf("a link is written: %s", f.Path)
		}
	}
}
