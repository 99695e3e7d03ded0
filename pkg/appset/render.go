package appset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
	"github.com/gosimple/slug"
	"sigs.k8s.io/yaml"
)

// A template string is rendered as Argo CD 3.6's ApplicationSet controller
// renders it (applicationset/utils.Render.Replace): with Go's
// text/template and sprig's functions when goTemplate is set, else by the
// default syntax, which puts a string parameter in place of {{ name }}
// and leaves every other {{ ... }} as it is.

// funcs are the Go template functions: sprig's, without those that read
// the controller's environment, and Argo CD's own.
var funcs = func() template.FuncMap {
	m := sprig.GenericFuncMap()
	delete(m, "env")
	delete(m, "expandenv")
	delete(m, "getHostByName")
	m["normalize"] = sanitizeName
	m["slugify"] = slugify
	m["toYaml"] = toYAML
	m["fromYaml"] = fromYAML
	m["fromYamlArray"] = fromYAMLArray
	for _, name := range unsteady {
		m[name] = func(...any) (string, error) {
			return "", fmt.Errorf("%s gives another value each time Argo CD renders the template: repotool cannot check what it makes", name)
		}
	}
	until, untilStep, seq, repeat := m["until"].(func(int) []int), m["untilStep"].(func(int, int, int) []int), m["seq"].(func(...int) string),
		m["repeat"].(func(int, string) string)
	m["until"] = func(n int) ([]int, error) {
		if err := bounded(abs(n)); err != nil {
			return nil, err
		}
		return until(n), nil
	}
	m["untilStep"] = func(start, stop, step int) ([]int, error) {
		if step == 0 {
			return []int{}, nil
		}
		if err := bounded(abs(stop-start) / abs(step)); err != nil {
			return nil, err
		}
		return untilStep(start, stop, step), nil
	}
	m["seq"] = func(p ...int) (string, error) {
		if len(p) > 0 && bounded(abs(p[len(p)-1])+abs(p[0])) != nil {
			return "", bounded(maxItems + 1)
		}
		return seq(p...), nil
	}
	m["repeat"] = func(n int, s string) (string, error) {
		if err := bounded(n * max(len(s), 1) / 64); err != nil {
			return "", err
		}
		return repeat(max(n, 0), s), nil
	}
	return m
}()

// unsteady are sprig's functions whose value depends on the clock or
// chance: an Application made with one is not the one Argo CD makes.
var unsteady = []string{
	"now", "ago", "date_in_zone", "dateInZone", "randAlphaNum", "randAlpha", "randAscii", "randNumeric", "randBytes", "randInt",
	"uuidv4", "shuffle", "bcrypt", "htpasswd", "genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
	"genSignedCert", "genSignedCertWithKey", "encryptAES",
}

// maxItems bounds the lists until and untilStep make (and repeat's
// length, in 64-byte units): a template is repository content, which
// must not exhaust the machine that checks it.
const maxItems = 100000

func bounded(n int) error {
	if n > maxItems {
		return fmt.Errorf("a template that makes more than %d items", maxItems)
	}
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// base has funcs loaded once; each render clones it.
var base = template.New("base").Funcs(funcs)

// maxTplDepth is how deep tpl may call itself, as Argo CD allows.
const maxTplDepth = 3

// renderer renders template strings with one ApplicationSet's syntax.
type renderer struct {
	ctx        context.Context
	goTemplate bool
	options    []string // goTemplateOptions
	// parsed are the Go templates parsed so far, by options and text:
	// one ApplicationSet's, used by one goroutine.
	parsed map[string]*template.Template
}

// maxRenderTime bounds one template string's rendering: a template's
// loops are repository content, which must not hang the check.
var maxRenderTime = 10 * time.Second

// isTemplated is Argo CD's test for a string the default syntax renders:
// a {{ with a }} after it on one line.
var isTemplated = regexp.MustCompile(".*{{.*}}.*")

// replace renders s with params.
func (r renderer) replace(s string, params map[string]any) (string, error) {
	if r.goTemplate {
		return r.goReplace(s, params, r.options)
	}
	if !isTemplated.MatchString(s) {
		return s, nil
	}
	return fastReplace(s, params)
}

func (r renderer) goReplace(s string, params map[string]any, options []string) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil // no action: text/template writes the text as it is
	}
	parsed, err := r.parse(s, options)
	if err != nil {
		return "", err
	}
	done := make(chan error, 1)
	b := limited{max: maxOutput}
	go func() { done <- parsed.Execute(&b, params) }()
	timer := time.NewTimer(maxRenderTime)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return "", fmt.Errorf("failed to execute go template %s: %w", s, err)
		}
		return b.String(), nil
	case <-r.ctx.Done():
		return "", r.ctx.Err()
	case <-timer.C:
		// The template runs on in its goroutine until the process ends:
		// Go cannot stop it, and the check must not wait for it.
		return "", fmt.Errorf("a template that renders for more than %s: %s", maxRenderTime, s)
	}
}

