package engine

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/BurntSushi/toml"
	"sigs.k8s.io/yaml"
)

// What Helm 4 (4.3) changes in the engine, written from its documented
// behaviour and checked against the helm 4 CLI (TestEngineParity with
// render's Helm 4 option):
//   - more functions: mustToYaml and mustToToml fail the template where
//     toYaml and toToml would print nothing or a message, and the duration
//     helpers (mustToDuration, durationSeconds ... durationWeeks,
//     durationRoundTo, durationTruncateTo) read a duration from a
//     time.Duration, a Go duration string ("1h30m"), or a number of
//     seconds (a number, or a string of one);
//   - a failed execution that is not required or fail is reported as the
//     trace of the templates it went through (traceError), not as
//     text/template's one-line chain.

// helm4Funcs is the function library of Helm 4's templates.
var helm4Funcs = sync.OnceValue(func() template.FuncMap {
	fm := maps.Clone(baseFuncs())
	fm["mustToYaml"] = func(v any) (string, error) {
		if err := checkPrinted(0, v); err != nil {
			return "", err
		}
		out, err := yaml.Marshal(v)
		if err != nil {
			return "", err
		}
		return strings.TrimSuffix(string(out), "\n"), nil
	}
	fm["mustToToml"] = func(v any) (string, error) {
		if err := checkPrinted(0, v); err != nil {
			return "", err
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(v); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	fm["mustToDuration"] = toDuration
	// Each helper gives its zero when v is not a duration.
	inUnit := func(f func(time.Duration) float64) func(any) float64 {
		return func(v any) float64 {
			if d, err := toDuration(v); err == nil {
				return f(d)
			}
			return 0
		}
	}
	count := func(f func(time.Duration) int64) func(any) int64 {
		return func(v any) int64 {
			if d, err := toDuration(v); err == nil {
				return f(d)
			}
			return 0
		}
	}
	fm["durationSeconds"] = inUnit(time.Duration.Seconds)
	fm["durationMinutes"] = inUnit(time.Duration.Minutes)
	fm["durationHours"] = inUnit(time.Duration.Hours)
	fm["durationDays"] = inUnit(func(d time.Duration) float64 { return d.Hours() / 24 })
	fm["durationWeeks"] = inUnit(func(d time.Duration) float64 { return d.Hours() / 24 / 7 })
	fm["durationMilliseconds"] = count(time.Duration.Milliseconds)
	fm["durationMicroseconds"] = count(time.Duration.Microseconds)
	fm["durationNanoseconds"] = count(time.Duration.Nanoseconds)
	// v to a multiple of unit: 0 when v is not a duration, v itself when
	// unit is not one.
	toMultiple := func(f func(d, unit time.Duration) time.Duration) func(v, unit any) time.Duration {
		return func(v, unit any) time.Duration {
			d, err := toDuration(v)
			if err != nil {
				return 0
			}
			u, err := toDuration(unit)
			if err != nil {
				return d
			}
			return f(d, u)
		}
	}
	fm["durationRoundTo"] = toMultiple(time.Duration.Round)
	fm["durationTruncateTo"] = toMultiple(time.Duration.Truncate)
	return fm
})

// toDuration reads v as Helm 4's duration helpers do: a time.Duration, a
// string time.ParseDuration reads, else a string of a number of seconds,
// or a number of seconds. A number of seconds beyond what a Duration
// holds is an error, never a wrapped-around value.
func toDuration(v any) (time.Duration, error) {
	switch x := v.(type) {
	case time.Duration:
		return x, nil
	case nil:
		return 0, errors.New("invalid duration")
	case string:
		return durationText(x)
	}
	const maxSeconds = math.MaxInt64 / int64(time.Second)
	const minSeconds = math.MinInt64 / int64(time.Second)
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt():
		if n := rv.Int(); n > maxSeconds || n < minSeconds {
			return 0, fmt.Errorf("duration seconds overflow: %d", n)
		}
		return time.Duration(rv.Int()) * time.Second, nil
	case rv.CanUint():
		if n := rv.Uint(); n > uint64(maxSeconds) {
			return 0, fmt.Errorf("duration seconds overflow: %d", n)
		}
		return time.Duration(rv.Uint()) * time.Second, nil
	case rv.CanFloat():
		return secondsFloat(rv.Float())
	}
	return 0, fmt.Errorf("unsupported duration type %T", v)
}

// durationText reads a duration from text: Go's syntax first, then a
// number of seconds; spaces around either are ignored.
func durationText(text string) (time.Duration, error) {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return 0, errors.New("empty duration")
	}
	d, goErr := time.ParseDuration(trimmed)
	if goErr == nil {
		return d, nil
	}
	secs, numErr := strconv.ParseFloat(trimmed, 64)
	if numErr != nil {
		return 0, fmt.Errorf("could not parse duration %q", text)
	}
	return secondsFloat(secs)
}

