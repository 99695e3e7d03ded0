package lint

import (
	"bytes"
	"cmp"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/admission"
	"github.com/repotool/repotool/pkg/config"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Lint's rules each read a few facts, not the whole run: a rule's check in
// the registry hands its function what it reads, and the function's
// parameters say what that is. The facts are
//   - repoFacts: the repository and what its files hold (plain manifests,
//     CRDs, .sops.yaml), read once;
//   - the renderings ([]*render.Result), with objects: what the rules
//     keep of the objects whose parsed content the run let go;
//   - positions: where rendered objects and values are;
//   - clusterView: one cluster as the cross-object rules see it;
//   - what the run was asked (asked).

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

// asked is what the run was asked, beyond the repository.
type asked struct {
	renderOpts render.Options
	schemaDir  string
	keys       sopsfile.KeyPolicy
	celBudget  int64
	// evidence renders again for the rules that decide by rendering.
	evidence *evidence
	// sharded: the run is one shard; values-unused leaves its judgment
	// to the merge (unused).
	sharded bool
	// validator is the run's schema validator, made once: the parts of a
	// run checked a cluster at a time share it (every cluster is checked
	// with the same CRDs).
	validator *sharedValidator
}

// input is a run's facts, and what the rules share while they run.
// buildInput fills it whole; the registry hands each rule its part.
type input struct {
	repo *repoFacts
	// results holds one rendering per target, in target order. A target
	// that failed has Err set (and the render rule reports it).
	results []*render.Result
	// objects are the facts of the rendered objects whose parsed
	// content the run let go (objects.go); nil from Check.
	objects  *objects
	at       *positions
	versions versions
	asked

	sup                 *suppressor
	suppressionFindings []Finding
	// views are the clusters as the cross-object rules see them (see
	// clusterViews), computed once.
	views []*clusterView
	// admission is what the admission rules found, computed once (see
	// admitted), with what the parts of the run share (admissionRun).
	admission    *admissionOutcome
	admissionRun *admissionRun
	// unused is values-unused's judgment, kept for the merge in a sharded
	// run.
	unused *unusedScan
	// toolErr is a failure of repotool itself during a check (a schema
	// location that cannot be read): Lint returns it instead of findings.
	toolErr error
}

// rawObject is a Kubernetes manifest found in a repository file: an
// object whose Source is the file, whose Line is its document's first line
// there and whose Node is its top-level mapping.
type rawObject struct {
	manifest.Object
	// Encrypted is true when the file is SOPS-encrypted.
	Encrypted bool
}

// CRD is a CustomResourceDefinition the repository installs.
type CRD = manifest.CRD

// CRDVersion is one version a CRD defines.
type CRDVersion = manifest.CRDVersion

// file returns a repository file from the run's shared file index (read
// and parsed at most once, by whichever stage asks first).
func (r *repoFacts) file(p string) *layout.File { return r.files.Get(p) }

// isPlainManifest reports whether a chart file is used without templating.
func isPlainManifest(p string) bool {
	return strings.Contains("/"+p, "/crds/")
}

func str(n *yaml.Node, keys ...string) string {
	v, _ := yamlpos.Lookup(n, keys...)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// buildInput assembles the rules' input for a run with opts; facts and ev
// are Lint's (nil from Check).
func buildInput(repo *layout.Repo, results []*render.Result, opts Options, objs *objects, ev *evidence) *input {
	var sh *shared
	if ev != nil {
		sh = ev.shared
	}
	if sh == nil {
		sh = readRepo(repo)
	}
	at := sh.positions(repo, opts)
	r := new(repoFacts)
	*r = *sh.repo // the CRDs are this run's
	r.others = opts.Shard.N > 1 && !opts.Shard.First()
	crdFrom := results
	if ev != nil && len(ev.crdSources) > 0 {
		// A part's (a shard's, a cluster's): the other parts' CRDs, in
		// the repository's target order with its own, so that where two
		// targets render a CRD of one name, the one that wins is the one
		// a whole run takes, in every part.
		crdFrom = inTargetOrder(repo, slices.Concat(results, ev.crdSources))
	}
	r.collectCRDs(crdFrom, at)
	in := &input{repo: r, results: results, objects: objs, at: at, asked: asked{renderOpts: opts.Render, schemaDir: opts.SchemaDir, sharded: opts.Shard.N > 1,
		evidence: ev, keys: opts.Keys, celBudget: cmp.Or(opts.CELBudget, admission.RunBudget), validator: sh.validator},
		versions: versions{repo: repo, override: opts.Render.KubeVersion}}
	in.sup, in.suppressionFindings, in.admissionRun = sh.sup, sh.supFindings, sh.admission
	return in
}

// forgetEvery is how many files a scan (repoFacts.scan) reads between two
// lettings go of the file index's idle entries.
const forgetEvery = 16384

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

// manifestExts are the endings of files that may hold Kubernetes manifests:
// what kubectl apply reads.
var manifestExts = []string{".yaml", ".yml", ".json"}

// scannedExts are the endings of every file lint's scans read: manifests,
// and the files suppression comments may stand in.
var scannedExts = append(slices.Clone(manifestExts), ".tpl", ".txt")

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
		data, err := r.file(p).Data()
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
		f := r.file(p)
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
	docs, err := r.file(sopsfile.ConfigFile).Docs()
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
