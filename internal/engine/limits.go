package engine

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

// What one rendering may make. A template runs in the repotool process:
// an allocation the machine cannot satisfy ends the process with a Go
// runtime error, and nesting deep enough overflows the stack of whatever
// prints it, which no recover catches. So the functions that make a value
// of a size their arguments ask for check that size first, the functions
// that print or encode a value measure it first, and the functions that
// nest values count how often they do. A rendering that asks for more
// fails with a message naming the template, the line and the call; the
// other targets carry on. The limits are far above what charts make (the
// largest community chart in the tests prints under 2 MiB).
const (
	// MaxItems bounds a list that until, untilStep or seq make.
	MaxItems = 1 << 20
	// MaxValueSize bounds, in bytes, a string a function makes, and the
	// printed size of a value a function prints or encodes.
	MaxValueSize = 64 << 20
	// MaxNesting bounds how many dicts and lists holding a dict or a list
	// one rendering makes (dict, list, set, append and the like): only
	// they can nest values deeper than their data, and printing a value
	// nested a million deep overflows the stack.
	MaxNesting = 100_000
	// maxDepth is how deep a value may nest to be measured; deeper is too
	// large (or a value that holds itself).
	maxDepth = 20_000 // counting the interface each item is held in
)

// errLimit marks every error of a limit, for errors.Is.
var errLimit = errors.New("rendering limit")

// limitError is a call that asked for more than a limit allows.
type limitError string

func (e limitError) Error() string        { return string(e) }
func (e limitError) Is(target error) bool { return target == errLimit }

// tooMany and tooLarge say what a call would have made. text/template
// names the function, the template and the line before them.
func tooMany(n uint64) error {
	return limitError(fmt.Sprintf("it would make a list of %d items, over the %d a template may make (repotool's limit)", n, MaxItems))
}

func tooLarge(what string) error {
	return limitError(fmt.Sprintf("it would make %s, over the %d bytes a template may make in one value (repotool's limit)", what, MaxValueSize))
}

// limitedFuncs are the functions of sprig that make values by size, with
// that size checked before they allocate. Their results are sprig's, and
// so are their errors and panics (a negative count to repeat) within the
// limits; untilStep also ends where sprig's loop would overflow and never
// stop.
func limitedFuncs(sprig template.FuncMap) template.FuncMap {
	fm := template.FuncMap{
		"until": func(count int) ([]int, error) {
			step := 1
			if count < 0 {
				step = -1
			}
			return untilStep(0, count, step)
		},
		"untilStep": func(start, stop, step int) ([]int, error) { return untilStep(start, stop, step) },
		"seq":       seq,
		"repeat": func(count int, s string) (string, error) {
			if count > 0 && len(s) > 0 && count > MaxValueSize/len(s) {
				return "", tooLarge(fmt.Sprintf("%d copies of %d bytes", count, len(s)))
			}
			return strings.Repeat(s, count), nil
		},
		"indent": func(spaces int, s string) (string, error) {
			if err := checkIndent(spaces, s); err != nil {
				return "", err
			}
			return sprig["indent"].(func(int, string) string)(spaces, s), nil
		},
		"nindent": func(spaces int, s string) (string, error) {
			if err := checkIndent(spaces, s); err != nil {
				return "", err
			}
			return sprig["nindent"].(func(int, string) string)(spaces, s), nil
		},
		"randBytes": func(count int) (string, error) {
			if count > MaxValueSize/4*3 {
				return "", tooLarge(fmt.Sprintf("%d random bytes", count))
			}
			return sprig["randBytes"].(func(int) (string, error))(count)
		},
	}
	for _, name := range []string{"randAlphaNum", "randAlpha", "randAscii", "randNumeric"} {
		f := sprig[name].(func(int) string)
		fm[name] = func(count int) (string, error) {
			if count > MaxValueSize {
				return "", tooLarge(fmt.Sprintf("%d random characters", count))
			}
			return f(count), nil
		}
	}
	addPrinting(fm, sprig)
	return fm
}

