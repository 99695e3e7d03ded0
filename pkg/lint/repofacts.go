package lint

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"slices"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// repoFacts is the repository and what its files hold, read once.
type repoFacts struct {
	Repo *layout.Repo
	// Raw are Kubernetes manifests in repository files that are not chart
	// templates (plain manifests, charts' crds/ files), in file order.
	Raw []rawObject
	// CRDs are every CRD the repository installs, from raw files and
	// renderings, one per name.
	CRDs *manifest.CRDs
	// Sops is the repository's .sops.yaml, nil when there is none;
	// sopsErr why it cannot be read.
	Sops    *sopsfile.CreationRules
	sopsErr error
	files   *layout.Files
	// unread are the files lint's scans could not read (not regular
	// files, over the file index's limit, links that lead nowhere), by
	// path: the layout rule reports them, the scans pass them by.
	unread map[string]error
	// suppressing are the files, in path order, that readScanned found
	// a suppression comment's token in.
	suppressing []string
	// others: the run is a part (a shard, a cluster) whose findings about
	// no target another part reports (keepTargets), so the checks of the
	// repository's files on their own are left to that part (rawAlone,
	// fileChecks).
	others bool
}

// rawAlone are the plain manifests to check on their own (not as what
// rendered objects refer to): none in a part that leaves them to another.
func (r *repoFacts) rawAlone() []rawObject {
	if r.others {
		return nil
	}
	return r.Raw
}

// fileChecks reports whether this part checks the repository's files on
// their own (their encryption, their keys).
func (r *repoFacts) fileChecks() bool { return !r.others }

// rawObject is a Kubernetes manifest found in a repository file: an
// object whose Source is the file, whose Line is its document's first line
// there and whose Node is its top-level mapping.
type rawObject struct {
	manifest.Object
	// Encrypted is true when the file is SOPS-encrypted.
	Encrypted bool
}

// repoFile returns a repository file from the run's shared file index (read
// and parsed at most once, by whichever stage asks first).
func (r *repoFacts) repoFile(p string) *layout.File { return r.files.Get(p) }

// scan calls fn with each of the repository's files ending in one of
// exts, in lexical order, but those the scans could not read (unread).
// A scan reads every such file, so it lets go of the file index's idle
// entries (layout.Files.Forget) every forgetEvery files and once done:
// the entries it made take some 150 bytes a file, a hundred thousand
// files in a large repository, and a file's facts stay all the same.
func (r *repoFacts) scan(exts []string, fn func(p string)) {
	n := 0
	for p := range r.files.Paths() {
		if _, skip := r.unread[p]; skip || !slices.Contains(exts, path.Ext(p)) {
			continue
		}
		fn(p)
		if n++; n%forgetEvery == 0 {
			r.files.Forget()
		}
	}
	r.files.Forget()
}

// inChartTemplates reports whether p is inside a chart's templates/ folder.
func (r *repoFacts) inChartTemplates(p string) bool {
	for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if path.Base(dir) == "templates" {
			if _, err := fs.Stat(r.Repo.FS, path.Join(path.Dir(dir), "Chart.yaml")); err == nil {
				return true
			}
		}
	}
	return false
}

// readScanned reads every file the scans will read, once, and keeps those
// it could not read in unread; a values file the layout found too large
// is not read again (it would cost lint ten times its size to parse). It
// notes the files a suppression comment may stand in that hold the
// token (suppressing), so that loadSuppressions reads those, not every
// file again.
func (r *repoFacts) readScanned() {
	r.unread, r.suppressing = map[string]error{}, nil
	for _, d := range r.Repo.Diagnostics {
		if d.Code == layout.CodeTooLarge {
			r.unread[d.File] = errors.New(d.Message)
		}
	}
	r.scan(scannedExts, func(p string) {
		data, err := r.repoFile(p).Data()
		switch {
		case err != nil:
			r.unread[p] = err
		case slices.Contains(suppressionExts, path.Ext(p)) && bytes.Contains(data, []byte(SuppressionToken)):
			r.suppressing = append(r.suppressing, p)
		}
	})
}

