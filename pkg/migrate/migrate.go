// Package migrate rewrites a repository's kubernetes-external-secrets
// (KES, kubernetes-client.io/v1) ExternalSecrets as External Secrets
// Operator (external-secrets.io/v1) objects, with the SecretStores they
// read from (repotool migrate kes-to-eso).
//
// It works on files' text: each KES document (in a plain manifest, or a
// chart template that writes the object literally, with template actions
// only as values) is replaced by its ESO translation, or, side by side
// (Options.Suffix), followed by it; everything else in the file is kept
// byte for byte, comments included. SOPS-encrypted files are never read or
// written. The same input gives the same output.
package migrate

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/fsutil"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Options configure Plan.
type Options struct {
	// Settings fill the stores' backend settings (see SettingNames).
	Settings Settings
	// StoreKind is SecretStore (default: one per namespace, next to the
	// objects) or ClusterSecretStore.
	StoreKind string
	// Suffix, when set, keeps every KES object and writes its ESO
	// translation next to it, with the target Secret's name suffixed, so
	// both controllers run side by side (--target-suffix).
	Suffix string
	// Switch finishes a side-by-side migration: it removes the KES objects
	// that have an ESO translation marked with SuffixAnnotation, and the
	// suffix from the translation's target.
	Switch bool
	// ESOVersion is the External Secrets Operator the translations are for:
	// its major version ("2", "1.3.2", "v1"; default DefaultESOVersion).
	// ESO 2.0 removed the Alibaba Cloud provider: for ESO 2 and later,
	// objects that read from alicloudSecretsManager are refused.
	ESOVersion string
}

// DefaultESOVersion is the External Secrets Operator migrate writes for
// unless told otherwise: the current major version.
const DefaultESOVersion = "2"

// esoMajor reads the major version of an ESO version.
func esoMajor(v string) (int, error) {
	v = strings.TrimPrefix(cmp.Or(v, DefaultESOVersion), "v")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if err != nil || n < 0 || n > 99 {
		return 0, fmt.Errorf("ESO version %q: give its major version, such as 2 or 1.3", v)
	}
	return n, nil
}

// Item is one object the plan converts, refuses, or leaves work for.
type Item struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Name is the object's metadata.name.
	Name string `json:"name,omitempty"`
	// Detail is the store a converted object reads from, why an object
	// is refused, or what to do by hand.
	Detail string `json:"detail"`
}

// FileChange is a file the plan writes: Old is nil for a new file.
type FileChange struct {
	Path     string
	Old, New []byte
}

// Result is what Plan found and would write.
type Result struct {
	Files     []FileChange
	Converted []Item
	Switched  []Item
	Refused   []Item
	// Todo are what the user must fill in or check by hand: placeholders
	// in stores, settings KES had that ESO takes elsewhere.
	Todo []Item
	// Encrypted are SOPS-encrypted files that mention KES: never read.
	Encrypted []string
}

// StoresFile is the file, in each folder with converted objects, that
// holds the stores they read from.
const StoresFile = "kes-secretstores.yaml"

// maxFile bounds the files read (CRD bundles run to several megabytes).
const maxFile = 64 << 20