// parse parses s with options, once for each ApplicationSet: its Applications
// render the same template strings with other parameters.
func (r renderer) parse(s string, options []string) (*template.Template, error) {
	key := strings.Join(options, "\x00") + "\x01" + s
	if t, ok := r.parsed[key]; ok {
		return t, nil
	}
	t, err := base.Clone()
	if err != nil {
		return nil, err
	}
	for _, o := range options {
		if err := checkOption(o); err != nil {
			return nil, err
		}
		t = t.Option(o)
	}
	t = t.Funcs(template.FuncMap{"tpl": tplFunc(t)})
	parsed, err := t.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("failed to parse template %s: %w", s, err)
	}
	if r.parsed != nil && len(r.parsed) < maxParsed {
		r.parsed[key] = parsed
	}
	return parsed, nil
}

// maxParsed bounds how many parsed templates an ApplicationSet keeps.
const maxParsed = 1000

// maxOutput bounds what one template string renders to.
const maxOutput = 4 << 20

// limited is a buffer that refuses to grow over max bytes.
type limited struct {
	bytes.Buffer
	max int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.Len()+len(p) > l.max {
		return 0, fmt.Errorf("a template that renders more than %d bytes", l.max)
	}
	return l.Buffer.Write(p)
}

// checkOption refuses a goTemplateOptions entry text/template would panic
// on, as an error instead.
func checkOption(o string) error {
	switch o {
	case "missingkey=invalid", "missingkey=default", "missingkey=zero", "missingkey=error":
		return nil
	}
	return fmt.Errorf("goTemplateOptions: %q is not a text/template option (missingkey=default, zero or error)", o)
}

// fastReplace is the default syntax: each {{tag}} whose trimmed tag names
// a string parameter becomes its value; others stay. A {{ with no }}
// after it is an error, as valyala/fasttemplate makes it.
func fastReplace(s string, params map[string]any) (string, error) {
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		b.WriteString(rest[:i])
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return "", fmt.Errorf("invalid template: cannot find end tag=%q in the template=%q starting from %q", "}}", s, rest[i+2:])
		}
		tag := rest[i+2 : i+2+j]
		if v, ok := params[strings.TrimSpace(tag)].(string); ok && strings.TrimSpace(tag) != "" {
			b.WriteString(v)
		} else {
			b.WriteString("{{" + tag + "}}")
		}
		rest = rest[i+2+j+2:]
	}
}

// tplFunc is the tpl function: a string rendered as a template with t's
// functions and options, at most maxTplDepth deep.
func tplFunc(parent *template.Template) func(string, any) (string, error) {
	depth := 0
	return func(s string, vals any) (string, error) {
		depth++
		defer func() { depth-- }()
		if depth > maxTplDepth {
			return "", fmt.Errorf("maximum recursion depth %d exceeded in tpl function", maxTplDepth)
		}
		t, err := parent.Clone()
		if err != nil {
			return "", fmt.Errorf("cannot clone template: %w", err)
		}
		if t, err = t.New(parent.Name()).Parse(s); err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", s, err)
		}
		b := limited{max: maxOutput}
		if err := t.Execute(&b, vals); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", s, err)
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
}

var invalidDNSChars = regexp.MustCompile("[^-a-z0-9.]")

// sanitizeName is Argo CD's normalize: lower case, other characters than
// a-z, 0-9, '-' and '.' made '-', at most 253 long, no '-' or '.' at
// either end.
func sanitizeName(name string) string {
	name = invalidDNSChars.ReplaceAllString(strings.ToLower(name), "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

// slugify is Argo CD's: [maxSize [smartTruncate]] name, default 50 and
// true.
func slugify(args ...any) (string, error) {
	maxSize, smart, name := 50, true, ""
	for i, a := range args {
		var ok bool
		switch i {
		case len(args) - 1:
			name, ok = a.(string)
		case 0:
			maxSize, ok = a.(int)
		case 1:
			smart, ok = a.(bool)
		}
		if !ok {
			return "", errors.New("slugify: want [maxSize int [smartTruncate bool]] name string")
		}
	}
	slugMu.Lock()
	defer slugMu.Unlock()
	slug.MaxLength, slug.EnableSmartTruncate = maxSize, smart
	defer func() { slug.MaxLength, slug.EnableSmartTruncate = 0, true }()
	return slug.Make(sanitizeName(name)), nil
}

// slugMu guards gosimple/slug's options, which are package variables that
// Argo CD sets for each call as this does.
var slugMu sync.Mutex

func toYAML(v any) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func fromYAML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(s string) ([]any, error) {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return a, nil
}