// scanRaw finds Kubernetes manifests in repository files that are neither
// chart templates nor values or configuration files.
func (r *repoFacts) scanRaw() {
	skip := map[string]bool{}
	for _, ns := range r.Repo.Namespaces {
		for _, v := range ns.Values {
			skip[v.Path] = true
		}
	}
	for _, t := range r.Repo.Targets {
		for _, v := range t.Values {
			skip[v.Path] = true
		}
	}
	r.scan(manifestExts, func(p string) {
		switch path.Base(p) {
		case "Chart.yaml", "Chart.lock", "values.yaml", "values.yml", "values.schema.json", config.FileName,
			sopsfile.ConfigFile, ".pre-commit-config.yaml", ".pre-commit-hooks.yaml", "action.yml", "action.yaml":
			return
		}
		if skip[p] || r.inChartTemplates(p) {
			return
		}
		f := r.repoFile(p)
		docs, _ := f.Docs()
		encrypted := f.Encrypted()
		for _, doc := range docs {
			apiVersion, kind := str(doc, "apiVersion"), str(doc, "kind")
			if apiVersion == "" || kind == "" {
				continue
			}
			r.Raw = append(r.Raw, rawObject{Object: manifest.Object{
				Source: manifest.Source{File: p}, Line: doc.Line, Column: doc.Column, APIVersion: apiVersion, Kind: kind,
				Name: str(doc, "metadata", "name"), Namespace: str(doc, "metadata", "namespace"),
				Node: doc,
			}, Encrypted: encrypted})
		}
	})
}

func (r *repoFacts) loadSops() {
	docs, err := r.repoFile(sopsfile.ConfigFile).Docs()
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		r.sopsErr = err
		return
	}
	var root *yaml.Node
	if len(docs) > 0 {
		root = docs[0]
	}
	r.Sops, r.sopsErr = sopsfile.ParseCreationRules(root)
}

// collectCRDs gathers every CRD from raw files and renderings.
func (r *repoFacts) collectCRDs(results []*render.Result, at *positions) {
	var crds []*CRD
	for i := range r.Raw {
		o := &r.Raw[i]
		if manifest.IsCRD(o.APIVersion, o.Kind) {
			crds = append(crds, manifest.CRDFromNode(o.Node, o.Source))
		}
	}
	for _, res := range results {
		for i := range res.Objects {
			o := &res.Objects[i]
			if !manifest.IsCRD(o.APIVersion, o.Kind) {
				continue
			}
			if n := at.objectNode(o); n != nil {
				crds = append(crds, manifest.CRDFromNode(n, o.Source))
				continue
			}
			var n yaml.Node
			if err := yaml.Unmarshal(textOf(o), &n); err == nil {
				// A templated CRD: find the names in the template source.
				c := manifest.CRDFromNode(yamlpos.Root(&n), o.Source)
				c.Line = at.lineOf(o.File, "names:")
				c.PluralLine = at.lineOf(o.File, "plural: "+c.Plural)
				c.SingularLine = at.lineOf(o.File, "singular: "+c.Singular)
				for _, s := range c.ShortNames {
					c.ShortNameLines[s] = at.lineOf(o.File, "shortNames:")
				}
				crds = append(crds, c)
			}
		}
	}
	r.CRDs = manifest.NewCRDs(crds...)
}

// CRD is a CustomResourceDefinition the repository installs.
type CRD = manifest.CRD

// CRDVersion is one version a CRD defines.
type CRDVersion = manifest.CRDVersion

// forgetEvery is how many files a scan (repoFacts.scan) reads between two
// lettings go of the file index's idle entries.
const forgetEvery = 16384

// manifestExts are the endings of files that may hold Kubernetes manifests:
// what kubectl apply reads.
var manifestExts = []string{".yaml", ".yml", ".json"}

// scannedExts are the endings of every file lint's scans read: manifests,
// and the files suppression comments may stand in.
var scannedExts = append(slices.Clone(manifestExts), ".tpl", ".txt")
