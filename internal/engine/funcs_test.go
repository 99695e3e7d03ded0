package engine

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// The functions written here (Helm's additions to sprig), each run on
// generated inputs in a one-template chart, by this engine and by Helm's.

// inputs are values of every shape a chart's values take: scalars of
// each type, strings YAML, JSON and TOML treat specially, nil, empty and
// nested collections.
var inputs = map[string]any{
	"nil":        nil,
	"empty":      "",
	"plain":      "plain",
	"yes":        "yes",
	"on":         "on",
	"tilde":      "~",
	"null":       "null",
	"octal":      "012",
	"float str":  "1e3",
	"colon":      "a: b",
	"hash":       "# not a comment",
	"dash":       "- item",
	"quotes":     `it's "quoted"`,
	"backslash":  `C:\path\n`,
	"multiline":  "line 1\nline 2\n",
	"indented":   "  leading\n\ttab",
	"unicode":    "é ✓ \u2028 😀",
	"control":    "\x00\x07\x1b",
	"html":       "<a href='x'>&</a>",
	"template":   "{{ .Values.x }}",
	"true":       true,
	"false":      false,
	"int":        42,
	"negative":   int64(-7),
	"big":        int64(1<<53 + 1),
	"float":      1.5,
	"whole":      float64(3),
	"huge":       1e300,
	"nan":        math.NaN(),
	"inf":        math.Inf(1),
	"list":       []any{1, "a", nil, true, []any{}, map[string]any{"k": "v"}},
	"empty list": []any{},
	"empty map":  map[string]any{},
	"map": map[string]any{
		"b": 1, "a": []any{"x", "y"}, "nested": map[string]any{"deep": map[string]any{"z": nil, "s": "yes"}},
		"key: with colon": "v", "": "empty key", "123": 1,
	},
	"strings": []string{"a", "b"},
	"ints":    map[string]int{"one": 1},
}

// documents are texts for the from* functions: what the to* functions
// print for each input, and texts that do not decode.
func documents() map[string]string {
	docs := map[string]string{
		"bad yaml":     "a: b: c",
		"bad json":     `{"a":`,
		"bad toml":     "a = ",
		"yaml list":    "- a\n- b",
		"json list":    `[1, "two", null]`,
		"json scalar":  `"x"`,
		"toml table":   "[t]\nk = 1\n",
		"yaml anchors": "a: &x 1\nb: *x\n",
		"yaml tags":    "a: !!str 1\nb: !!binary aGk=\n",
		"duplicates":   "a: 1\na: 2\n",
		"blank":        "",
		"spaces":       "   \n",
		"multi doc":    "a: 1\n---\nb: 2\n",
		"big number":   "n: 12345678901234567890\n",
	}
	for name, v := range inputs {
		docs["yaml of "+name] = toYAML(map[string]any{"v": v})
		docs["json of "+name] = toJSON(v)
		docs["toml of "+name] = toTOML(map[string]any{"v": v})
	}
	return docs
}

// TestFunctionsLikeHelm runs every function written here on every input
// with both engines; the output or the message must be the same.
func TestFunctionsLikeHelm(t *testing.T) {
	var e Engine
	valueFuncs := []string{
		`{{ toYaml .Values.v }}`, `{{ toYamlPretty .Values.v }}`, `{{ toJson .Values.v }}`, `{{ toToml .Values.v }}`,
		`{{ required "v is required" .Values.v }}`, `{{ include "show" .Values.v }}`, `{{ tpl "{{ . | toJson }}" .Values.v }}`,
		`{{ toYaml .Values.v | fromYaml | toJson }}`, `{{ toJson .Values.v | fromJson | toJson }}`,
		`{{ toJson .Values.v | fromJsonArray | toJson }}`, `{{ toYaml .Values.v | fromYamlArray | toJson }}`,
	}
	for name := range inputs {
		vals := map[string]any{"v": inputs[name]}
		for _, text := range valueFuncs {
			t.Run(name+" "+text, func(t *testing.T) {
				sameAsHelm(t, &e, oneTemplate(t, `{{ define "show" }}[{{ . }}]{{ end }}`+text, nil), vals)
			})
		}
	}
	docFuncs := []string{
		`{{ fromYaml .Values.d | toJson }}`, `{{ fromYamlArray .Values.d | toJson }}`,
		`{{ fromJson .Values.d | toJson }}`, `{{ fromJsonArray .Values.d | toJson }}`, `{{ fromToml .Values.d | toJson }}`,
		`{{ fail .Values.d }}`, `{{ required .Values.d nil }}`,
	}
	docs := documents()
	for _, name := range slices.Sorted(maps.Keys(docs)) {
		for _, text := range docFuncs {
			t.Run(name+" "+text, func(t *testing.T) {
				sameAsHelm(t, &e, oneTemplate(t, text, nil), map[string]any{"d": docs[name]})
			})
		}
	}
}

