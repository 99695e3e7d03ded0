package engine

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	tparse "text/template/parse"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// unstableFuncs are the template functions whose result is not a function
// of the chart and its values: they ask the cluster (lookup, which finds
// nothing offline and something in a cluster), the clock, or chance. A
// rendering that calls one prints other bytes on another run or machine.
var unstableFuncs = []string{
	"ago", "bcrypt", "encryptAES",
	"genCA", "genCAWithKey", "genPrivateKey", "genSelfSignedCert", "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey",
	"htpasswd", "lookup", "now",
	"randAlpha", "randAlphaNum", "randAscii", "randBytes", "randInt", "randNumeric",
	"shuffle", "uuidv4",
}

// clockFuncs format a time, and use the clock when what they are given
// is not one (sprig's formatDate): `date "2006" .Values.x` with a string.
var clockFuncs = []string{"date", "dateInZone", "date_in_zone", "htmlDate", "htmlDateInZone"}

// Call is an unstable function a rendering called: Func, in the template
// Template (Helm's path, "app/templates/job.yaml"; a partial's file for a
// named template), at Line of that file (the function's first mention
// there), or, when ViaTpl, in text given to tpl at Line, the tpl call's.
type Call struct {
	Func, Template string
	Line           int
	ViaTpl         bool
}

// unstableFuncsFor wraps lib's unstable functions to record their calls
// in b, where the innermost running template is. A rendering binds them
// once: the copies tpl makes of its templates keep them.
func (b *budget) unstableFuncsFor(lib template.FuncMap) template.FuncMap {
	fm := template.FuncMap{}
	for _, name := range unstableFuncs {
		if f, ok := lib[name]; ok {
			fm[name] = b.recorded(name, f, nil)
		}
	}
	for _, name := range clockFuncs {
		if f, ok := lib[name]; ok {
			fm[name] = b.recorded(name, f, func(args []reflect.Value) bool { return len(args) > 1 && !isTime(args[1]) })
		}
	}
	return fm
}

// isTime reports whether v is a time sprig's formatDate takes as given.
func isTime(v reflect.Value) bool {
	if v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	switch v.Interface().(type) {
	case time.Time, *time.Time, int64, int, int32:
		return true
	}
	return false
}

// recorded is f, which records a call of name in b when when (nil:
// always) says the arguments make it unstable, and gives the result
// b.result gives.
func (b *budget) recorded(name string, f any, when func([]reflect.Value) bool) any {
	fv := reflect.ValueOf(f)
	return reflect.MakeFunc(fv.Type(), func(args []reflect.Value) []reflect.Value {
		if when != nil && !when(args) {
			return call(fv, args)
		}
		return b.result(b.record(name, b.stack), fv, args)
	}).Interface()
}

func call(fv reflect.Value, args []reflect.Value) []reflect.Value {
	if fv.Type().IsVariadic() {
		return fv.CallSlice(args)
	}
	return fv.Call(args)
}

// replay makes a rendering give the unstable calls the results a first
// rendering had, in order, but those of one site, changed (perturb).
type replay struct {
	perturb *callSite
	results map[string][][]reflect.Value
	pos     map[string]int
}

// result is the result of a call of fv at site: the function's, kept when
// b keeps them; or, replaying, the first rendering's, changed at the site
// being tried.
func (b *recorder) result(site callSite, fv reflect.Value, args []reflect.Value) []reflect.Value {
	rp := b.replay
	if rp == nil {
		out := call(fv, args)
		if b.keep {
			if b.results == nil {
				b.results = map[string][][]reflect.Value{}
			}
			b.results[site.fn] = append(b.results[site.fn], out)
		}
		return out
	}
	var out []reflect.Value
	if i := rp.pos[site.fn]; i < len(rp.results[site.fn]) {
		out = rp.results[site.fn][i]
	} else {
		out = call(fv, args) // the tried site changed the templates' course
	}
	rp.pos[site.fn]++
	if rp.perturb != nil && site == *rp.perturb {
		out = perturb(out, fv, args)
	}
	return out
}

// perturb is another result than out for a call of fv: what a rendering
// at another time, or against a cluster, could have got. An error stays.
func perturb(out []reflect.Value, fv reflect.Value, args []reflect.Value) []reflect.Value {
	if len(out) == 0 || len(out) == 2 && !out[1].IsNil() {
		return out
	}
	var p any
	switch x := out[0].Interface().(type) {
	case string:
		p = another(x)
	case int:
		p = x + 1000003
	case time.Time:
		p = x.AddDate(-10, -1, -1)
	case map[string]any: // lookup: an object found
		p = map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "another"}, "data": map[string]any{"another": "YQ=="}}
	default:
		return call(fv, args) // a key or certificate: a new one is another
	}
	res := slices.Clone(out)
	res[0] = reflect.ValueOf(p).Convert(out[0].Type())
	return res
}