// Plan finds every KES ExternalSecret in fsys and works out the files to
// write. Nothing is written: see Result.Files, Diff and Write.
func Plan(fsys fs.FS, opts Options) (*Result, error) {
	if opts.StoreKind == "" {
		opts.StoreKind = "SecretStore"
	}
	if _, err := esoMajor(opts.ESOVersion); err != nil {
		return nil, err
	}
	if opts.StoreKind != "SecretStore" && opts.StoreKind != "ClusterSecretStore" {
		return nil, fmt.Errorf("store kind %q: use SecretStore or ClusterSecretStore", opts.StoreKind)
	}
	if err := opts.Settings.Check(); err != nil {
		return nil, err
	}
	if opts.Suffix != "" && !regexp.MustCompile(`^[-.a-z0-9]+$`).MatchString(opts.Suffix) {
		return nil, fmt.Errorf("target suffix %q: use lower-case letters, digits, '-' and '.', as Secret names take", opts.Suffix)
	}
	files, err := yamlFiles(fsys)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	stores := map[string][]store{} // by folder
	for _, p := range files {
		link := isLink(fsys, p)
		data, err := readFile(fsys, p)
		if err != nil && link {
			// A link that cannot be followed may hide a KES object: say
			// so, rather than pass it by.
			res.Refused = append(res.Refused, Item{File: p, Detail: "a link that cannot be followed (" + err.Error() + "): fix or remove it, and run migrate again"})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if !bytes.Contains(data, []byte("kubernetes-client.io")) && !(opts.Switch && bytes.Contains(data, []byte(SuffixAnnotation))) {
			continue
		}
		if link {
			// Writing here would replace the link with a file: the file it
			// points to is converted where it is, or by hand when it is
			// outside the repository.
			target, _ := fs.ReadLink(fsys, p)
			res.Refused = append(res.Refused, Item{File: p, Detail: "a link to " + target + ", which holds KES objects: migrate converts the file itself (run it where that file is, when it is outside the repository)"})
			continue
		}
		if sopsfile.IsEncrypted(data) {
			res.Encrypted = append(res.Encrypted, p)
			continue
		}
		f := &file{path: p, helm: inChartTemplates(fsys, p), lines: splitLines(string(data))}
		var used []store
		if opts.Switch {
			f.switchDocs(res)
		} else {
			used = f.convertDocs(res, opts)
		}
		if out := f.text(); out != string(data) {
			res.Files = append(res.Files, FileChange{Path: p, Old: data, New: []byte(out)})
		}
		dir := path.Dir(p)
		stores[dir] = append(stores[dir], used...)
	}
	for _, dir := range sortedKeys(stores) {
		if err := res.addStores(fsys, dir, stores[dir]); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(res.Files, func(a, b FileChange) int { return strings.Compare(a.Path, b.Path) })
	return res, nil
}

// yamlFiles lists the YAML files of fsys (and links named so), sorted,
// leaving out the folders every scan leaves out.
func yamlFiles(fsys fs.FS) ([]string, error) {
	return fsutil.Files(fsys, func(p string, d fs.DirEntry) bool {
		ext := path.Ext(p)
		return (ext == ".yaml" || ext == ".yml") && (d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0)
	})
}

// isLink reports whether p is a symbolic link.
func isLink(fsys fs.FS, p string) bool {
	info, err := fs.Lstat(fsys, p)
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}

func readFile(fsys fs.FS, p string) ([]byte, error) {
	info, err := fs.Stat(fsys, p)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxFile {
		return nil, fmt.Errorf("%d bytes: larger than the %d bytes a manifest file may have", info.Size(), maxFile)
	}
	return fs.ReadFile(fsys, p)
}

// inChartTemplates reports whether p is in the templates/ folder of a
// chart (a folder above it holds Chart.yaml).
func inChartTemplates(fsys fs.FS, p string) bool {
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if _, err := fs.Stat(fsys, path.Join(d, "Chart.yaml")); err == nil {
			return strings.HasPrefix(p, d+"/templates/")
		}
	}
	return false
}

// file is a YAML file as lines, edited document by document.
type file struct {
	path  string
	helm  bool // a chart template: template actions are values
	lines []string
	// edits replace line ranges, applied by text.
	edits []edit
}

type edit struct {
	start, end int // lines [start, end)
	text       string
}

func splitLines(s string) []string { return strings.SplitAfter(s, "\n") }

// text is the file with its edits applied.
func (f *file) text() string {
	var b strings.Builder
	at := 0
	for _, e := range f.edits {
		b.WriteString(strings.Join(f.lines[at:e.start], ""))
		b.WriteString(e.text)
		at = e.end
	}
	b.WriteString(strings.Join(f.lines[at:], ""))
	return b.String()
}

// docs are the file's documents as line ranges, separators excluded.
func (f *file) docs() [][2]int {
	var out [][2]int
	start := 0
	for i, l := range f.lines {
		if isSeparator(l) {
			out = append(out, [2]int{start, i})
			start = i + 1
		}
	}
	return append(out, [2]int{start, len(f.lines)})
}

func isSeparator(l string) bool {
	l = strings.TrimRight(l, "\r\n")
	return l == "---" || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "---\t")
}

// parsed is a document read for conversion.
type parsed struct {
	node   *yaml.Node // the document's mapping
	tokens *tokens    // template actions replaced, in a chart template
}

// helmAction matches a template action.
var helmAction = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// controlAction matches actions that shape the text instead of giving a
// value: control structures, comments, and blocks of YAML (toYaml,
// indent, nindent).
var controlAction = regexp.MustCompile(`^\{\{-?\s*(if|else|end|range|with|define|block|template|break|continue|/\*)\b|\b(toYaml|indent|nindent)\b`)

// tokens maps the stand-ins for template actions back to them.
type tokens struct{ actions []string }

