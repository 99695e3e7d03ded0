package render

import (
	"fmt"
	"iter"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"helm.sh/helm/v3/pkg/release"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render/internal/util"
)

// doc is one document of a rendered template, as Helm splits them.
type doc struct {
	path    string // the template's path, "<chart>/templates/x.yaml"
	text    string // trimmed, without separators
	kind    string
	content map[string]any // nil for a document of comments only
}

// sortDocs splits and sorts the rendered templates as Helm's
// releaseutil.SortManifests does, parsing each document once: manifests
// by kind in InstallOrder, hooks (documents with a known helm.sh/hook)
// apart, by kind too. A document Helm's sort would refuse fails with
// Helm's message. helm4 splits and orders as Helm 4 does; decode parses a
// document (manifest.Decode, or a docCache's).
func sortDocs(files map[string]string, helm4 bool, decode func([]byte) (map[string]any, error)) (docs, hooks []doc, err error) {
	split, order := splitManifests, installOrder
	if helm4 {
		split, order = splitManifests4, installOrder4
	}
	for p, text := range documents(files, split) {
		d := doc{path: p, text: text}
		// Parsed as the stream holds it, with its line break: a block
		// scalar that ends the document keeps its last newline, as it
		// does for whoever reads the stream.
		var perr error
		d.content, perr = decode(append([]byte(d.text), '\n'))
		hd, ok := readHead(d.content)
		if perr != nil || !ok {
			// Rare: read it as Helm does, for Helm's message.
			sh, err := helmHead(p, files[p], d.text, helm4)
			if err != nil {
				return nil, nil, err
			}
			if perr != nil {
				// Helm reads it but repotool cannot; Helm's sort may
				// still refuse a later document, and its message
				// comes first.
				if err := helmHeadsError(files, split, helm4); err != nil {
					return nil, nil, err
				}
				return nil, nil, &manifest.DocumentError{Template: p, Err: perr}
			}
			hd = head{kind: sh.Kind}
			if sh.Metadata != nil {
				hd.annotations = sh.Metadata.Annotations
			}
		}
		d.kind = hd.kind
		switch h, ok := hd.annotations[release.HookAnnotation]; {
		case !ok:
			docs = append(docs, d)
		case knownHooks(h):
			hooks = append(hooks, d)
		default:
			// Helm skips a document with an unknown hook (and logs it).
		}
	}
	byKind := func(a, b doc) int { return compareKinds(order, a.kind, b.kind) }
	slices.SortStableFunc(docs, byKind)
	slices.SortStableFunc(hooks, byKind)
	return docs, hooks, nil
}

// splitManifests splits a rendered template into documents exactly as
// releaseutil.SplitManifests does with its regular expression
// `(?:^|\s*\n)---\s*` (RE2's \s: tab, newline, form feed, carriage return,
// space), in order, without the regular expression's cost: a separator is
// "---" at the start or after a newline, with the whitespace run before
// that newline and all whitespace after it. FuzzSplitManifests compares it
// with Helm's.
func splitManifests(big string) []string {
	s := strings.TrimSpace(big)
	var docs []string
	add := func(d string) {
		if d != "" {
			docs = append(docs, strings.TrimSpace(d))
		}
	}
	pos := 0
	if strings.HasPrefix(s, "---") {
		pos = skipSpace(s, 3)
	}
	beg := pos
	for {
		i := strings.Index(s[pos:], "\n---")
		if i < 0 {
			break
		}
		q := pos + i
		p := q
		for p > pos && isRE2Space(s[p-1]) {
			p--
		}
		add(s[beg:p])
		pos = skipSpace(s, q+4)
		beg = pos
	}
	add(s[beg:])
	return docs
}

// skipSpace returns the index of the first byte of s at or after i that
// is not RE2's \s.
func skipSpace(s string, i int) int {
	for i < len(s) && isRE2Space(s[i]) {
		i++
	}
	return i
}

