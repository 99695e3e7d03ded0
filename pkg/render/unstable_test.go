package render_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
)

// TestUnstableCalls: a rendering's unstable calls name the repository
// file of the template that calls them (a file:// dependency's own file,
// a partial's for a named template) and the line; a call the values
// leave in a branch not taken is none.
func TestUnstableCalls(t *testing.T) {
	files := map[string]string{
		"namespaces/app/Chart.yaml": appChart + "dependencies:\n  - name: lib\n    version: 1.2.0\n    repository: file://../../libs/lib\n",
		"namespaces/app/templates/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n" +
			"  password: {{ .Values.password | default (randAlphaNum 16) }}\n" +
			"{{- if .Values.ca }}\n  ca: {{ (genCA \"x\" 365).Cert | quote }}\n{{- end }}\n",
		"libs/lib/Chart.yaml":             "apiVersion: v2\nname: lib\nversion: 1.2.0\n",
		"libs/lib/templates/_helpers.tpl": "{{- define \"lib.id\" -}}\n{{ uuidv4 }}\n{{- end }}\n",
		"libs/lib/templates/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lib\ndata:\n  id: {{ include \"lib.id\" . | quote }}\n",
		"clusters/c1/app/values-a.yaml":   "ca: false\n",
	}
	repo := mapRepo(t, files)
	res, err := render.New(repo, render.DefaultOptions()).Render(context.Background(), &repo.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	want := []render.Unstable{
		{Func: "uuidv4", Template: "app/charts/lib/templates/_helpers.tpl", Source: manifest.Source{File: "libs/lib/templates/_helpers.tpl"}, Line: 2},
		{Func: "randAlphaNum", Template: "app/templates/secret.yaml", Source: manifest.Source{File: "namespaces/app/templates/secret.yaml"}, Line: 6},
	}
	if !reflect.DeepEqual(res.Unstable, want) {
		t.Errorf("unstable:\n%+v\nwant:\n%+v", res.Unstable, want)
	}
}
