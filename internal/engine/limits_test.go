package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLimits: a template that asks for more than a rendering may make
// fails, with little memory, with a message that names the
// template, the line and the call, and says which limit it met. (Before,
// `until 200000000` ran lint out of memory after 107 s at 5.5 GB, and a
// dict that holds itself, printed, overflowed the stack: both ended the
// process with a Go runtime stack.)
func TestLimits(t *testing.T) {
	big := `{{ $s := repeat 60000000 "a" }}`
	tests := []struct {
		name, text, want string
	}{
		{"until", `{{ $x := until 200000000 }}`, `at <until 200000000>: error calling until: it would make a list of 200000000 items, over the 1048576`},
		{"until negative", `{{ $x := until -200000000 }}`, `error calling until: it would make a list of 200000000 items`},
		{"untilStep", `{{ $x := untilStep 0 2000000000 1 }}`, `error calling untilStep: it would make a list of 2000000000 items`},
		{"untilStep from the bottom to the top of int", `{{ $x := untilStep -9223372036854775807 9223372036854775807 1 }}`, `error calling untilStep: it would make a list of 18446744073709551614 items`},
		{"seq", `{{ seq 100000000 }}`, `error calling seq: it would make a list of 100000000 items`},
		{"repeat", `{{ repeat 2000000000 "ab" }}`, `error calling repeat: it would make 2000000000 copies of 2 bytes, over the 67108864 bytes`},
		{"indent", `{{ indent 70000000 "a" }}`, `error calling indent: it would make 1 lines indented by 70000000`},
		{"nindent", `{{ nindent 60000000 "a\nb" }}`, `error calling nindent: it would make 2 lines indented by 60000000`},
		{"randAlphaNum", `{{ randAlphaNum 100000000 }}`, `error calling randAlphaNum: it would make 100000000 random characters`},
		{"randBytes", `{{ randBytes 100000000 }}`, `error calling randBytes: it would make 100000000 random bytes`},
		{"replace", big + `{{ replace "a" "aa" $s }}`, `error calling replace: it would make 60000000 replacements of 2 bytes in 60000000 bytes`},
		{"regexReplaceAll", big + `{{ regexReplaceAll "a" $s "$0$0" }}`, `error calling regexReplaceAll: it would make up to 3 copies of 60000000 bytes`},
		{"regexReplaceAllLiteral", `{{ $s := repeat 1000000 "a" }}{{ regexReplaceAllLiteral "a" $s (repeat 100 "b") }}`, `error calling regexReplaceAllLiteral: it would make 1000000 replacements of 100 bytes`},
		{"print doubling", `{{ $s := "aaaaaaaa" }}{{ range until 40 }}{{ $s = print $s $s }}{{ end }}`, `error calling print: it would make more than that, over the 67108864 bytes`},
		{"printf width", `{{ $s := repeat 1000 "%999999d" }}{{ printf $s 1 }}`, `error calling printf: it would make more than that`},
		{"toJson of one string many times", big + `{{ $l := list $s $s }}{{ toJson $l }}`, `error calling toJson: it would make more than that`},
		{"toYaml of a dict shared at every level", `{{ $m := dict }}{{ range until 200 }}{{ $m = dict "a" $m "b" $m }}{{ end }}{{ toYaml $m }}`, `error calling toYaml: it would make more than that`},
		{"join", big + `{{ join "," (list $s $s) }}`, `error calling join: it would make more than that`},
		{"set itself", `{{ $m := dict }}{{ $_ := set $m "a" $m }}{{ $m }}`, `error calling set: the value set at "a" holds the dict it is set in`},
		{"set itself, deeper", `{{ $m := dict }}{{ $n := dict "m" (list $m) }}{{ $_ := set $m "n" $n }}`, `error calling set: the value set at "n" holds the dict it is set in`},
		{"merge itself", `{{ $m := dict }}{{ $n := dict "m" $m }}{{ $_ := merge $m $n }}`, `error calling merge: a dict merged into another holds it`},
		{"nesting", `{{ $m := dict }}{{ range until 1000000 }}{{ $m = dict "a" $m }}{{ end }}{{ $m }}`, `at <dict "a" $m>: error calling dict: the templates nested dicts and lists in each other more than 100000 times`},
		{"nesting with list", `{{ $m := list }}{{ range until 1000000 }}{{ $m = list $m }}{{ end }}`, `error calling list: the templates nested`},
		{"nesting with append", `{{ $m := list }}{{ range until 1000000 }}{{ $m = append (list) $m }}{{ end }}`, `error calling append: the templates nested`},
		{"tpl of itself", `{{ $t := "{{ tpl .t . }}" }}{{ tpl $t (dict "t" $t) }}`, `error calling tpl: tpl calls ran inside each other more than 100 deep`},
		{"include cycle", `{{ define "a" }}{{ include "b" . }}{{ end }}{{ define "b" }}{{ include "a" . }}{{ end }}{{ include "a" . }}`, `error calling include: include and tpl calls ran inside each other more than 1200 deep`},
		{"fromToml nested deep", `{{ $x := fromToml (printf "a = %s" (repeat 3000000 "[")) }}`, `error calling fromToml: the TOML document nests arrays and inline tables more than 10000 deep`},
		{"fromToml inline tables nested deep", `{{ $x := fromToml (printf "a = %s" (repeat 100000 "{b=")) }}`, `error calling fromToml: the TOML document nests`},
		{"printed", `{{ range until 1000 }}{{ repeat 1000000 "a" }}{{ end }}`, `template: app/templates/t.yaml: the templates printed more than 8000000 bytes, counting what include and tpl return`},
		{"printed through include", `{{ define "x" }}{{ repeat 1000000 "a" }}{{ end }}{{ range until 100 }}{{ $_ := include "x" . }}{{ end }}`, `error calling include: the templates printed more than 8000000 bytes`},
	}
	e := Engine{MaxPrinted: 8_000_000}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := oneTemplate(t, tt.text, nil)
			_, err := e.Render(c, topValues(t, c, nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error: %v\nwant it to hold %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "app/templates/t.yaml") {
				t.Errorf("the message does not name the template: %v", err)
			}
			if !errors.Is(err, errLimit) {
				t.Errorf("not a limit error: %v", err)
			}
		})
	}
}

