package engine

import (
	"context"
	"reflect"
	"testing"
)

// TestUnstableCalls: a rendering reports the unstable functions it
// called, in the template (a partial's file for a named template) and at
// the line where that template mentions the function; a function in a
// branch not taken, and a date given a time, are not calls of the clock
// or chance; text given to tpl is reported at the tpl call. Verified,
// a call whose result the templates throw away (default's argument when a
// value is given) or reduce to what any run gives (the length of a random
// string) is none.
func TestUnstableCalls(t *testing.T) {
	c := load(t, map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"templates/_helpers.tpl": "{{/* stamp */}}\n{{- define \"app.stamp\" -}}\n" +
			"{{ now | date \"2006\" }}\n{{- end }}\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n" +
			"  a: {{ randAlphaNum 8 | quote }}\n" + // line 6
			"  b: {{ if false }}{{ uuidv4 }}{{ end }}x\n" +
			"  c: {{ include \"app.stamp\" . | quote }}\n" +
			"  d: {{ date \"2006\" .Values.when | quote }}\n" + // line 9
			"  e: {{ date \"2006\" 0 | quote }}\n" +
			"  f: {{ tpl .Values.text . | quote }}\n" + // line 11
			"  g: {{ lookup \"v1\" \"Secret\" \"ns\" \"x\" | len | quote }}\n" +
			"  h: {{ randAlphaNum 4 | quote }}\n" +
			"  i: {{ .Values.given | default (shuffle \"abc\") | quote }}\n",
		"templates/job.yaml":   "{{- if .Values.job }}\n{{ genCA \"x\" 1 }}\n{{- end }}\n",
		"templates/fixed.yaml": "{{ date \"2006\" 0 }}{{ date \"2006\" .Values.at }}\n",
		"templates/len.yaml":   "n: {{ randAlphaNum 8 | len }}\n",
	})
	vals := map[string]any{"when": "yesterday", "text": "{{ uuidv4 }}", "at": 1700000000, "given": "x"}
	var e Engine
	out, calls, err := e.RenderCalls(context.Background(), c, topValues(t, c, vals), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 7 || calls[5].Func != "shuffle" || calls[6].Template != "app/templates/len.yaml" {
		t.Errorf("unverified calls: %+v", calls)
	}
	out, calls, err = e.RenderCalls(context.Background(), c, topValues(t, c, vals), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []Call{
		{Func: "now", Template: "app/templates/_helpers.tpl", Line: 3},
		{Func: "randAlphaNum", Template: "app/templates/cm.yaml", Line: 6},
		{Func: "date", Template: "app/templates/cm.yaml", Line: 9},
		{Func: "uuidv4", Template: "app/templates/cm.yaml", Line: 11, ViaTpl: true},
		{Func: "lookup", Template: "app/templates/cm.yaml", Line: 12},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls:\n%+v\nwant:\n%+v", calls, want)
	}
	// The output of the calls that are stable is Helm's.
	helm := helmRender(t, c, vals)
	for _, name := range []string{"app/templates/fixed.yaml", "app/templates/len.yaml", "app/templates/job.yaml"} {
		if out[name] != helm.out[name] || helm.out[name] == "" && name != "app/templates/job.yaml" {
			t.Errorf("%s: %q, Helm's %q", name, out[name], helm.out[name])
		}
	}
}