// addPrinting adds the functions whose result is as large as what they
// print: their arguments are measured first (a list holding one large
// string a million times prints a million copies of it).
func addPrinting(fm, sprig template.FuncMap) {
	fm["print"] = measuredN(fmt.Sprint)
	fm["println"] = measuredN(fmt.Sprintln)
	for _, name := range []string{"cat", "quote", "squote"} {
		fm[name] = measuredN(sprig[name].(func(...any) string))
	}
	for _, name := range []string{"toString", "toPrettyJson", "toRawJson"} {
		fm[name] = measured(sprig[name].(func(any) string))
	}
	for _, name := range []string{"mustToJson", "mustToPrettyJson", "mustToRawJson"} {
		f := sprig[name].(func(any) (string, error))
		fm[name] = func(v any) (string, error) {
			if err := checkPrinted(0, v); err != nil {
				return "", err
			}
			return f(v)
		}
	}
	fm["printf"] = func(format string, args ...any) (string, error) {
		if err := checkPrinted(len(format)+widths(format), args...); err != nil {
			return "", err
		}
		return fmt.Sprintf(format, args...), nil
	}
	fm["join"] = func(sep string, v any) (string, error) {
		extra := 0
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
			extra = rv.Len() * len(sep)
		}
		if err := checkPrinted(extra, v); err != nil {
			return "", err
		}
		return sprig["join"].(func(string, any) string)(sep, v), nil
	}
	fm["replace"] = func(old, new, src string) (string, error) {
		n := strings.Count(src, old)
		if grow := len(new) - len(old); grow > 0 && n > 0 && n > (MaxValueSize-len(src))/grow {
			return "", tooLarge(fmt.Sprintf("%d replacements of %d bytes in %d bytes", n, len(new), len(src)))
		}
		return strings.ReplaceAll(src, old, new), nil
	}
	for name, literal := range map[string]bool{
		"regexReplaceAll":            false,
		"regexReplaceAllLiteral":     true,
		"mustRegexReplaceAll":        false,
		"mustRegexReplaceAllLiteral": true,
	} {
		f := sprig[name]
		fm[name] = func(regex, s, repl string) (string, error) {
			if err := checkRegexReplace(regex, s, repl, literal); err != nil {
				return "", err
			}
			out := reflect.ValueOf(f).Call([]reflect.Value{reflect.ValueOf(regex), reflect.ValueOf(s), reflect.ValueOf(repl)})
			if len(out) == 2 && !out[1].IsNil() {
				return "", out[1].Interface().(error)
			}
			return out[0].String(), nil
		}
	}
}

// untilStep is sprig's untilStep, with its length known before it
// allocates: the items from start towards stop by step, stop excluded.
func untilStep(start, stop, step int) ([]int, error) {
	var n uint64
	switch {
	case stop > start && step > 0:
		n = (uint64(stop)-uint64(start)-1)/uint64(step) + 1
	case stop < start && step < 0:
		n = (uint64(start)-uint64(stop)-1)/(uint64(-(step+1))+1) + 1
	}
	if n > MaxItems {
		return nil, tooMany(n)
	}
	v := make([]int, n)
	for i := range v {
		v[i] = start + i*step
	}
	return v, nil
}

// seq is sprig's seq (seq END, seq START END, seq START STEP END: the
// numbers from START, 1 unless given, to END included, as words), with
// its length known before it allocates.
func seq(params ...int) (string, error) {
	var items []int
	var err error
	switch len(params) {
	case 1:
		start, end, inc := 1, params[0], 1
		if end < start {
			inc = -1
		}
		items, err = untilStep(start, end+inc, inc)
	case 2:
		start, end, inc := params[0], params[1], 1
		if end < start {
			inc = -1
		}
		items, err = untilStep(start, end+inc, inc)
	case 3:
		start, step, end, inc := params[0], params[1], params[2], 1
		if end < start {
			inc = -1
			if step > 0 {
				return "", nil
			}
		}
		items, err = untilStep(start, end+inc, step)
	}
	if err != nil {
		return "", err
	}
	words := make([]string, len(items))
	for i, n := range items {
		words[i] = strconv.Itoa(n)
	}
	return strings.Join(words, " "), nil
}

func checkIndent(spaces int, s string) error {
	lines := strings.Count(s, "\n") + 1
	if spaces > 0 && lines > (MaxValueSize-len(s))/spaces {
		return tooLarge(fmt.Sprintf("%d lines indented by %d", lines, spaces))
	}
	return nil
}

// checkRegexReplace bounds what replacing every match of regex in s by
// repl makes: each match adds at most repl, and each reference to a
// group in repl at most the matched text, which all matches together
// hold once. Only when that bound is over the limit are the matches
// counted.
func checkRegexReplace(regex, s, repl string, literal bool) error {
	refs := 0
	if !literal {
		refs = strings.Count(repl, "$")
	}
	bound := func(matches int) bool {
		return matches <= (MaxValueSize-len(s)*(refs+1))/(len(repl)+1)
	}
	if len(s)*(refs+1) > MaxValueSize {
		return tooLarge(fmt.Sprintf("up to %d copies of %d bytes", refs+1, len(s)))
	}
	if bound(len(s) + 1) {
		return nil
	}
	re, err := regexp.Compile(regex)
	if err != nil {
		return nil // sprig reports it
	}
	matches := 0
	re.ReplaceAllStringFunc(s, func(string) string { matches++; return "" })
	if !bound(matches) {
		return tooLarge(fmt.Sprintf("%d replacements of %d bytes", matches, len(repl)))
	}
	return nil
}