// TestWithinLimits: what charts do with these functions renders as with
// Helm's engine, up to the limits (a list of MaxItems items, a value of
// MaxValueSize bytes), and nesting as deep as values files go.
func TestWithinLimits(t *testing.T) {
	var e Engine
	for _, text := range []string{
		fmt.Sprintf(`{{ until %d | len }}`, MaxItems),
		fmt.Sprintf(`{{ untilStep 0 %d 2 | len }} {{ untilStep 10 -10 -3 }} {{ untilStep 0 10 0 }} {{ untilStep 5 5 1 }}`, 2*MaxItems),
		`{{ seq 0 }} {{ seq -3 }} {{ seq 2 -2 }} {{ seq 1 3 10 }} {{ seq 10 -3 1 }} {{ seq 10 3 1 }} {{ seq 1 2 3 4 }}`,
		fmt.Sprintf(`{{ repeat %d "ab" | len }} {{ repeat 0 "x" }}`, MaxValueSize/2),
		fmt.Sprintf(`{{ indent %d "a" | len }} {{ nindent 2 "a\nb" }}`, MaxValueSize-1),
		fmt.Sprintf(`{{ $s := repeat %d "a" }}{{ print $s $s | len }} {{ printf "%%s%%s" $s "b" | len }}`, MaxValueSize/2-1),
		`{{ $m := dict }}{{ range until 1000 }}{{ $m = dict "a" $m "b" (list 1) }}{{ end }}{{ toJson $m | len }}`,
		`{{ $m := dict "a" 1 }}{{ $_ := set $m "b" (dict "c" 2) }}{{ $_ := merge $m (dict "d" 3) }}{{ $m | toYaml }}{{ $m | merge (dict) | toJson }}{{ merge $m $m | toJson }}`,
		`{{ regexReplaceAll "(a)(b)" "xabyab" "${2}${1}" }} {{ regexReplaceAllLiteral "a" "banana" "$0" }} {{ replace "" "-" "abc" }}`,
		`{{ list 1 2 | append (list 3) }} {{ prepend (list 1) 0 }} {{ concat (list 1) (list 2) }} {{ quote 1 "a" nil }} {{ squote 2 }} {{ cat 1 nil "b" }} {{ toString (list 1) }}`,
		`{{ repeat -1 "a" }}`,
		`{{ indent -1 "a" }}`,
		`{{ append "x" 1 }}`,
	} {
		c := oneTemplate(t, text, nil)
		sameAsHelm(t, &e, c, nil)
	}
}

