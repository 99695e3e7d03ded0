package schema

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/yannh/kubeconform/pkg/resource"
	"github.com/yannh/kubeconform/pkg/validator"
	"sigs.k8s.io/yaml"
)

// Options configure a Validator.
type Options struct {
	// Dir is where schemas are written for kubeconform. Empty: a new
	// temporary folder, removed by Close.
	Dir string
	// ExtraLocations are kubeconform schema locations (folders, file or URL
	// templates) tried after the embedded and CRD schemas, for custom
	// resources whose CRDs are not in the repository.
	ExtraLocations []string
	// CacheDir caches schemas downloaded from URL locations (created when
	// missing). Empty: none.
	CacheDir string
}

// Status of one validation.
type Status string

// Validation outcomes.
const (
	// Valid: the object matches its schema.
	Valid Status = "valid"
	// Invalid: the object does not match; Result.Errors says where.
	Invalid Status = "invalid"
	// NoSchema: no schema is known for the object's apiVersion/kind.
	NoSchema Status = "no-schema"
	// Error: the object could not be validated (not YAML, duplicate keys).
	Error Status = "error"
)

// FieldError is one schema violation.
type FieldError struct {
	// Path is the JSON pointer of the offending field, e.g. "/spec/replicas".
	Path string
	// Message says what is wrong, never quoting a value of the object (see
	// safeMessage).
	Message string
	// Unknown are the property names, sorted, of an "additional
	// properties ... not allowed" problem: fields the schema does not know.
	Unknown []string
}

// Result of validating one object.
type Result struct {
	Status Status
	Errors []FieldError
	// Err says why an object with Status Error could not be validated.
	Err error
	// Internal is set, with Status Error, when the validator failed rather
	// than the object: a schema location that cannot be read or
	// downloaded, a cache that cannot be used. It is the tool's failure,
	// not a problem to report about the object.
	Internal bool
}

// Validator validates objects. It is safe for concurrent use.
type Validator struct {
	opts    Options
	ownDir  bool
	mu      sync.Mutex
	written map[string]bool
	crds    map[string]map[string]any // group/version/kind -> converted schema
	// defaults holds the structural schema of each custom resource whose
	// CRD gives defaults, applied before validating (see defaults.go).
	defaults map[string]map[string]any
	byMinor  map[int]validator.Validator
	// results remembers the result for each (minor, document): clusters
	// render many identical objects (CRDs, shared charts).
	results map[[sha256.Size]byte]Result
}

// New returns a Validator.
func New(opts Options) (*Validator, error) {
	v := &Validator{opts: opts, written: map[string]bool{}, crds: map[string]map[string]any{}, defaults: map[string]map[string]any{}, byMinor: map[int]validator.Validator{}, results: map[[sha256.Size]byte]Result{}}
	if v.opts.Dir == "" {
		dir, err := os.MkdirTemp("", "repotool-schemas-")
		if err != nil {
			return nil, err
		}
		v.opts.Dir, v.ownDir = dir, true
	}
	if v.opts.CacheDir != "" {
		if err := os.MkdirAll(v.opts.CacheDir, 0o755); err != nil {
			v.Close()
			return nil, fmt.Errorf("schema cache: %w", err)
		}
	}
	return v, nil
}

// Close removes the folder the Validator made.
func (v *Validator) Close() error {
	if v.ownDir {
		return os.RemoveAll(v.opts.Dir)
	}
	return nil
}

// AddCRD registers the schema of a served version of a custom resource,
// from its CRD's openAPIV3Schema.
func (v *Validator) AddCRD(group, version, kind string, openAPIV3Schema map[string]any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	gvk := group + "/" + version + "/" + kind
	v.crds[gvk] = ConvertCRD(openAPIV3Schema)
	delete(v.defaults, gvk)
	if hasDefaults(openAPIV3Schema) {
		v.defaults[gvk] = openAPIV3Schema
	}
	clear(v.results)
}

// Validate validates one object (a YAML document) against the schemas of
// Kubernetes kubeVersion (its minor, or the nearest embedded one). It may
// be called from several goroutines; an object already validated for the
// same minor version is not validated again.
func (v *Validator) Validate(kubeVersion string, doc []byte) Result {
	minor, err := MinorFor(kubeVersion)
	if err != nil {
		return Result{Status: Error, Err: err}
	}
	key := sha256.Sum256(append(binary.BigEndian.AppendUint64(nil, uint64(minor)), doc...))
	v.mu.Lock()
	r, ok := v.results[key]
	v.mu.Unlock()
	if ok {
		return r
	}
	r = v.validate(minor, doc)
	v.mu.Lock()
	v.results[key] = r
	v.mu.Unlock()
	return r
}

