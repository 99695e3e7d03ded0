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
	// Functions whose result is as large as what they print: their
	// arguments are measured first (a list holding one large string a
	// million times prints a million copies of it).
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
	for name, literal := range map[string]bool{"regexReplaceAll": false, "regexReplaceAllLiteral": true, "mustRegexReplaceAll": false, "mustRegexReplaceAllLiteral": true} {
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
	return fm
}

// measured is f, which prints or encodes v, with v measured first.
func measured(f func(any) string) func(any) (string, error) {
	return func(v any) (string, error) {
		if err := checkPrinted(0, v); err != nil {
			return "", err
		}
		return f(v), nil
	}
}

// measuredN is measured for a function of any number of values.
func measuredN(f func(...any) string) func(...any) (string, error) {
	return func(v ...any) (string, error) {
		if err := checkPrinted(0, v...); err != nil {
			return "", err
		}
		return f(v...), nil
	}
}

// checkPrinted fails when args, printed, would take more than
// MaxValueSize bytes beside extra, or nest too deep to print.
func checkPrinted(extra int, args ...any) error {
	m := measure{limit: MaxValueSize - extra}
	if m.limit < 0 {
		return tooLarge("more than that")
	}
	total := 0
	for _, a := range args {
		total += m.size(reflect.ValueOf(a), 0)
		if m.deep {
			return limitError(fmt.Sprintf("a value nests deeper than %d levels, or holds itself: it cannot be printed (repotool's limit)", maxDepth/2))
		}
		if total > m.limit {
			return tooLarge("more than that")
		}
	}
	return nil
}

// measure estimates how many bytes values print as, from below, closely
// enough to stop allocations that would not fit: strings and byte slices
// count their length, other scalars a few bytes, lists and maps their
// items. A dict or list held in many places counts each time it is held
// (it prints each time), but is measured once.
type measure struct {
	limit int
	deep  bool
	// sizes are the dicts' and lists' sizes measured, by address.
	sizes map[[2]uintptr]int
}

// size is v's size, or a number over the limit as soon as it is clear
// that v is larger than that.
func (m *measure) size(v reflect.Value, depth int) int {
	if depth > maxDepth {
		m.deep = true
	}
	if m.deep {
		return m.limit + 1
	}
	switch v.Kind() {
	case reflect.Invalid:
		return 5
	case reflect.String:
		return v.Len() + 1
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return 5
		}
		return m.size(v.Elem(), depth+1)
	case reflect.Slice, reflect.Map:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len() + 1
		}
		if v.Len() == 0 {
			return 2
		}
		key := [2]uintptr{v.Pointer(), uintptr(v.Len())}
		if n, ok := m.sizes[key]; ok {
			return n
		}
		n := m.items(v, depth)
		if m.sizes == nil {
			m.sizes = map[[2]uintptr]int{}
		}
		m.sizes[key] = n
		return n
	case reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len() + 1
		}
		return m.items(v, depth)
	case reflect.Struct:
		n := 2
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if n += m.size(v.Field(i), depth+1); n > m.limit {
					break
				}
			}
		}
		return n
	default:
		return 2
	}
}

// items is the size of a list's or map's items.
func (m *measure) items(v reflect.Value, depth int) int {
	n := 2
	if v.Kind() == reflect.Map {
		for it := v.MapRange(); it.Next() && n <= m.limit; {
			n += m.size(it.Key(), depth+1) + m.size(it.Value(), depth+1)
		}
		return n
	}
	for i := 0; i < v.Len() && n <= m.limit; i++ {
		n += m.size(v.Index(i), depth+1)
	}
	return n
}

// widths is the sum of the widths and precisions a printf format asks
// for: "%1000000d" prints a million bytes.
func widths(format string) int {
	sum := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0; i++ {
		}
		for i < len(format) && (format[i] >= '0' && format[i] <= '9' || format[i] == '.') {
			j := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			if n, err := strconv.Atoi(format[j:i]); err == nil {
				sum += min(n, 1_000_000) // fmt refuses wider
			}
			if i < len(format) && format[i] == '.' {
				i++
			}
		}
	}
	return sum
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

