/*
Copyright The Helm Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Modified by the repotool authors from helm.sh/helm/v3 v3.22.0
// pkg/engine/engine.go: a chart's templates are parsed once and the parsed
// set cloned for each rendering (Engine.Render, parsedSet); the Kubernetes
// client (lookup), DNS, strict and lint modes are left out, as `helm
// template` leaves them off; renderable keeps the template's bytes.

// Package helmengine is Helm's template engine, as `helm template` runs it,
// with one change: a chart's templates are parsed once per Engine and the
// parsed set is cloned for each rendering, where Helm parses every template
// of the chart for every rendering. Execution, the functions, .Files, the
// scoping of values per chart and every message are Helm's (v3.22.0,
// pkg/engine, whose funcs.go and files.go are copied unchanged);
// pkg/render's parity tests compare the output with the helm CLI.
package helmengine

import (
	"bytes"
	"container/list"
	"fmt"
	"hash/maphash"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/pkg/errors"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// DefaultCacheSize is the template source, in bytes, whose parsed sets an
// Engine keeps by default (the least recently used set goes first).
const DefaultCacheSize = 64 << 20

// Engine renders charts as Helm's engine does (missing keys render as
// zero values, `lookup` returns nothing, `getHostByName` returns ""),
// keeping the parsed templates of the charts it renders. It is safe for
// concurrent use.
type Engine struct {
	// CacheSize bounds the template source, in bytes, whose parsed sets
	// are kept: 0 means DefaultCacheSize, a negative value keeps none.
	CacheSize int

	mu    sync.Mutex
	sets  map[uint64][]*list.Element
	lru   list.List // of *parsedSet, most recently used first
	bytes int
	seed  maphash.Seed
	once  sync.Once
}

// parsedSet is the templates of one rendering parsed into one template
// namespace, as Helm's engine parses them, or the error parsing them
// gave. Only clones of it are executed.
type parsedSet struct {
	hash  uint64
	names []string // in Helm's parse order
	data  [][]byte // the templates, in the same order
	size  int
	t     *template.Template
	err   error
}

// Render renders the templates of chrt (and its subcharts) with values,
// as Helm's engine.Render does, and returns each template's output by its
// path ("<chart>/templates/x.yaml").
func (e *Engine) Render(chrt *chart.Chart, values chartutil.Values) (map[string]string, error) {
	tmap := allTemplates(chrt, values)
	return e.render(tmap)
}

// renderable is a template with the values for its chart.
type renderable struct {
	// tpl is the template's source
	tpl []byte
	// vals are the values to be supplied to the template.
	vals chartutil.Values
	// namespace prefix to the templates of the current chart
	basePath string
}

const warnStartDelim = "HELM_ERR_START"
const warnEndDelim = "HELM_ERR_END"
const recursionMaxNums = 1000

var warnRegex = regexp.MustCompile(warnStartDelim + `((?s).*)` + warnEndDelim)

func warnWrap(warn string) string {
	return warnStartDelim + warn + warnEndDelim
}

// 'include' needs to be defined in the scope of a 'tpl' template as
// well as regular file-loaded templates.
func includeFun(t *template.Template, includedNames map[string]int) func(string, interface{}) (string, error) {
	return func(name string, data interface{}) (string, error) {
		var buf strings.Builder
		if v, ok := includedNames[name]; ok {
			if v > recursionMaxNums {
				return "", errors.Wrapf(fmt.Errorf("unable to execute template"), "rendering template has a nested reference name: %s", name)
			}
			includedNames[name]++
		} else {
			includedNames[name] = 1
		}
		err := t.ExecuteTemplate(&buf, name, data)
		includedNames[name]--
		return buf.String(), err
	}
}

// As does 'tpl', so that nested calls to 'tpl' see the templates
// defined by their enclosing contexts.
func tplFun(parent *template.Template, includedNames map[string]int) func(string, interface{}) (string, error) {
	return func(tpl string, vals interface{}) (string, error) {
		t, err := parent.Clone()
		if err != nil {
			return "", errors.Wrapf(err, "cannot clone template")
		}

		// Re-inject the missingkey option, see text/template issue https://github.com/golang/go/issues/43022
		// We have to go by strict from our engine configuration, as the option fields are private in Template.
		// TODO: Remove workaround (and the strict parameter) once we build only with golang versions with a fix.
		t.Option("missingkey=zero")

		// Re-inject 'include' so that it can close over our clone of t;
		// this lets any 'define's inside tpl be 'include'd.
		t.Funcs(template.FuncMap{
			"include": includeFun(t, includedNames),
			"tpl":     tplFun(t, includedNames),
		})

		// We need a valid parse tree, we don't need to execute the template.
		t, err = t.New(parent.Name()).Parse(tpl)
		if err != nil {
			return "", errors.Wrapf(err, "cannot parse template %q", tpl)
		}

		var buf strings.Builder
		if err := t.Execute(&buf, vals); err != nil {
			return "", errors.Wrapf(err, "error during tpl function execution for %q", tpl)
		}

		// See comment in renderWithReferences explaining the <no value> hack.
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
}

// bind binds include and tpl, the functions of Helm's engine that close
// over the template being executed, to t: a clone of a parsed set, with
// the recursion count of its own rendering.
func bind(t *template.Template) {
	includedNames := make(map[string]int)
	t.Funcs(template.FuncMap{
		"include": includeFun(t, includedNames),
		"tpl":     tplFun(t, includedNames),
	})
}

// initFunMap creates the function map of Helm's engine (without a
// Kubernetes client and without DNS), with include and tpl bound to t.
func initFunMap(t *template.Template) {
	funcMap := funcMap()
	includedNames := make(map[string]int)

	// Add the template-rendering functions here so we can close over t.
	funcMap["include"] = includeFun(t, includedNames)
	funcMap["tpl"] = tplFun(t, includedNames)

	// Add the `required` function here so we can use lintMode
	funcMap["required"] = func(warn string, val interface{}) (interface{}, error) {
		if val == nil {
			return val, errors.New(warnWrap(warn))
		} else if _, ok := val.(string); ok {
			if val == "" {
				return val, errors.New(warnWrap(warn))
			}
		}
		return val, nil
	}

	// Override sprig fail function for linting and wrapping message
	funcMap["fail"] = func(msg string) (string, error) {
		return "", errors.New(warnWrap(msg))
	}

	// Disable DNS lookups (Helm's default, and `helm template`'s).
	funcMap["getHostByName"] = func(_ string) string {
		return ""
	}

	t.Funcs(funcMap)
}

// render takes a map of templates/values and renders them.
func (e *Engine) render(tpls map[string]renderable) (rendered map[string]string, err error) {
	// Basically, what we do here is start with an empty parent template and then
	// build up a list of templates -- one for each file. Once all of the templates
	// have been parsed, we loop through again and execute every template.
	//
	// The idea with this process is to make it possible for more complex templates
	// to share common blocks, but to make the entire thing feel like a file-based
	// template engine.
	defer func() {
		if r := recover(); r != nil {
			err = errors.Errorf("rendering template failed: %v", r)
		}
	}()

	set := e.parsed(tpls)
	if set.err != nil {
		return map[string]string{}, set.err
	}
	t, err := set.t.Clone()
	if err != nil {
		return map[string]string{}, err
	}
	bind(t)

	rendered = make(map[string]string, len(set.names))
	for _, filename := range set.names {
		// Don't render partials. We don't care out the direct output of partials.
		// They are only included from other templates.
		if strings.HasPrefix(path.Base(filename), "_") {
			continue
		}
		// At render time, add information about the template that is being rendered.
		vals := tpls[filename].vals
		vals["Template"] = chartutil.Values{"Name": filename, "BasePath": tpls[filename].basePath}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, filename, vals); err != nil {
			return map[string]string{}, cleanupExecError(filename, err)
		}

		// Work around the issue where Go will emit "<no value>" even if Options(missing=zero)
		// is set. Since missing=error will never get here, we do not need to handle
		// the Strict case.
		rendered[filename] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}

	return rendered, nil
}

// parsed returns the parsed set of tpls: one kept from an earlier
// rendering of the same templates, or a new one.
func (e *Engine) parsed(tpls map[string]renderable) *parsedSet {
	keys := sortTemplates(tpls)
	e.once.Do(func() {
		e.seed = maphash.MakeSeed()
		e.sets = map[uint64][]*list.Element{}
	})
	var h maphash.Hash
	h.SetSeed(e.seed)
	size := 0
	for _, k := range keys {
		h.WriteString(k)
		h.WriteByte(0)
		h.Write(tpls[k].tpl)
		h.WriteByte(0)
		size += len(k) + len(tpls[k].tpl)
	}
	sum := h.Sum64()

	e.mu.Lock()
	for _, el := range e.sets[sum] {
		if s := el.Value.(*parsedSet); s.same(keys, tpls) {
			e.lru.MoveToFront(el)
			e.mu.Unlock()
			return s
		}
	}
	e.mu.Unlock()

	s := parse(keys, tpls)
	s.hash, s.size = sum, size
	e.keep(s)
	return s
}

// same reports whether s is the parsed set of tpls, whose keys are in
// Helm's parse order.
func (s *parsedSet) same(keys []string, tpls map[string]renderable) bool {
	if len(keys) != len(s.names) {
		return false
	}
	for i, k := range keys {
		if k != s.names[i] || !bytes.Equal(tpls[k].tpl, s.data[i]) {
			return false
		}
	}
	return true
}

// keep adds s to the sets kept, dropping the least recently used ones
// beyond the cache size. Two goroutines that parse the same templates at
// once may both keep theirs; either one serves later renderings.
func (e *Engine) keep(s *parsedSet) {
	limit := e.CacheSize
	if limit == 0 {
		limit = DefaultCacheSize
	}
	if limit < 0 || s.size > limit {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sets[s.hash] = append(e.sets[s.hash], e.lru.PushFront(s))
	e.bytes += s.size
	for e.bytes > limit {
		el := e.lru.Back()
		old := el.Value.(*parsedSet)
		e.lru.Remove(el)
		e.bytes -= old.size
		bucket := e.sets[old.hash]
		for i, b := range bucket {
			if b == el {
				bucket = append(bucket[:i], bucket[i+1:]...)
				break
			}
		}
		if len(bucket) == 0 {
			delete(e.sets, old.hash)
		} else {
			e.sets[old.hash] = bucket
		}
	}
}

// parse parses tpls, in the order of keys, into one template namespace as
// Helm's engine does, and keeps the first error, as Helm reports it.
func parse(keys []string, tpls map[string]renderable) *parsedSet {
	s := &parsedSet{names: keys, data: make([][]byte, len(keys))}
	for i, k := range keys {
		s.data[i] = tpls[k].tpl
	}
	t := template.New("gotpl")
	t.Option("missingkey=zero")
	initFunMap(t)
	// We want to parse the templates starting from the most nested chart to the root
	// chart, so that the root chart's templates can override the templates of the
	// dependencies.
	for _, filename := range keys {
		if _, err := t.New(filename).Parse(string(tpls[filename].tpl)); err != nil {
			s.err = cleanupParseError(filename, err)
			return s
		}
	}
	s.t = t
	return s
}

func cleanupParseError(filename string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		// This might happen if a non-templating error occurs
		return fmt.Errorf("parse error in (%s): %s", filename, err)
	}
	// The first token is "template"
	// The second token is either "filename:lineno" or "filename:lineNo:columnNo"
	location := tokens[1]
	// The remaining tokens make up a stacktrace-like chain, ending with the relevant error
	errMsg := tokens[len(tokens)-1]
	return fmt.Errorf("parse error at (%s): %s", string(location), errMsg)
}

func cleanupExecError(filename string, err error) error {
	if _, isExecError := err.(template.ExecError); !isExecError {
		return err
	}

	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		// This might happen if a non-templating error occurs
		return fmt.Errorf("execution error in (%s): %s", filename, err)
	}

	// The first token is "template"
	// The second token is either "filename:lineno" or "filename:lineNo:columnNo"
	location := tokens[1]

	parts := warnRegex.FindStringSubmatch(tokens[2])
	if len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", string(location), parts[1])
	}

	return err
}

func sortTemplates(tpls map[string]renderable) []string {
	keys := make([]string, len(tpls))
	i := 0
	for key := range tpls {
		keys[i] = key
		i++
	}
	sort.Sort(sort.Reverse(byPathLen(keys)))
	return keys
}

type byPathLen []string

func (p byPathLen) Len() int      { return len(p) }
func (p byPathLen) Swap(i, j int) { p[j], p[i] = p[i], p[j] }
func (p byPathLen) Less(i, j int) bool {
	a, b := p[i], p[j]
	ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
	if ca == cb {
		return strings.Compare(a, b) == -1
	}
	return ca < cb
}

// allTemplates returns all templates for a chart and its dependencies.
//
// As it goes, it also prepares the values in a scope-sensitive manner.
func allTemplates(c *chart.Chart, vals chartutil.Values) map[string]renderable {
	templates := make(map[string]renderable)
	recAllTpls(c, templates, vals)
	return templates
}

// recAllTpls recurses through the templates in a chart.
//
// As it recurses, it also sets the values to be appropriate for the template
// scope.
func recAllTpls(c *chart.Chart, templates map[string]renderable, vals chartutil.Values) map[string]interface{} {
	subCharts := make(map[string]interface{})
	chartMetaData := struct {
		chart.Metadata
		IsRoot bool
	}{*c.Metadata, c.IsRoot()}

	next := map[string]interface{}{
		"Chart":        chartMetaData,
		"Files":        newFiles(c.Files),
		"Release":      vals["Release"],
		"Capabilities": vals["Capabilities"],
		"Values":       make(chartutil.Values),
		"Subcharts":    subCharts,
	}

	// If there is a {{.Values.ThisChart}} in the parent metadata,
	// copy that into the {{.Values}} for this template.
	if c.IsRoot() {
		next["Values"] = vals["Values"]
	} else if vs, err := vals.Table("Values." + c.Name()); err == nil {
		next["Values"] = vs
	}

	for _, child := range c.Dependencies() {
		subCharts[child.Name()] = recAllTpls(child, templates, next)
	}

	newParentID := c.ChartFullPath()
	for _, t := range c.Templates {
		if t == nil {
			continue
		}
		if !isTemplateValid(c, t.Name) {
			continue
		}
		templates[path.Join(newParentID, t.Name)] = renderable{
			tpl:      t.Data,
			vals:     next,
			basePath: path.Join(newParentID, "templates"),
		}
	}

	return next
}

// isTemplateValid returns true if the template is valid for the chart type
func isTemplateValid(ch *chart.Chart, templateName string) bool {
	if isLibraryChart(ch) {
		return strings.HasPrefix(filepath.Base(templateName), "_")
	}
	return true
}

// isLibraryChart returns true if the chart is a library chart
func isLibraryChart(c *chart.Chart) bool {
	return strings.EqualFold(c.Metadata.Type, "library")
}