// TestStopsWithContext: a template that keeps printing stops at its next
// output once the rendering's context ends, with the context's cause, so
// that a rendering given up (Ctrl-C, --timeout) does not go on using the
// CPU. (Before, it ran to its end.)
func TestStopsWithContext(t *testing.T) {
	var e Engine
	c := oneTemplate(t, `{{ range until 1000000 }}{{ range until 1000000 }}x{{ end }}{{ end }}`, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped by the test")
	time.AfterFunc(100*time.Millisecond, func() { cancel(stop) })
	_, err := e.RenderContext(ctx, c, topValues(t, c, nil))
	if !errors.Is(err, stop) {
		t.Errorf("error: %v, want the context's cause", err)
	}
}

// FuzzSized runs the functions that make values by size against Helm's
// engine (sprig's functions) on generated arguments within the limits:
// same output, same message.
func FuzzSized(f *testing.F) {
	f.Add(10, -3, 2, "ab\nc", "a")
	f.Add(0, 0, 0, "", "")
	f.Add(-5, 5, -1, "\n\n", "$1")
	f.Add(1000, 1, 7, "x", "(x)")
	var e Engine
	text := `{{ $a := .Values.a }}{{ $b := .Values.b }}{{ $c := .Values.c }}
{{ until $a | toJson }}
{{ untilStep $a $b $c | toJson }}
{{ seq $a }}|{{ seq $a $b }}|{{ seq $a $c $b }}
{{ repeat $c .Values.s }}|{{ indent $c .Values.s }}|{{ nindent $c .Values.s }}
{{ replace .Values.r "<>" .Values.s }}|{{ regexReplaceAll "(.)" .Values.s .Values.r }}|{{ regexReplaceAllLiteral "\n" .Values.s .Values.r }}
{{ print .Values.s $a }}|{{ printf "%5d%s" $a .Values.s }}|{{ cat $a .Values.s }}|{{ join .Values.r (list $a .Values.s) }}|{{ quote .Values.s }}`
	f.Fuzz(func(t *testing.T, a, b, c int, s, r string) {
		// Within the limits, and sprig's loops short enough to run.
		a, b, c = a%100_000, b%100_000, c%1000
		if len(s) > 1000 || len(r) > 100 || a < -100_000 || b < -100_000 {
			t.Skip()
		}
		if c == 0 || c < 0 && b > a || c > 0 && b < a {
			// untilStep with a zero step, or one away from stop, is empty
			// in both; keep the loops short otherwise.
		} else if (b-a)/c > 200_000 {
			t.Skip()
		}
		if strings.Count(s, "\n") > 100 {
			t.Skip()
		}
		ch := oneTemplate(t, text, nil)
		sameAsHelm(t, &e, ch, map[string]any{"a": a, "b": b, "c": c, "s": s, "r": r})
	})
}