func tokenFor(i int) string { return fmt.Sprintf("repotoolTplAction%04dZ", i) }

func (t *tokens) restore(s string) string {
	if t == nil {
		return s
	}
	for i := len(t.actions) - 1; i >= 0; i-- {
		s = strings.ReplaceAll(s, tokenFor(i), t.actions[i])
	}
	return s
}

// parse reads the document in lines [start, end). A chart template's
// actions must be values: they are replaced by tokens (restored when the
// document is written back), and an action that shapes the text refuses
// the document.
func (f *file) parse(start, end int) (*parsed, error) {
	text := strings.Join(f.lines[start:end], "")
	pd := &parsed{}
	if f.helm {
		pd.tokens = &tokens{}
		var bad string
		text = helmAction.ReplaceAllStringFunc(text, func(a string) string {
			if controlAction.MatchString(a) && bad == "" {
				bad = a
			}
			pd.tokens.actions = append(pd.tokens.actions, a)
			return tokenFor(len(pd.tokens.actions) - 1)
		})
		if bad != "" {
			return nil, &refusal{line: lineOf(f.lines[start:end], bad) + start, reason: "the object is built with template logic (" + bad + "), not written literally: convert it by hand"}
		}
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		if pd.tokens != nil {
			return nil, &refusal{line: start + 1, reason: "with its template actions taken as values, the document is not YAML (" + err.Error() + "): convert it by hand"}
		}
		return nil, &refusal{line: start + 1, reason: "not valid YAML: " + err.Error()}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	pd.node = root.Content[0]
	if pd.tokens != nil {
		if k := tokenKey(pd.node); k != nil {
			return nil, &refusal{line: start + k.Line, reason: "a key is made by a template action: convert it by hand"}
		}
	}
	return pd, nil
}

// tokenKey finds a mapping key holding a token.
func tokenKey(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if strings.Contains(n.Content[i].Value, "repotoolTplAction") {
				return n.Content[i]
			}
		}
	}
	for _, c := range n.Content {
		if k := tokenKey(c); k != nil {
			return k
		}
	}
	return nil
}

func lineOf(lines []string, s string) int {
	first := s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		first = s[:i]
	}
	for i, l := range lines {
		if strings.Contains(l, first) {
			return i + 1
		}
	}
	return 1
}

// encode writes a document's mapping as YAML, its tokens restored.
func encode(n *yaml.Node, t *tokens) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	_ = enc.Encode(n) // nodes built here always encode
	_ = enc.Close()
	return t.restore(b.String())
}

// doc is one document of a file: its lines [start, end), and, when it was
// read, its parse or why it could not be parsed.
type doc struct {
	start, end int
	pd         *parsed
	err        error
}

func (d doc) text(f *file) string { return strings.Join(f.lines[d.start:d.end], "") }

// parseDocs splits the file into documents and parses, once, those whose
// text read accepts.
func (f *file) parseDocs(read func(text string) bool) []doc {
	var out []doc
	for _, r := range f.docs() {
		d := doc{start: r[0], end: r[1]}
		if read(d.text(f)) {
			d.pd, d.err = f.parse(d.start, d.end)
		}
		out = append(out, d)
	}
	return out
}

// id is the object's namespace and name, template actions restored.
func (pd *parsed) id() string {
	md := get(pd.node, "metadata")
	return pd.tokens.restore(scalar(get(md, "namespace")) + "/" + scalar(get(md, "name")))
}