// secondsFloat is f seconds as a Duration.
func secondsFloat(f float64) (time.Duration, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("invalid duration seconds: %v", f)
	}
	if limit := float64(math.MaxInt64) / float64(time.Second); f > limit || f < float64(math.MinInt64)/float64(time.Second) {
		return 0, fmt.Errorf("duration seconds overflow: %v", f)
	}
	ns := f * float64(time.Second)
	if ns > math.MaxInt64 || ns < math.MinInt64 {
		return 0, fmt.Errorf("duration nanoseconds overflow: %v", ns)
	}
	return time.Duration(ns), nil
}

// traceError is Helm 4's message for a failed execution of the template
// name. required and fail read as in Helm 3 ("execution error at
// (<where>): <message>"). Otherwise, when every error of the chain
// (text/template's, wrapped by include and tpl) reads as a template error,
// the message is their trace, one step after the other, each step
// "<where>" / "executing "<name>" at <<call>>:" / "<what>" on its own
// line and indented; a chain that ends in another error (a function's
// own) is reported as it is.
func traceError(name string, err error) error {
	var ee template.ExecError
	if !errors.As(err, &ee) {
		return err
	}
	if parts := strings.SplitN(err.Error(), ": ", 3); len(parts) < 3 {
		return fmt.Errorf("execution error in (%s): %w", name, err)
	}
	if _, ok := errors.AsType[userError](err); ok {
		return execError(name, err)
	}
	var steps []traceStep
	for e := err; e != nil; e = errors.Unwrap(e) {
		st, ok := readTraceStep(e.Error())
		if !ok {
			return err
		}
		if len(steps) == 0 || steps[len(steps)-1] != st {
			steps = append(steps, st)
		}
	}
	var b strings.Builder
	for _, st := range steps {
		if st.where != "" {
			b.WriteString(st.where + "\n  ")
		}
		if st.call != "" {
			b.WriteString(st.call + "\n    ")
		}
		if st.what != "" {
			b.WriteString(st.what + "\n")
		}
	}
	return errors.New(strings.TrimSpace(b.String()))
}

// traceStep is one error of a chain as Helm 4 reads it.
type traceStep struct{ where, call, what string }

// readTraceStep reads a template error: "template: no template ..."
// whole, "template: <where>: executing "<name>" at <<call>>: <what>", or
// "template: <where>: <what>" (where runs to the last ": "), the what cut
// before a nested " template:".
func readTraceStep(msg string) (traceStep, bool) {
	rest, ok := strings.CutPrefix(msg, "template: ")
	if !ok {
		return traceStep{}, false
	}
	if strings.HasPrefix(rest, "no template ") {
		return traceStep{what: msg}, true
	}
	firstOnly := func(what string) string {
		if i := strings.Index(what, " template:"); i >= 0 {
			return what[:i]
		}
		return what
	}
	if where, after, ok := strings.Cut(rest, ": executing "); ok {
		if after, ok := strings.CutPrefix(after, `"`); ok {
			if q := strings.IndexByte(after, '"'); q >= 0 {
				if call, ok := strings.CutPrefix(after[q+1:], " at <"); ok {
					if at, what, ok := strings.Cut(call, ">: "); ok {
						return traceStep{where: where, call: `executing "` + after[:q] + `" at <` + at + `>:`, what: firstOnly(what)}, true
					}
				}
			}
		}
	}
	i := strings.LastIndex(rest, ": ")
	if i < 0 {
		return traceStep{}, false
	}
	return traceStep{where: rest[:i], what: firstOnly(rest[i+2:])}, true
}
