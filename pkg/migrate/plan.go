package migrate

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
			res.Refused = append(res.Refused, Item{File: p, Detail: "a link to " + target + ", which holds KES objects: migrate converts the file itself (run " +
				"it where that file is, when it is outside the repository)"})
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
	return fsutil.ReadFile(fsys, p, maxFile)
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
		b.WriteString("# Stores for the ExternalSecrets repotool migrate kes-to-eso converted from\n# kubernetes-external-secrets. Fill in the placeholders " +
			"the report lists\n# (see docs/migrate.md).\n")
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
