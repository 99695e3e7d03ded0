package schema

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/yannh/kubeconform/pkg/cache"
	"github.com/yannh/kubeconform/pkg/loader"
	"github.com/yannh/kubeconform/pkg/registry"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/manifest"
)

// Options configure a Validator.
type Options struct {
	// Dir, when set, receives every schema the Validator uses, in
	// kubeconform's layout, for running the kubeconform CLI with exactly
	// the same schemas (scripts/bench-schema.sh). Validation itself never
	// touches the disk.
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

// FieldError is one schema violation, built from the validator's error
// structure (never from its message text).
type FieldError struct {
	// Path is the JSON pointer of the offending field, e.g. "/spec/replicas".
	Path string
	// Keyword is the schema keyword that failed: "type", "required",
	// "additionalProperties", "enum", "pattern", "oneOf", ...
	Keyword string
	// Message says what is wrong, never quoting a value of the object (see
	// message.go).
	Message string
	// Unknown are the property names, sorted, of an "additional
	// properties ... not allowed" problem: fields the schema does not know.
	Unknown []string
	// Missing are the required property names, sorted, that are absent.
	Missing []string
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
	// DuplicateKey is the key written twice in one mapping, when that is
	// why the object could not be validated (Status Error).
	DuplicateKey string
}

// Validator validates objects with JSON schemas compiled once, in memory:
// the embedded Kubernetes schemas, the CRDs given to AddCRD and, through
// kubeconform's registries, the extra locations. It is safe for concurrent
// use.
type Validator struct {
	opts Options
	mu   sync.Mutex
	crds map[string]map[string]any // group/version/kind -> converted schema
	// defaults holds the structural schema of each custom resource whose
	// CRD gives defaults, applied before validating (see defaults.go).
	defaults map[string]map[string]any
	// compiled holds every schema looked up, by source and key; nil when
	// there is none.
	compiled map[string]*jsonschema.Schema
	written  map[string]bool
	regs     []registry.Registry
	loader   jsonschema.SchemeURLLoader
	// results remembers the result for each (minor, document): clusters
	// render many identical objects (CRDs, shared charts). The documents
	// that are valid or have no schema (most: a large repository's tens of
	// thousands) are remembered by their key alone, in clean (true:
	// Valid), at some 40 bytes each instead of a Result's 120.
	results map[[sha256.Size]byte]Result
	clean   map[[sha256.Size]byte]bool
	large   sync.Mutex // held while a large document is validated
}

// New returns a Validator.
func New(opts Options) (*Validator, error) {
	v := &Validator{opts: opts, crds: map[string]map[string]any{}, defaults: map[string]map[string]any{},
		compiled: map[string]*jsonschema.Schema{}, written: map[string]bool{}, results: map[[sha256.Size]byte]Result{},
		clean: map[[sha256.Size]byte]bool{}}
	if len(opts.ExtraLocations) == 0 {
		return v, nil
	}
	var diskCache cache.Cache
	if opts.CacheDir != "" {
		if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
			return nil, fmt.Errorf("schema cache: %w", err)
		}
		diskCache = cache.NewOnDiskCache(opts.CacheDir)
	}
	for _, loc := range opts.ExtraLocations {
		reg, err := registry.New(loc, opts.CacheDir, true, false, false)
		if err != nil {
			return nil, fmt.Errorf("schema location %s: %w", loc, err)
		}
		v.regs = append(v.regs, reg)
	}
	httpLoader, err := loader.NewHTTPURLLoader(false, diskCache)
	if err != nil {
		return nil, fmt.Errorf("schema validator: %w", err)
	}
	v.loader = jsonschema.SchemeURLLoader{"file": jsonschema.FileLoader{}, "http": httpLoader, "https": httpLoader}
	return v, nil
}

// Close releases the Validator. Validation keeps nothing on disk; it is
// kept for callers that defer it.
func (v *Validator) Close() error { return nil }

// AddCRD registers the schema of a served version of a custom resource,
// from its CRD's openAPIV3Schema.
func (v *Validator) AddCRD(group, version, kind string, openAPIV3Schema map[string]any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	gvk := group + "/" + version + "/" + kind
	v.crds[gvk] = ConvertCRD(openAPIV3Schema)
	delete(v.compiled, "crd:"+gvk)
	delete(v.defaults, gvk)
	if hasDefaults(openAPIV3Schema) {
		v.defaults[gvk] = openAPIV3Schema
	}
	clear(v.results)
	clear(v.clean)
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
	key := resultKey(minor, doc)
	if r, ok := v.remembered(key); ok {
		return r
	}
	if len(doc) > largeDocument {
		v.large.Lock()
		defer v.large.Unlock()
	}
	r := v.validate(minor, doc)
	v.mu.Lock()
	defer v.mu.Unlock()
	if bare := r.Errors == nil && r.Err == nil && !r.Internal && r.DuplicateKey == ""; bare && (r.Status == Valid || r.Status == NoSchema) {
		v.clean[key] = r.Status == Valid
	} else {
		v.results[key] = r
	}
	return r
}