func isRE2Space(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// helmHead reads the head of the document text of the template p, whose
// output is out, as Helm's sort does (Helm 4's with helm4), failing with
// Helm's message, which gives the line in the document: the error also
// holds the line in the template's output (*outputLineError).
func helmHead(p, out, text string, helm4 bool) (releaseutil.SimpleHead, error) {
	var sh releaseutil.SimpleHead
	var err error
	if helm4 {
		var sh4 util.SimpleHead
		err = yaml.Unmarshal([]byte(text), &sh4)
		sh = releaseutil.SimpleHead(sh4)
	} else {
		err = yaml.Unmarshal([]byte(text), &sh)
	}
	if err != nil {
		return sh, outputLine(out, text, fmt.Errorf("YAML parse error on %s: %w", p, err))
	}
	return sh, nil
}

// helmHeadsError is the first failure of Helm's sort reading the heads of
// every document of files, in its order.
func helmHeadsError(files map[string]string, split func(string) []string, helm4 bool) error {
	for p, text := range documents(files, split) {
		if _, err := helmHead(p, files[p], text, helm4); err != nil {
			return err
		}
	}
	return nil
}

// outputLineError is a YAML error about a rendered document, with the line
// of the template's output it is at. Helm's message counts lines from the
// document, which starts below the template's first line when the template
// prints anything before it: a blank line from an `{{ if }}`, a comment, an
// earlier document, a `---`.
type outputLineError struct {
	Line int
	err  error
}

func (e *outputLineError) Error() string { return e.err.Error() }
func (e *outputLineError) Unwrap() error { return e.err }

// outputLine adds to err, which names a line of the document text, the
// line of out, the template's output, that is: text is a part of out (the
// split keeps the documents' bytes).
func outputLine(out, text string, err error) error {
	m := yamlLineRE.FindStringSubmatch(err.Error())
	at := strings.Index(out, text)
	if m == nil || at < 0 {
		return err
	}
	n, _ := strconv.Atoi(m[1])
	return &outputLineError{Line: strings.Count(out[:at], "\n") + n, err: err}
}

// documents yields the documents of the rendered templates files, with
// their template's path, as Helm's sort reads them: templates in path
// order, partials and blank ones left out, each split with split.
func documents(files map[string]string, split func(string) []string) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, p := range slices.Sorted(maps.Keys(files)) {
			content := files[p]
			if strings.HasPrefix(path.Base(p), "_") || strings.TrimSpace(content) == "" {
				continue
			}
			for _, text := range split(content) {
				if !yield(p, text) {
					return
				}
			}
		}
	}
}

// head is what Helm's sort reads of a document (releaseutil.SimpleHead).
type head struct {
	kind        string
	annotations map[string]string
}

// readHead reads what Helm's sort reads of a parsed document, as JSON
// decoding into releaseutil.SimpleHead would (null reads as empty); ok is
// false where that decoding could fail or read otherwise: a value of the
// wrong type, or a key that matches a field only case-insensitively (JSON
// decoding accepts "Kind" for "kind").
func readHead(m map[string]any) (h head, ok bool) {
	if !exactKeys(m, "apiVersion", "kind", "metadata") || !isString(m["apiVersion"]) || !isString(m["kind"]) {
		return h, false
	}
	h.kind, _ = m["kind"].(string)
	md, isMap := m["metadata"].(map[string]any)
	if !isMap {
		return h, m["metadata"] == nil
	}
	if !exactKeys(md, "name", "annotations") || !isString(md["name"]) {
		return h, false
	}
	switch ann := md["annotations"].(type) {
	case nil:
	case map[string]any:
		h.annotations = make(map[string]string, len(ann))
		for k, v := range ann {
			if !isString(v) {
				return h, false
			}
			h.annotations[k], _ = v.(string)
		}
	default:
		return h, false
	}
	return h, true
}

// exactKeys reports whether every key of m that JSON decoding would match
// to one of fields (case-insensitively, as bytes.EqualFold) is that field.
func exactKeys(m map[string]any, fields ...string) bool {
	for k := range m {
		for _, f := range fields {
			if k != f && strings.EqualFold(k, f) {
				return false
			}
		}
	}
	return true
}

// isString reports whether JSON decoding v into a Go string succeeds.
func isString(v any) bool {
	switch v.(type) {
	case nil, string:
		return true
	}
	return false
}

// hookEvents are the hook names Helm knows (releaseutil's events).
var hookEvents = map[string]bool{"test-success": true}

func init() {
	for _, e := range []release.HookEvent{release.HookPreInstall, release.HookPostInstall, release.HookPreDelete,
		release.HookPostDelete, release.HookPreUpgrade, release.HookPostUpgrade, release.HookPreRollback,
		release.HookPostRollback, release.HookTest} {
		hookEvents[e.String()] = true
	}
}

// knownHooks reports whether Helm knows every hook of a helm.sh/hook
// annotation.
func knownHooks(v string) bool {
	for h := range strings.SplitSeq(v, ",") {
		if !hookEvents[strings.ToLower(strings.TrimSpace(h))] {
			return false
		}
	}
	return true
}

// installOrder is each kind's place in releaseutil.InstallOrder.
var installOrder = func() map[string]int {
	m := make(map[string]int, len(releaseutil.InstallOrder))
	for i, k := range releaseutil.InstallOrder {
		m[k] = i
	}
	return m
}()

// compareKinds orders kinds as Helm's sort does: known kinds in their
// install order, then unknown ones by name.
func compareKinds(order map[string]int, a, b string) int {
	ia, aok := order[a]
	ib, bok := order[b]
	switch {
	case aok && bok:
		return ia - ib
	case aok:
		return -1
	case bok:
		return 1
	}
	return strings.Compare(a, b)
}