// nestingFuncs are dict, list, set, append and the rest, bound to one
// rendering's count of the values they nested, and set and merge refusing
// to make a dict that holds itself.
func (r *run) nestingFuncs(sprig template.FuncMap) template.FuncMap {
	count := func(vals ...any) error {
		if !nests(vals) {
			return nil
		}
		if r.nested++; r.nested > MaxNesting {
			return limitError(fmt.Sprintf("the templates nested dicts and lists in each other more than %d times; values nested that deep cannot be printed (repotool's limit)", MaxNesting))
		}
		return nil
	}
	fm := template.FuncMap{
		"dict": func(v ...any) (map[string]any, error) {
			var vals []any
			for i := 1; i < len(v); i += 2 {
				vals = append(vals, v[i])
			}
			if err := count(vals...); err != nil {
				return nil, err
			}
			return sprig["dict"].(func(...any) map[string]any)(v...), nil
		},
		"set": func(d map[string]any, key string, value any) (map[string]any, error) {
			if holds(reflect.ValueOf(value), d, 0) {
				return nil, limitError(fmt.Sprintf("the value set at %q holds the dict it is set in: a dict that holds itself cannot be printed", key))
			}
			if err := count(value); err != nil {
				return nil, err
			}
			d[key] = value
			return d, nil
		},
	}
	list := func(v ...any) ([]any, error) {
		if err := count(v...); err != nil {
			return nil, err
		}
		return v, nil
	}
	fm["list"], fm["tuple"] = list, list
	for _, name := range []string{"append", "push", "prepend", "mustAppend", "mustPush", "mustPrepend"} {
		f := reflect.ValueOf(sprig[name])
		fm[name] = func(list any, v any) ([]any, error) {
			if err := count(v); err != nil {
				return nil, err
			}
			out := f.Call([]reflect.Value{reflect.ValueOf(&list).Elem(), reflect.ValueOf(&v).Elem()})
			if len(out) == 2 && !out[1].IsNil() {
				return nil, out[1].Interface().(error)
			}
			res, _ := out[0].Interface().([]any)
			return res, nil
		}
	}
	for _, name := range []string{"merge", "mergeOverwrite", "mustMerge", "mustMergeOverwrite"} {
		f := reflect.ValueOf(sprig[name])
		fm[name] = func(dst map[string]any, srcs ...map[string]any) (any, error) {
			for _, src := range srcs {
				if reflect.ValueOf(src).Pointer() != reflect.ValueOf(dst).Pointer() && holds(reflect.ValueOf(src), dst, 0) {
					return nil, limitError("a dict merged into another holds it: a dict that holds itself cannot be printed")
				}
			}
			in := []reflect.Value{reflect.ValueOf(dst)}
			for _, src := range srcs {
				in = append(in, reflect.ValueOf(src))
			}
			out := f.Call(in)
			if len(out) == 2 && !out[1].IsNil() {
				return nil, out[1].Interface().(error)
			}
			return out[0].Interface(), nil
		}
	}
	return fm
}

// nests reports whether any of vals is a map, a list or a struct, which a
// new dict or list holding it nests one level deeper.
func nests(vals []any) bool {
	for _, v := range vals {
		switch reflect.ValueOf(v).Kind() {
		case reflect.Map, reflect.Slice, reflect.Array, reflect.Pointer, reflect.Struct:
			return true
		}
	}
	return false
}

// holds reports whether v is, or holds at any depth, the dict d.
func holds(v reflect.Value, d map[string]any, depth int) bool {
	if depth > maxDepth {
		return true
	}
	switch v.Kind() {
	case reflect.Interface:
		return !v.IsNil() && holds(v.Elem(), d, depth+1)
	case reflect.Map:
		if v.Pointer() == reflect.ValueOf(d).Pointer() {
			return true
		}
		if !mayHold(v.Type().Elem()) {
			return false
		}
		for it := v.MapRange(); it.Next(); {
			if holds(it.Value(), d, depth+1) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		if !mayHold(v.Type().Elem()) {
			return false
		}
		for i := range v.Len() {
			if holds(v.Index(i), d, depth+1) {
				return true
			}
		}
	}
	return false
}

// mayHold reports whether items of type t may be or hold a dict.
func mayHold(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface, reflect.Map, reflect.Slice, reflect.Array:
		return true
	}
	return false
}