// convertDocs converts the file's KES documents, and returns the stores
// they use.
func (f *file) convertDocs(res *Result, opts Options) []store {
	major, _ := esoMajor(opts.ESOVersion) // checked by Plan
	var used []store
	docs := f.parseDocs(func(text string) bool {
		return strings.Contains(text, "kubernetes-client.io") || opts.Suffix != "" && strings.Contains(text, SuffixAnnotation)
	})
	// Side by side, a KES object whose translation is already next to it
	// (an earlier --target-suffix run) is done.
	translated := map[string]bool{}
	for _, d := range docs {
		if d.pd != nil && opts.Suffix != "" && get(get(get(d.pd.node, "metadata"), "annotations"), SuffixAnnotation) != nil {
			translated[d.pd.id()] = true
		}
	}
	for _, d := range docs {
		if !strings.Contains(d.text(f), "kubernetes-client.io") {
			continue
		}
		pd, err := d.pd, d.err
		var r *refusal
		if errors.As(err, &r) {
			res.Refused = append(res.Refused, Item{File: f.path, Line: r.line, Detail: r.reason})
			continue
		}
		if pd == nil || !isKES(pd.node) || translated[pd.id()] {
			continue
		}
		name := pd.tokens.restore(scalar(get(get(pd.node, "metadata"), "name")))
		o, err := parseKES(pd.node)
		var c *converted
		if err == nil {
			c, err = convert(o, convertOptions{settings: opts.Settings, storeKind: opts.StoreKind, suffix: opts.Suffix, esoMajor: major, helm: f.helm, tokens: pd.tokens})
		}
		if errors.As(err, &r) {
			res.Refused = append(res.Refused, Item{File: f.path, Line: d.start + max(r.line, 1), Name: name, Detail: pd.tokens.restore(r.reason)})
			continue
		}
		if err != nil {
			res.Refused = append(res.Refused, Item{File: f.path, Line: d.start + 1, Name: name, Detail: err.Error()})
			continue
		}
		c.store.tokens = pd.tokens
		used = append(used, c.store)
		res.Converted = append(res.Converted, Item{File: f.path, Line: d.start + pd.node.Line, Name: name, Detail: c.store.kind + " " + c.store.name})
		for _, t := range c.todo {
			res.Todo = append(res.Todo, Item{File: f.path, Line: d.start + pd.node.Line, Name: name, Detail: pd.tokens.restore(t)})
		}
		text := encode(c.object, pd.tokens)
		if opts.Suffix != "" {
			// Side by side: the KES object stays, the translation follows.
			orig := strings.Join(f.lines[d.start:d.end], "")
			if !strings.HasSuffix(orig, "\n") {
				orig += "\n"
			}
			text = orig + "---\n" + text
		} else {
			text = keepLeadingComments(f.lines[d.start:d.end]) + text + keepTrailingBlank(f.lines[d.start:d.end])
		}
		f.edits = append(f.edits, edit{start: d.start, end: d.end, text: text})
	}
	return used
}

// keepLeadingComments are the comment and blank lines a document starts
// with: they describe the object, and stay above its translation.
func keepLeadingComments(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// keepTrailingBlank are the blank lines a document ends with, kept
// before the next separator.
func keepTrailingBlank(lines []string) string {
	n := 0
	for i := len(lines) - 1; i >= 0 && strings.TrimSpace(lines[i]) == ""; i-- {
		n++
	}
	if n == len(lines) {
		return ""
	}
	return strings.Join(lines[len(lines)-n:], "")
}

// switchDocs finishes side-by-side migrations in the file: ESO objects
// marked with SuffixAnnotation lose the mark and the suffix, and the KES
// objects of the same name and namespace are removed.
func (f *file) switchDocs(res *Result) {
	docs := f.parseDocs(func(string) bool { return true })
	switched := map[string]bool{}
	for _, d := range docs {
		var r *refusal
		if errors.As(d.err, &r) {
			if strings.Contains(d.text(f), SuffixAnnotation) {
				res.Refused = append(res.Refused, Item{File: f.path, Line: r.line, Detail: r.reason})
			}
			continue
		}
		pd := d.pd
		if pd == nil {
			continue
		}
		md := get(pd.node, "metadata")
		ann := get(md, "annotations")
		suffix := get(ann, SuffixAnnotation)
		if scalar(get(pd.node, "apiVersion")) != "external-secrets.io/v1" || suffix == nil {
			continue
		}
		target := get(get(pd.node, "spec"), "target")
		if tn := get(target, "name"); tn != nil {
			tn.Value = strings.TrimSuffix(tn.Value, suffix.Value)
		}
		removeKey(ann, SuffixAnnotation)
		if len(ann.Content) == 0 {
			removeKey(md, "annotations")
		}
		switched[pd.id()] = true
		res.Switched = append(res.Switched, Item{File: f.path, Line: d.start + pd.node.Line, Name: pd.tokens.restore(scalar(get(md, "name"))), Detail: "target " + pd.tokens.restore(scalar(get(target, "name")))})
		lines := f.lines[d.start:d.end]
		f.edits = append(f.edits, edit{start: d.start, end: d.end, text: keepLeadingComments(lines) + encode(pd.node, pd.tokens) + keepTrailingBlank(lines)})
	}
	for _, d := range docs {
		if d.pd == nil || !isKES(d.pd.node) || !switched[d.pd.id()] {
			continue
		}
		// Remove the document and the separator after it (before it, for
		// the last one). The comments above it stay, above what follows:
		// its translation, side by side.
		start, end := d.start, d.end
		switch {
		case end < len(f.lines):
			end++
		case start > 0:
			start--
		}
		f.edits = append(f.edits, edit{start: start, end: end, text: keepLeadingComments(f.lines[d.start:d.end])})
	}
	slices.SortFunc(f.edits, func(a, b edit) int { return a.start - b.start })
}

func removeKey(m *yaml.Node, key string) {
	if m == nil {
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = slices.Delete(m.Content, i, i+2)
			return
		}
	}
}

