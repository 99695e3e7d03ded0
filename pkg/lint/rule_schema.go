package lint

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/pkg/finding"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/schema"
)

var ruleSchema = &Rule{
	Rule: finding.Rule{
		ID: "schema",
		Summary: "An object does not match the schema of its kind: an unknown or misspelled field, a wrong type, a missing required field, a value " +
			"outside an enum, a duplicate key.",
		Remediation: "Fix the field the finding names in the chart template or the values that feed it; the path is a JSON pointer into the rendered object.",
		Severity:    SeverityError,
		Description: "Validates every rendered object, and every plain manifest in the repository, with kubeconform (as a library) in strict mode, offline. " +
			"Built-in kinds are checked against the OpenAPI schemas of the target cluster's Kubernetes version, embedded in repotool for a window " +
			"of versions (the nearest one is used outside it; see docs/schemas.md). Custom resources are checked against the CRD in the repository " +
			"that defines them, for exactly the version the object uses. Objects whose kind has no known schema are left to `stray-api-version`. " +
			"The official Kubernetes schemas carry no enums, so enum checks apply to custom resources.",
		Bad: Example{File: "namespaces/shop/templates/deployment.yaml", Content: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: "2"          # a string, not an integer
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: shop
          image: shop:1.0
          imagePullPolcy: Always   # misspelled: unknown field
`},
		Good: Example{File: "namespaces/shop/templates/deployment.yaml", Content: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: shop
          image: shop:1.0
          imagePullPolicy: Always
`},
	},
	check: func(in *input, report func(Finding)) {
		if err := checkSchemas(in.repo, in.results, in.versions, in.asked, in.at, report); err != nil {
			in.toolErr = err
		}
	},
}

// checkSchemas returns an error when repotool itself fails (a schema
// location that cannot be read), not a finding.
func checkSchemas(r *repoFacts, results []*render.Result, vs versions, a asked, at *positions, report func(Finding)) error {
	v, err := a.validator.get(func() (*schema.Validator, error) { return newSchemaValidator(r.Repo, r.CRDs, a) })
	if err != nil {
		return err
	}
	if err := validateRendered(results, v, a.renderOpts.Concurrency, at, report); err != nil {
		return err
	}
	return validateRaw(r.rawAlone(), v, vs.newest(), report)
}

// newSchemaValidator is the run's validator: the schema locations
// repotool.yaml names, and every served version of the repository's CRDs.
func newSchemaValidator(repo *layout.Repo, crds *manifest.CRDs, a asked) (*schema.Validator, error) {
	locations, remote, err := schemaLocations(repo, a.renderOpts.Offline)
	if err != nil {
		return nil, err
	}
	opts := schema.Options{Dir: a.schemaDir, ExtraLocations: locations}
	if a.renderOpts.CacheDir != "" && remote {
		opts.CacheDir = filepath.Join(a.renderOpts.CacheDir, "schemas")
	}
	v, err := schema.New(opts)
	if err != nil {
		return nil, fmt.Errorf("cannot validate schemas: %w", err)
	}
	for _, c := range crds.All() {
		for _, ver := range c.Versions {
			if ver.Served && ver.Schema != nil {
				v.AddCRD(c.Group, ver.Name, c.Kind, ver.Schema)
			}
		}
	}
	return v, nil
}

// schemaJob is a rendered object to validate for its target's Kubernetes
// version.
type schemaJob struct {
	res *render.Result
	obj *manifest.Object
	kv  *semver.Version
}

// validateRendered validates every rendered object, in parallel, and
// reports in order; an error is repotool's own failure.
func validateRendered(results []*render.Result, v *schema.Validator, workers int, at *positions, report func(Finding)) error {
	var jobs []schemaJob
	for _, res := range results {
		if res.Err != nil {
			continue
		}
		kv := parseKubeVersion(res.Capabilities.KubeVersion)
		for i := range res.Objects {
			jobs = append(jobs, schemaJob{res, &res.Objects[i], kv})
		}
	}
	checked := make([]schema.Result, len(jobs))
	eachParallel(context.Background(), workers, len(jobs), func(i int) {
		text, err := jobs[i].obj.Text()
		if err != nil {
			checked[i] = schema.Result{Status: schema.Error, Err: err, Internal: true}
			return
		}
		checked[i] = v.Validate(jobs[i].kv.Original(), text)
	})
	for i, j := range jobs {
		if checked[i].Internal {
			return fmt.Errorf("cannot validate %s %s: %w", j.obj.Kind, j.obj.Name, checked[i].Err)
		}
		reportSchemaProblems(at, j, checked[i], report)
	}
	return nil
}