// TestTemplatesInTemplates: include and tpl nested in each other, the
// templates tpl defines, include's nesting limit and the errors on the
// way, as Helm's engine runs them.
func TestTemplatesInTemplates(t *testing.T) {
	var e Engine
	defs := `{{ define "a" }}a({{ include "b" . }}){{ end }}{{ define "b" }}b{{ .Values.x }}{{ end }}` +
		`{{ define "deep" }}{{ if lt (len .) 1001 }}{{ include "deep" (append . 1) }}{{ else }}{{ len . }}{{ end }}{{ end }}` +
		`{{ define "tooDeep" }}{{ if lt (len .) 1002 }}{{ include "tooDeep" (append . 1) }}{{ end }}{{ end }}` +
		`{{ define "viaTpl" }}{{ tpl "{{ include \"a\" . }}" . }}{{ end }}` +
		`{{ define "failing" }}{{ fail "from a define" }}{{ end }}`
	for name, text := range map[string]string{
		"include chain":        `{{ include "a" . }}`,
		"tpl includes":         `{{ tpl "{{ include \"a\" . }}" . }}`,
		"include runs tpl":     `{{ include "viaTpl" . }}`,
		"tpl in tpl":           `{{ tpl "{{ tpl \"{{ .Values.x }}-{{ include \\\"b\\\" . }}\" . }}" . }}`,
		"tpl defines":          `{{ tpl "{{ define \"mine\" }}m{{ end }}{{ include \"mine\" . }}{{ tpl \"{{ include \\\"mine\\\" . }}\" . }}" . }}`,
		"tpl redefines":        `{{ tpl "{{ define \"b\" }}B{{ end }}{{ include \"a\" . }}" . }}{{ include "a" . }}`,
		"tpl missing key":      `{{ tpl "[{{ .Values.nope }}][{{ .nope }}]" . }}`,
		"tpl of a value":       `{{ tpl .Values.t . }}`,
		"tpl with other data":  `{{ tpl "{{ .a }}" (dict "a" "x") }}`,
		"tpl template name":    `{{ tpl "{{ .Template.Name }}" . }}`,
		"depth 1001":           `{{ include "deep" (list) }}`,
		"depth 1002":           `{{ include "tooDeep" (list) }}`,
		"fail via tpl include": `{{ tpl "{{ include \"failing\" . }}" . }}`,
		"required in tpl":      `{{ tpl "{{ required \"need y\" .Values.y }}" . }}`,
		"error in include":     `{{ include "a" 3 }}`,
		"tpl bad parse deep":   `{{ include "viaTpl" . }}{{ tpl "{{ end }}" . }}`,
		"tpl of non-string":    `{{ tpl 3 . }}`,
		"include non-string":   `{{ include 3 . }}`,
		"template action":      `{{ template "a" . }}`,
		"block":                `{{ block "blk" . }}default{{ end }}`,
	} {
		t.Run(name, func(t *testing.T) {
			sameAsHelm(t, &e, oneTemplate(t, defs+text, nil), map[string]any{"x": 1, "t": "{{ .Values.x }}{{ include \"a\" . }}"})
		})
	}
}

