package render

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/repotool/repotool/internal/varenc"
	"github.com/repotool/repotool/pkg/layout"
	"github.com/repotool/repotool/pkg/manifest"
)

// Held is a rendering as a caller that keeps many of them for a while
// holds it (Renderer.Hold): lint keeps every target's until its cluster
// is checked. A Result takes some 400 bytes before its objects (its
// target copied whole, its capabilities, the placeholders' rendering's
// closure) and a map of the decrypted strings it knows; a Held is a few
// bytes for most renderings, the strings encoded apart, for the caller
// to keep where it keeps the rendering's decrypted values.
type Held struct {
	rest *heldRest // nil for a rendering that needs none of it
	kube string    // the Kubernetes version it was rendered for
	safe bool      // the rendering has a rendering with placeholders
}

// KubeVersion is the Kubernetes version the rendering was rendered for
// (its Capabilities.KubeVersion).
func (h Held) KubeVersion() string { return h.kube }

// Err is why the target did not render (its Err).
func (h Held) Err() error {
	if h.rest == nil {
		return nil
	}
	return h.rest.err
}

// heldRest is what most renderings do not have.
type heldRest struct {
	caps         *Capabilities // when not the ones the Renderer gives the target
	err          error
	conflicts    []ValueConflict
	placeholders []error
	unstable     []Unstable
}

// Hold returns what Unhold makes res again from, once given its target
// and objects: h, and the decrypted strings res knows (FromSecrets),
// encoded, which are decrypted values for the caller to hold as such
// (never on disk). res itself is not held: the caller lets it go.
func (r *Renderer) Hold(res *Result) (h Held, secrets []byte) {
	rest := heldRest{err: res.Err, conflicts: res.Conflicts, placeholders: res.Placeholders, unstable: res.Unstable}
	caps := r.capabilities(&res.Target)
	if caps.KubeVersion != res.Capabilities.KubeVersion || !slices.Equal(caps.APIVersions, res.Capabilities.APIVersions) {
		rest.caps = &res.Capabilities
	}
	if rest.caps != nil || rest.err != nil || rest.conflicts != nil || rest.placeholders != nil || rest.unstable != nil {
		h.rest = &rest
	}
	h.kube, h.safe = res.Capabilities.KubeVersion, res.safe != nil
	return h, res.red.encode()
}

// Unhold is the Result held as h with secrets (Hold), for target t, with
// objs as its objects and no stream. Its rendering with placeholders,
// when it had one, is made again on demand, within ctx, as Render makes
// it: ctx should be the one it was rendered within.
func (r *Renderer) Unhold(ctx context.Context, t layout.Target, h Held, secrets []byte, objs []manifest.Object) (*Result, error) {
	res := &Result{Target: t, Capabilities: r.capabilities(&t), Objects: objs}
	if rest := h.rest; rest != nil {
		if rest.caps != nil {
			res.Capabilities = *rest.caps
		}
		res.Err, res.Conflicts, res.Placeholders, res.Unstable = rest.err, rest.conflicts, rest.placeholders, rest.unstable
	}
	red, err := decodeRedactor(secrets)
	if err != nil {
		return nil, err
	}
	res.red = red
	if h.safe {
		res.safe = r.placeholders(ctx, res)
	}
	return res, nil
}

// encode is r's strings (internal/varenc): the number of exact ones,
// then of the others, then each string. Nil when r knows none (holds then
// answers as a nil redactor does).
func (r *redactor) encode() []byte {
	if r == nil || len(r.exact) == 0 && len(r.secrets) == 0 {
		return nil
	}
	exact := make([]string, 0, len(r.exact))
	for s := range r.exact {
		exact = append(exact, s)
	}
	slices.Sort(exact) // the same strings encode the same
	out := binary.AppendUvarint(nil, uint64(len(exact)))
	out = binary.AppendUvarint(out, uint64(len(r.secrets)))
	for _, list := range [][]string{exact, r.secrets} {
		for _, s := range list {
			out = varenc.AppendString(out, s)
		}
	}
	return out
}

// decodeRedactor is the redactor encode encoded; nil for nil.
func decodeRedactor(b []byte) (*redactor, error) {
	if b == nil {
		return nil, nil
	}
	d := varenc.Reader{B: b}
	nExact, nSecrets := d.Count(), d.Count() // each bounded by the bytes left
	r := &redactor{exact: make(map[string]bool, nExact), secrets: make([]string, 0, nSecrets)}
	for i := 0; i < nExact+nSecrets && d.Err == nil; i++ {
		if s := d.Str(); i < nExact {
			r.exact[s] = true
		} else {
			r.secrets = append(r.secrets, s)
		}
	}
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("render: a held rendering's strings do not decode: %w", err) // not reached: encode made them
	}
	return r, nil
}