// addStores adds the stores a folder's objects use to its StoresFile,
// keeping the stores already there (filled-in placeholders included) and
// appending the missing ones, sorted.
func (res *Result) addStores(fsys fs.FS, dir string, used []store) error {
	if len(used) == 0 {
		return nil
	}
	p := path.Join(dir, StoresFile)
	old, err := readFile(fsys, p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", p, err)
	}
	have := map[string]bool{}
	if old != nil {
		f := &file{path: p, lines: splitLines(string(old))}
		for _, d := range f.docs() {
			var root yaml.Node
			if err := yaml.Unmarshal([]byte(strings.Join(f.lines[d[0]:d[1]], "")), &root); err != nil {
				return fmt.Errorf("%s:%d: %w", p, d[0]+1, err)
			}
			if len(root.Content) == 0 {
				continue
			}
			md := get(root.Content[0], "metadata")
			have[scalar(get(root.Content[0], "kind"))+"/"+scalar(get(md, "namespace"))+"/"+scalar(get(md, "name"))] = true
		}
	}
	byKey := map[string]store{}
	for _, st := range used {
		byKey[st.tokens.restore(st.key())] = st
	}
	var b strings.Builder
	b.Write(old)
	if len(old) == 0 {
		b.WriteString("# Stores for the ExternalSecrets repotool migrate kes-to-eso converted from\n# kubernetes-external-secrets. Fill in the placeholders the report lists\n# (see docs/migrate.md).\n")
	}
	for _, k := range sortedKeys(byKey) {
		if have[k] {
			continue
		}
		st := byKey[k]
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString("---\n")
		b.WriteString(encode(st.object(), st.tokens))
		for _, t := range st.todo {
			res.Todo = append(res.Todo, Item{File: p, Name: st.name, Detail: st.tokens.restore(t)})
		}
	}
	if b.String() != string(old) {
		res.Files = append(res.Files, FileChange{Path: p, Old: old, New: []byte(b.String())})
	}
	return nil
}

// Write writes the plan's files under root, each atomically (a file is
// either all old or all new, never half written).
func (r *Result) Write(root string) error {
	for _, f := range r.Files {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(path.Dir(f.Path))), 0o755); err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(filepath.Join(root, filepath.FromSlash(f.Path)), f.New); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	return nil
}

// WriteReport writes what the plan converts, switches, refuses and leaves
// to do by hand, one item a line, and what it wrote (written) or would
// write.
func (r *Result) WriteReport(w io.Writer, written bool) error {
	var b strings.Builder
	section := func(title string, items []Item) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(items))
		for _, it := range items {
			loc := it.File
			if it.Line > 0 {
				loc = fmt.Sprintf("%s:%d", it.File, it.Line)
			}
			if it.Name != "" {
				loc += " " + it.Name
			}
			fmt.Fprintf(&b, "  %s: %s\n", loc, it.Detail)
		}
	}
	section("converted", r.Converted)
	section("switched", r.Switched)
	section("refused", r.Refused)
	section("to do by hand", r.Todo)
	if len(r.Encrypted) > 0 {
		fmt.Fprintf(&b, "SOPS-encrypted files, not read: %s\n", strings.Join(r.Encrypted, ", "))
	}
	switch {
	case len(r.Files) == 0:
		b.WriteString("nothing to change\n")
	case written:
		fmt.Fprintf(&b, "wrote %d file(s)\n", len(r.Files))
	default:
		fmt.Fprintf(&b, "dry run: %d file(s) would change; --write writes them\n", len(r.Files))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lines splits text for a diff: none for an empty file.
func lines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	return difflib.SplitLines(string(text))
}

// Diff is a unified diff of every file the plan writes, sorted by path.
func (r *Result) Diff() string {
	var b strings.Builder
	for _, f := range r.Files {
		from := "a/" + f.Path
		if f.Old == nil {
			from = "/dev/null"
		}
		d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
			A: lines(f.Old), B: lines(f.New),
			FromFile: from, ToFile: "b/" + f.Path, Context: 3,
		})
		b.WriteString(d)
	}
	return b.String()
}