func (v *Validator) validate(minor int, doc []byte) Result {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return Result{Status: Error, Err: safeError(fmt.Errorf("not valid YAML: %w", err))}
	}
	// Writing schemas and making validators is serialised; validating is
	// not (kubeconform's compiled schemas are safe for concurrent use).
	v.mu.Lock()
	found, err := v.prepare(minor, head.APIVersion, head.Kind)
	var kc validator.Validator
	if err == nil && (found || len(v.opts.ExtraLocations) > 0) {
		kc, err = v.kubeconform(minor)
	}
	defaults := v.defaults[groupVersionKind(head.APIVersion, head.Kind)]
	v.mu.Unlock()
	if err != nil {
		return Result{Status: Error, Err: err, Internal: true}
	}
	if kc == nil {
		return Result{Status: NoSchema}
	}
	var set map[string]bool // pointers of defaulted values
	if defaults != nil {
		if d, s := defaulted(doc, defaults); d != nil {
			doc, set = d, s
		}
	}
	res := kc.ValidateResource(resource.Resource{Bytes: doc})
	switch res.Status {
	case validator.Valid:
		return Result{Status: Valid}
	case validator.Skipped:
		return Result{Status: NoSchema}
	case validator.Invalid:
		out := Result{Status: Invalid, Errors: leafErrors(res.Err)}
		if len(out.Errors) == 0 {
			for _, e := range res.ValidationErrors {
				out.Errors = append(out.Errors, fieldError(e.Path, e.Msg))
			}
		}
		noteDefaulted(out.Errors, set)
		slices.SortFunc(out.Errors, func(a, b FieldError) int {
			if c := strings.Compare(a.Path, b.Path); c != 0 {
				return c
			}
			return strings.Compare(a.Message, b.Message)
		})
		return out
	}
	// kubeconform's errors about the document itself; any other error
	// (a schema it could not load or download) is the validator's.
	msg := fmt.Sprint(res.Err)
	document := strings.HasPrefix(msg, "error unmarshalling resource") || strings.HasPrefix(msg, "error while parsing")
	return Result{Status: Error, Err: safeError(res.Err), Internal: !document}
}

// leafErrors extracts every leaf of the validation error tree from
// kubeconform's error text ("... - at '<path>': <message> ..."), which,
// unlike its ValidationErrors, goes below the first level: a problem inside
// one container is reported at that container, not as "containers:
// validation failed".
func leafErrors(err error) []FieldError {
	if err == nil {
		return nil
	}
	var out []FieldError
	parts := strings.Split(err.Error(), " - at '")
	for _, p := range parts[1:] {
		path, msg, ok := strings.Cut(p, "': ")
		msg = strings.TrimSpace(msg)
		if !ok || msg == "validation failed" {
			continue
		}
		out = append(out, fieldError(path, msg))
	}
	return slices.CompactFunc(out, func(a, b FieldError) bool { return a.Path == b.Path && a.Message == b.Message })
}

func fieldError(path, msg string) FieldError {
	safe, unknown := safeMessage(msg)
	return FieldError{Path: path, Message: safe, Unknown: unknown}
}

// prepare writes the schema of apiVersion/kind where kubeconform will look
// for it, once; it reports whether repotool knows a schema for it.
func (v *Validator) prepare(minor int, apiVersion, kind string) (bool, error) {
	if s, ok := v.crds[groupVersionKind(apiVersion, kind)]; ok {
		_, version, _ := strings.Cut(apiVersion, "/")
		// kubeconform's {{ .Group }} is the part before the slash.
		return true, v.write(filepath.Join("crd", strings.SplitN(apiVersion, "/", 2)[0], strings.ToLower(kind)+"_"+version+".json"), s)
	}
	e, err := Load(minor)
	if err != nil {
		return false, err
	}
	s, ok := e.Schema(apiVersion, kind)
	if !ok {
		return false, nil
	}
	return true, v.write(filepath.Join("builtin", fmt.Sprintf("v1.%d", minor), strings.ToLower(kind)+kindSuffix(apiVersion)+".json"), s)
}

// groupVersionKind is the key of a custom resource's schema: its group
// (empty for the core API), version and kind.
func groupVersionKind(apiVersion, kind string) string {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	return group + "/" + version + "/" + kind
}

// kindSuffix is kubeconform's {{ .KindSuffix }}: "-<first label of the
// group>-<version>", or "-<version>" for the core API.
func kindSuffix(apiVersion string) string {
	parts := strings.Split(apiVersion, "/")
	suffix := "-" + strings.ToLower(strings.Split(parts[0], ".")[0])
	if len(parts) > 1 {
		suffix += "-" + strings.ToLower(parts[1])
	}
	return suffix
}

func (v *Validator) write(rel string, schema map[string]any) error {
	if v.written[rel] {
		return nil
	}
	data, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	p := filepath.Join(v.opts.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	v.written[rel] = true
	return nil
}

// kubeconform returns the kubeconform validator of one minor version.
func (v *Validator) kubeconform(minor int) (validator.Validator, error) {
	if kc, ok := v.byMinor[minor]; ok {
		return kc, nil
	}
	locations := append([]string{
		filepath.Join(v.opts.Dir, "crd", "{{ .Group }}", "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"),
		filepath.Join(v.opts.Dir, "builtin", "{{ .NormalizedKubernetesVersion }}", "{{ .ResourceKind }}{{ .KindSuffix }}.json"),
	}, v.opts.ExtraLocations...)
	kc, err := validator.New(locations, validator.Opts{
		Strict:               true,
		KubernetesVersion:    fmt.Sprintf("1.%d", minor),
		IgnoreMissingSchemas: true,
		Cache:                v.opts.CacheDir,
	})
	if err != nil {
		return nil, fmt.Errorf("schema validator: %w", err)
	}
	v.byMinor[minor] = kc
	return kc, nil
}