// another is s with every letter and digit changed to another of its
// kind: a random string of the same length and alphabet, a date of the
// same layout (s with "x" added when it has neither).
func another(s string) string {
	b := []byte(s)
	changed := false
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+1)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+1)%26
		case c >= '0' && c <= '9':
			b[i] = '0' + (c-'0'+1)%10
		default:
			continue
		}
		changed = true
	}
	if !changed {
		return s + "x"
	}
	return string(b)
}

// verify drops from b.sites the calls whose result does not reach out,
// the first rendering's output: it renders again with every unstable call
// given its first result, as a guard (a chart whose templates change its
// values as they run may render otherwise a second time: then every site
// stays), then once per site with that site's results changed.
func (e *Engine) verify(c *chart.Chart, top chartutil.Values, b *budget, out map[string]string) {
	again := func(perturb *callSite) (map[string]string, bool) {
		rb := e.newBudget(b.ctx)
		rb.replay = &replay{perturb: perturb, results: b.results, pos: map[string]int{}}
		o, _, err := e.run(c, top, rb)
		return o, err == nil
	}
	if o, ok := again(nil); !ok || !maps.Equal(o, out) {
		return
	}
	for site := range b.sites {
		if o, ok := again(&site); ok && maps.Equal(o, out) {
			delete(b.sites, site)
		}
	}
}

// callSite is a recorded call before its line is known.
type callSite struct {
	fn, template string
	viaTpl       bool
}

// recorder notes the unstable functions a rendering called, and keeps or
// replays their results for verify's renderings.
type recorder struct {
	// sites are the unstable functions called, where.
	sites map[callSite]bool
	// keep: the results of the unstable calls are kept, in results, for
	// verify's renderings, which replay them.
	keep    bool
	results map[string][][]reflect.Value
	replay  *replay
}

// record notes a call of fn in the innermost running template of stack
// (callDepth.stack), and returns its site.
func (b *recorder) record(fn string, stack []string) callSite {
	site := callSite{fn: fn}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == "" {
			site.viaTpl = true
			continue
		}
		site.template = stack[i]
		break
	}
	if b.sites == nil {
		b.sites = map[callSite]bool{}
	}
	b.sites[site] = true
	return site
}

// unstableCalls are the sites recorded in b as Calls, with the file and line
// each has in t, sorted.
func (b *recorder) unstableCalls(t *template.Template) []Call {
	out := make([]Call, 0, len(b.sites))
	for site := range b.sites {
		c := Call{Func: site.fn, Template: site.template, ViaTpl: site.viaTpl}
		if tt := t.Lookup(site.template); tt != nil && tt.Tree != nil {
			c.Template = tt.Tree.ParseName
			ident := site.fn
			if site.viaTpl {
				ident = "tpl"
			}
			c.Line = identLine(tt.Tree, ident)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Call) int {
		return cmp.Or(strings.Compare(a.Template, b.Template), cmp.Compare(a.Line, b.Line), strings.Compare(a.Func, b.Func),
			cmp.Compare(strconv.FormatBool(a.ViaTpl), strconv.FormatBool(b.ViaTpl)))
	})
	return slices.Compact(out)
}

// identLine is the line of tree's file where tree first mentions the
// function ident, 0 when it does not.
func identLine(tree *tparse.Tree, ident string) int {
	var found tparse.Node
	var walk func(n tparse.Node)
	walk = func(n tparse.Node) {
		if found != nil || n == nil || reflect.ValueOf(n).IsNil() {
			return
		}
		switch n := n.(type) {
		case *tparse.IdentifierNode:
			if n.Ident == ident {
				found = n
			}
		case *tparse.ListNode:
			for _, c := range n.Nodes {
				walk(c)
			}
		case *tparse.ActionNode:
			walk(n.Pipe)
		case *tparse.PipeNode:
			for _, c := range n.Cmds {
				walk(c)
			}
		case *tparse.CommandNode:
			for _, c := range n.Args {
				walk(c)
			}
		case *tparse.ChainNode:
			walk(n.Node)
		case *tparse.IfNode:
			walk(&n.BranchNode)
		case *tparse.RangeNode:
			walk(&n.BranchNode)
		case *tparse.WithNode:
			walk(&n.BranchNode)
		case *tparse.BranchNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *tparse.TemplateNode:
			walk(n.Pipe)
		}
	}
	walk(tree.Root)
	if found == nil {
		return 0
	}
	loc, _ := tree.ErrorContext(found)
	// loc is "file:line:col".
	parts := strings.Split(loc, ":")
	if len(parts) < 3 {
		return 0
	}
	line, _ := strconv.Atoi(parts[len(parts)-2])
	return line
}