// reportSchemaProblems reports a rendered object's problems at the values
// line that set the field when there is one, else at the template's.
func reportSchemaProblems(at *positions, j schemaJob, r schema.Result, report func(Finding)) {
	o := j.obj
	problems := schemaProblems(r, o.Kind, secretName(o.Namespace, o.Name))
	if len(problems) == 0 {
		return
	}
	node := at.objectNode(o)
	for _, p := range problems {
		f := Finding{Object: o.ID(), Targets: []string{j.res.Target.Name()}, File: o.Source.String(), Message: p.message}
		if node != nil {
			f.Line = lineAtPath(node, p.field)
		} else {
			f.Line = at.templateLine(o, p.field)
		}
		if file, line := valueOrigin(at, j.res, o, p.path); file != "" {
			f.File, f.Line, f.Template = file, line, o.Source.String()
			f.Message += fmt.Sprintf(" (the value comes from %s:%d)", file, line)
		}
		report(f)
	}
}

// validateRaw validates the plain manifests of the repository, which
// belong to no target, against the newest Kubernetes version any cluster
// runs (versions.newest).
func validateRaw(raw []rawObject, v *schema.Validator, newest *semver.Version, report func(Finding)) error {
	for i := range raw {
		o := &raw[i]
		if o.Encrypted || isPlainManifest(o.File) {
			continue // charts' crds/ files are checked as rendered
		}
		doc, err := yaml.Marshal(o.Node)
		if err != nil {
			continue
		}
		r := v.Validate(newest.Original(), doc)
		if r.Internal {
			return fmt.Errorf("cannot validate %s: %w", o.File, r.Err)
		}
		for _, p := range schemaProblems(r, o.Kind, secretName(o.Namespace, o.Name)) {
			report(Finding{Object: o.ID(), File: o.File, Line: lineAtPath(o.Node, p.field), Message: p.message})
		}
	}
	return nil
}

// schemaLocations returns lint.schemaLocations ready for the validator:
// folder and file locations resolved against the repository's root (not
// the working directory), URL locations left out when offline. remote
// reports whether any URL location is used.
func schemaLocations(repo *layout.Repo, offline bool) ([]string, bool, error) {
	var out []string
	remote := false
	for _, loc := range repo.Config.Lint.SchemaLocations {
		switch {
		case strings.Contains(loc, "://"):
			if offline {
				continue // --offline: nothing is downloaded
			}
			remote = true
		case filepath.IsAbs(loc):
		case repo.Root == "":
			return nil, false, fmt.Errorf("lint.schemaLocations: %q is a folder relative to the repository, which was not loaded from disk", loc)
		default:
			loc = filepath.Join(repo.Root, filepath.FromSlash(loc))
		}
		out = append(out, loc)
	}
	return out, remote, nil
}

// schemaProblem is one problem: the JSON pointer it is reported at, the
// pointer of the offending field (a level deeper for unknown fields) and
// the message.
type schemaProblem struct{ path, field, message string }

// schemaProblems turns a validation result into messages, with the JSON
// pointer of each problem.
func schemaProblems(r schema.Result, kind, name string) []schemaProblem {
	switch r.Status {
	case schema.Invalid:
		var out []schemaProblem
		for _, e := range r.Errors {
			path := cmp.Or(e.Path, "/")
			field := path
			if len(e.Unknown) > 0 {
				field = strings.TrimSuffix(path, "/") + "/" + e.Unknown[0]
			}
			out = append(out, schemaProblem{path: path, field: field, message: fmt.Sprintf("%s %s: %s: %s", kind, name, path, e.Message)})
		}
		return out
	case schema.Error:
		msg := strings.Join(strings.Fields(fmt.Sprint(r.Err)), " ")
		if k := r.DuplicateKey; k != "" {
			return []schemaProblem{{path: "/" + k, field: "/" + k, message: fmt.Sprintf("%s %s: duplicate key %q: YAML keeps only one of the values; remove the "+
				"other", kind, name, k)}}
		}
		return []schemaProblem{{path: "/", field: "/", message: fmt.Sprintf("%s %s cannot be validated: %s", kind, name, msg)}}
	}
	return nil
}
