package engine

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	loader4 "helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil4 "helm.sh/helm/v4/pkg/chart/v2/util"
	helmengine4 "helm.sh/helm/v4/pkg/engine"

	"github.com/repotool/repotool/internal/testing/testtool"
)

// Helm 4's own engine (helm.sh/helm/v4/pkg/engine) is the oracle of the
// engine with Helm 4: the same chart files and values, loaded by each
// Helm's loader, must render the same output or fail with the same
// message.

func helm4Render(t testing.TB, files map[string]string, vals map[string]any) rendering {
	t.Helper()
	var bf []*archive.BufferedFile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		bf = append(bf, &archive.BufferedFile{Name: name, Data: []byte(files[name])})
	}
	c, err := loader4.LoadFiles(bf)
	if err != nil {
		t.Fatal(err)
	}
	if err := chartutil4.ProcessDependencies(c, vals); err != nil {
		t.Fatal(err)
	}
	top, err := commonutil.ToRenderValues(c, vals,
		common.ReleaseOptions{Name: "rel", Namespace: "ns", Revision: 1, IsInstall: true}, common.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	return newRendering(helmengine4.Render(c, top))
}

// sameAsHelm4 is sameAsHelm with Helm 4's engine as the oracle, for an
// engine with Helm 4.
func sameAsHelm4(t testing.TB, e *Engine, files map[string]string, vals map[string]any) rendering {
	t.Helper()
	want := helm4Render(t, files, vals)
	for i := range 2 {
		got := ourRender(t, e, load(t, files), vals)
		if got.err != want.err || (want.err == "" && !reflect.DeepEqual(got.out, want.out)) {
			t.Fatalf("rendering %d differs from Helm 4's engine:\n got: %s\nwant: %s", i+1, got, want)
		}
	}
	return want
}

func oneTemplate4(text string) map[string]string {
	return map[string]string{
		"Chart.yaml":       "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"templates/t.yaml": text,
	}
}

// durationInputs are values of every shape the duration helpers read,
// and ones they refuse.
var durationInputs = map[string]any{
	"duration": 90 * time.Minute, "go string": "1h30m", "padded": "  45s  ", "seconds string": "2.5",
	"exponent string": "1e3", "bad string": "soon", "empty": "", "blank": "   ", "nan string": "NaN", "inf string": "-Inf",
	"int": 90, "int8": int8(-5), "int64 max": int64(math.MaxInt64), "int64 min": int64(math.MinInt64),
	"uint": uint(7), "uint64 max": uint64(math.MaxUint64), "float": 1.5, "float32": float32(0.25),
	"tiny float": 1e-12, "huge float": 1e300, "nan": math.NaN(), "inf": math.Inf(-1),
	"nil": nil, "bool": true, "list": []any{1}, "map": map[string]any{"s": 1},
}

// TestHelm4FunctionsLikeHelm4 runs the functions Helm 4 adds on every
// input with both engines: the same output, or the same message.
func TestHelm4FunctionsLikeHelm4(t *testing.T) {
	e := Engine{Helm: 4}
	for name, v := range inputs {
		for _, text := range []string{`{{ mustToYaml .Values.v }}`, `{{ mustToToml .Values.v }}`, `{{ mustToToml (dict "k" .Values.v) }}`, `{{ mustToJson .Values.v }}`} {
			t.Run(name+" "+text, func(t *testing.T) { sameAsHelm4(t, &e, oneTemplate4(text), map[string]any{"v": v}) })
		}
	}
	funcs := []string{"mustToDuration", "durationSeconds", "durationMilliseconds", "durationMicroseconds", "durationNanoseconds",
		"durationMinutes", "durationHours", "durationDays", "durationWeeks"}
	for name, v := range durationInputs {
		for _, f := range funcs {
			text := "{{ " + f + " .Values.v }}"
			t.Run(name+" "+f, func(t *testing.T) { sameAsHelm4(t, &e, oneTemplate4(text), map[string]any{"v": v}) })
		}
		for _, text := range []string{`{{ durationRoundTo .Values.v "1m" }}`, `{{ durationTruncateTo "2h13m" .Values.v }}`, `{{ durationRoundTo "2h13m" .Values.v }}`} {
			t.Run(name+" "+text, func(t *testing.T) { sameAsHelm4(t, &e, oneTemplate4(text), map[string]any{"v": v}) })
		}
	}
}