// remembered is the result Validate remembers for key.
func (v *Validator) remembered(key [sha256.Size]byte) (Result, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if valid, ok := v.clean[key]; ok {
		if valid {
			return Result{Status: Valid}, true
		}
		return Result{Status: NoSchema}, true
	}
	r, ok := v.results[key]
	return r, ok
}

// resultKey is what Validate remembers a result by: the SHA-256 of minor
// and doc (written in turn, not copied together: a cluster's documents are
// mostly found there, and a copy of each would cost its size).
func resultKey(minor int, doc []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(minor)))
	h.Write(doc)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// largeDocument is the size over which Validate validates one document
// at a time: a document's validation allocates some twenty times its
// size while it runs (the strict parse's YAML nodes, the object decoded
// from them, the validator's walk: 16 MB for ESO's 673 KiB
// ClusterSecretStore CRD when the parse went through JSON too), and two
// at once, in the middle of a run, raise its peak.
const largeDocument = 64 << 10

func (v *Validator) validate(minor int, doc []byte) Result {
	// One strict parse, as kubeconform reads a document (duplicate keys
	// are errors), without its round trip through JSON
	// (manifest.DecodeStrict: the same result, a fraction of the
	// allocation); the lenient one only to tell the kind of a document
	// the strict one refuses.
	obj, strictErr := manifest.DecodeStrict(doc)
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if strictErr == nil {
		head.APIVersion, _ = obj["apiVersion"].(string)
		head.Kind, _ = obj["kind"].(string)
	} else if err := yaml.Unmarshal(doc, &head); err != nil {
		return Result{Status: Error, Err: safeError(fmt.Errorf("not valid YAML: %w", err))}
	}
	gvk := groupVersionKind(head.APIVersion, head.Kind)
	sch, err := v.ownSchema(minor, head.APIVersion, head.Kind)
	if err != nil {
		return Result{Status: Error, Err: err, Internal: true}
	}
	if sch == nil && len(v.regs) == 0 {
		return Result{Status: NoSchema}
	}
	if strictErr != nil {
		r := Result{Status: Error, Err: safeError(fmt.Errorf("error unmarshalling resource: %s", strictErr))}
		if m := duplicateKeyRE.FindStringSubmatch(strictErr.Error()); m != nil {
			r.DuplicateKey = m[1]
		}
		return r
	}
	if obj == nil {
		return Result{Status: NoSchema} // an empty document: nothing to check
	}
	if sch == nil {
		if sch, err = v.extraSchema(minor, head.APIVersion, head.Kind); err != nil {
			return Result{Status: Error, Err: err, Internal: true}
		}
		if sch == nil {
			return Result{Status: NoSchema}
		}
	}
	v.mu.Lock()
	defaults := v.defaults[gvk]
	v.mu.Unlock()
	var set map[string]bool // pointers of defaulted values
	if defaults != nil {
		set = map[string]bool{}
		applyDefaults(any(obj), defaults, "", set)
	}
	err = sch.Validate(any(obj))
	if err == nil {
		return Result{Status: Valid}
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Result{Status: Error, Err: safeError(err), Internal: true}
	}
	out := Result{Status: Invalid, Errors: slices.CompactFunc(fieldErrors(ve), func(a, b FieldError) bool { return a.Path == b.Path && a.Message == b.Message })}
	noteDefaulted(out.Errors, set)
	slices.SortFunc(out.Errors, func(a, b FieldError) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return out
}

// duplicateKeyRE finds the key in the YAML parser's duplicate-key error.
var duplicateKeyRE = regexp.MustCompile(`key "([^"]+)" already set in map`)

// isoDuration is an ISO 8601 duration: weeks alone, or dates and times.
var isoDuration = regexp.MustCompile(`^P(?:\d+W|(?:\d+Y)?(?:\d+M)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+S)?)?)$`)

// validateDuration accepts what kubeconform's "duration" format accepts: a
// Go-style duration ("1h30m", as Kubernetes operators write them) or an
// ISO 8601 one ("PT1H30M").
func validateDuration(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if _, err := strfmt.ParseDuration(s); err == nil {
		return nil
	}
	if s == "P" || strings.HasSuffix(s, "T") || !isoDuration.MatchString(s) {
		return errors.New("not a duration")
	}
	return nil
}

func writeSchema(file string, schema map[string]any) error {
	data, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
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
