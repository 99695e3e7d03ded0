package schema

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/yannh/kubeconform/pkg/loader"
)

// Where each kind's schema comes from: the CRDs added to the Validator,
// the embedded Kubernetes schemas, or the extra locations, in that order;
// each compiled once per Validator, as kubeconform compiles them.

// ownSchema returns the compiled schema of a custom resource whose CRD was
// added, or of a built-in kind for minor; nil when repotool has none.
func (v *Validator) ownSchema(minor int, apiVersion, kind string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	gvk := groupVersionKind(apiVersion, kind)
	if s, ok := v.crds[gvk]; ok {
		_, version, _ := strings.Cut(apiVersion, "/")
		// kubeconform's {{ .Group }} is the part before the slash.
		rel := filepath.Join("crd", strings.SplitN(apiVersion, "/", 2)[0], strings.ToLower(kind)+"_"+version+".json")
		return v.compile("crd:"+gvk, rel, s)
	}
	key := fmt.Sprintf("builtin:%d:%s", minor, gvk)
	if c, ok := v.compiled[key]; ok {
		return c, nil // before Schema: inlining a kind's definitions takes megabytes each time
	}
	e, err := Load(minor)
	if err != nil {
		return nil, err
	}
	s, ok := e.Schema(apiVersion, kind)
	if !ok {
		return nil, nil
	}
	rel := filepath.Join("builtin", fmt.Sprintf("v1.%d", minor), strings.ToLower(kind)+kindSuffix(apiVersion)+".json")
	return v.compile(key, rel, s)
}

// compile compiles schema s once under key, writing it to rel under
// Options.Dir when that is set. v.mu is held.
func (v *Validator) compile(key, rel string, s map[string]any) (*jsonschema.Schema, error) {
	if c, ok := v.compiled[key]; ok {
		return c, nil
	}
	if v.opts.Dir != "" && !v.written[rel] {
		if err := writeSchema(filepath.Join(v.opts.Dir, rel), s); err != nil {
			return nil, err
		}
		v.written[rel] = true
	}
	c := newCompiler()
	url := "mem:///" + filepath.ToSlash(rel)
	if err := c.AddResource(url, s); err != nil {
		return nil, fmt.Errorf("schema %s: %w", rel, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", rel, err)
	}
	v.compiled[key] = sch
	return sch, nil
}

// extraSchema looks for a schema in the extra locations, in order, as
// kubeconform does: a location that has none, or answers with something
// that is not a schema, is passed over; any other failure is the
// validator's.
func (v *Validator) extraSchema(minor int, apiVersion, kind string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	key := fmt.Sprintf("extra:%d:%s", minor, groupVersionKind(apiVersion, kind))
	if c, ok := v.compiled[key]; ok {
		return c, nil
	}
	var found *jsonschema.Schema
	for _, reg := range v.regs {
		path, doc, err := reg.DownloadSchema(kind, apiVersion, fmt.Sprintf("1.%d", minor))
		var notFound *loader.NotFoundError
		var nonJSON *loader.NonJSONResponseError
		switch {
		case errors.As(err, &notFound), errors.As(err, &nonJSON):
			continue
		case err != nil:
			return nil, err
		case doc == nil:
			continue // "null": not a schema
		}
		c := newCompiler()
		c.UseLoader(v.loader)
		if c.AddResource(path, doc) != nil {
			continue
		}
		if sch, err := c.Compile(path); err == nil {
			found = sch
			break
		}
	}
	v.compiled[key] = found
	return found, nil
}

// newCompiler is a compiler set up as kubeconform sets up its own: draft 4
// unless a schema says otherwise, and the Kubernetes "duration" format.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft4)
	c.RegisterFormat(&jsonschema.Format{Name: "duration", Validate: validateDuration})
	return c
}