// TestFilesLikeHelm: .Files on files of every kind (nested, binary,
// empty, no final newline) and patterns that do and do not compile.
func TestFilesLikeHelm(t *testing.T) {
	var e Engine
	files := map[string]string{
		"a.txt": "one\ntwo\n", "b.txt": "no newline", "empty.txt": "", "nl.txt": "\n", "crlf.txt": "x\r\ny\r\n",
		"dir/c.yaml": "k: v\n", "dir/sub/d.bin": "\x00\xff\xfe", "dir/e.json": `{"a":1}`, ".hidden": "h",
	}
	for _, pattern := range []string{"*", "**", "*.txt", "dir/*", "dir/**", "**/*.yaml", "{a,b}.txt", "[ab].txt", "?.txt", "[", "\\", "nomatch", ""} {
		for _, text := range []string{
			`{{ range $p, $_ := .Files.Glob .Values.p }}{{ $p }};{{ end }}`,
			`{{ (.Files.Glob .Values.p).AsConfig }}`, `{{ (.Files.Glob .Values.p).AsSecrets }}`,
		} {
			t.Run(pattern+" "+text, func(t *testing.T) {
				sameAsHelm(t, &e, oneTemplate(t, text, files), map[string]any{"p": pattern})
			})
		}
	}
	for name := range files {
		for _, text := range []string{
			`{{ .Files.Get .Values.f | quote }}`, `{{ .Files.GetBytes .Values.f | toJson }}`, `{{ .Files.Lines .Values.f | toJson }}`,
			`{{ index .Files .Values.f | toString | quote }}`,
		} {
			t.Run(name+" "+text, func(t *testing.T) {
				sameAsHelm(t, &e, oneTemplate(t, text, files), map[string]any{"f": name})
			})
		}
	}
}

// TestFilesSameBaseName: of two files with one base name, AsConfig and
// AsSecrets keep the path that sorts last, every time (Helm leaves it to
// map order).
func TestFilesSameBaseName(t *testing.T) {
	f := files{"a/x.txt": []byte("first"), "b/x.txt": []byte("second"), "c/y.txt": []byte("y")}
	for range 20 {
		if got, want := f.AsConfig(), "x.txt: second\ny.txt: \"y\""; got != want {
			t.Fatalf("AsConfig: %q, want %q", got, want)
		}
		if got, want := f.AsSecrets(), "x.txt: c2Vjb25k\ny.txt: eQ=="; got != want {
			t.Fatalf("AsSecrets: %q, want %q", got, want)
		}
	}
	var none files
	if none.AsConfig() != "" || none.AsSecrets() != "" || len(none.Lines("x")) != 0 || none.Get("x") != "" {
		t.Error("nil files are not empty")
	}
}

// FuzzFunctions: a fuzzed string as a value of every shape the functions
// take (a document to decode, a message, a file's content and name, a
// glob pattern, data for include and tpl) renders as with Helm's engine.
// Only the data is fuzzed: the templates are fixed, so that no input runs
// for long.
func FuzzFunctions(f *testing.F) {
	for _, d := range documents() {
		f.Add(d)
	}
	for _, s := range []string{"*", "**/x", "[", "{{ x }}", "HELM_ERR_START", "a\r\nb", "a\n", "\n\n"} {
		f.Add(s)
	}
	var e Engine
	text := strings.Join([]string{
		`{{ fromYaml .Values.s | toJson }}`, `{{ fromYamlArray .Values.s | toYaml }}`,
		`{{ fromJson .Values.s | toToml }}`, `{{ fromJsonArray .Values.s | toYamlPretty }}`, `{{ fromToml .Values.s | toJson }}`,
		`{{ toYaml .Values.s }}`, `{{ toYamlPretty (dict .Values.s (list .Values.s)) }}`, `{{ toToml (dict "k" .Values.s) }}`,
		`{{ include "show" .Values.s }}`, `{{ tpl "{{ . | quote }}" .Values.s }}`,
		`{{ .Files.Get "in.txt" | quote }}`, `{{ .Files.Lines "in.txt" | toJson }}`,
		`{{ range $p, $_ := .Files.Glob .Values.s }}{{ $p }};{{ end }}`, `{{ (.Files.Glob "*").AsConfig }}`, `{{ .Files.AsSecrets }}`,
		`{{ required .Values.s .Values.s }}`,
	}, "\n")
	f.Fuzz(func(t *testing.T, s string) {
		c := oneTemplate(t, `{{ define "show" }}[{{ . }}]{{ end }}`+text, map[string]string{"in.txt": s, "other.conf": "o"})
		sameAsHelm(t, &e, c, map[string]any{"s": s})
	})
}