// TestHelm4Errors: the messages of failed executions, as Helm 4 traces
// them through include and tpl, and required and fail as Helm 3 words
// them.
func TestHelm4Errors(t *testing.T) {
	e := Engine{Helm: 4}
	defs := `{{- define "deep" }}{{ .Values.a.b.c }}{{ end }}` +
		`{{- define "mid" }}{{ include "deep" . }}{{ end }}` +
		`{{- define "fails" }}{{ fail "from a define" }}{{ end }}` +
		`{{- define "loop" }}{{ include "loop" . }}{{ end }}`
	for name, text := range map[string]string{
		"nil pointer":           `{{ .Values.a.b.c }}`,
		"nil pointer in define": `{{ include "deep" . }}`,
		"two includes":          "line\n{{ include \"mid\" . }}",
		"in tpl":                `{{ tpl "{{ include \"mid\" . }}" . }}`,
		"tpl does not parse":    `{{ tpl "{{ if }}" . }}`,
		"missing template":      `{{ include "nowhere" . }}`,
		"template action":       `{{ template "nowhere" . }}`,
		"fail in define":        `{{ include "fails" . }}`,
		"fail":                  `{{ fail "plain" }}`,
		"required":              `{{ required "give x" .Values.x }}`,
		"function error":        `{{ mustToDuration "later" }}`,
		"index out of range":    `{{ index (list 1) 3 }}`,
		"field of a string":     `{{ .Values.s.field }}`,
		"call a non-function":   `{{ call .Values.s }}`,
		"recursion":             `{{ include "loop" . }}`,
		"range over a number":   `{{ range 5.5 }}{{ end }}`,
	} {
		t.Run(name, func(t *testing.T) {
			files := oneTemplate4(text)
			files["templates/_defs.tpl"] = defs
			got := sameAsHelm4(t, &e, files, map[string]any{"a": map[string]any{}, "s": "str"})
			if got.err == "" {
				t.Errorf("rendered: %s", got)
			}
		})
	}
	// The trace really is Helm 4's, not Helm 3's one line.
	files := oneTemplate4(`{{ include "mid" . }}`)
	files["templates/_defs.tpl"] = defs
	if got := sameAsHelm4(t, &e, files, map[string]any{"a": map[string]any{}}); !strings.Contains(got.err, "\n  executing \"deep\" at <.Values.a.b.c>:\n    nil pointer") {
		t.Errorf("not a trace: %s", got.err)
	}
}

// TestHelm4CommunityCharts renders the community charts with Helm 4's
// engine and this one with Helm 4.
func TestHelm4CommunityCharts(t *testing.T) {
	e := Engine{Helm: 4}
	for _, name := range []string{"cert-manager", "external-secrets", "ingress-nginx"} {
		t.Run(name, func(t *testing.T) {
			got := sameAsHelm4(t, &e, testtool.Community(t, name).Files(t), map[string]any{})
			if got.err != "" || len(got.out) < 5 {
				t.Errorf("%s: %s", name, got)
			}
		})
	}
}

// FuzzHelm4Durations: a fuzzed string read as a duration by every helper
// renders as with Helm 4's engine.
func FuzzHelm4Durations(f *testing.F) {
	for _, s := range []string{"1h", "2.5", " 3m ", "1e9", "-0", "1h-2m", "0x10", "1_000", "9223372036.854775807", ".5s", "NaN"} {
		f.Add(s)
	}
	e := Engine{Helm: 4}
	text := `{{ durationSeconds .Values.s }} {{ durationNanoseconds .Values.s }} {{ durationWeeks .Values.s }} ` +
		`{{ durationRoundTo .Values.s "7s" }} {{ durationTruncateTo "100h" .Values.s }} {{ mustToDuration .Values.s }}`
	f.Fuzz(func(t *testing.T, s string) {
		sameAsHelm4(t, &e, oneTemplate4(text), map[string]any{"s": s})
	})
}
