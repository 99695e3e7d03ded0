package diff

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/change"
	"github.com/repotool/repotool/pkg/manifest"
	"github.com/repotool/repotool/pkg/render"
	"github.com/repotool/repotool/pkg/values"
)

// origins are what changed in one target's values from base to head:
// the effective values that differ (values.Compare, base first), with
// their files and lines, and the secret values files that changed. They
// explain the changed fields of its objects (Change.Provenance).
type origins struct {
	diffs   []values.Difference
	secrets []string
}

// originsOf are the origins of a target rendered by baseR and headR (nil
// when the target is missing at one revision or its values cannot be
// traced: its rendering's error is reported, and the changes are shown
// without provenance). changed are the changed files (nil: none known).
func originsOf(ctx context.Context, baseR, headR *render.Renderer, base, head *render.Result, changed []string) *origins {
	if base == nil || head == nil || base.Err != nil || head.Err != nil {
		return nil
	}
	// Both revisions at once: tracing a target's values is most of what
	// provenance costs, and the comparison waits for it.
	var eb *values.Effective
	var errBase error
	done := make(chan struct{})
	go func() {
		defer close(done)
		eb, errBase = baseR.EffectiveValues(ctx, &base.Target)
	}()
	eh, err := headR.EffectiveValues(ctx, &head.Target)
	<-done
	if err != nil || errBase != nil {
		return nil
	}
	o := &origins{diffs: values.Compare([]*values.Effective{eb, eh})}
	for _, vf := range head.Target.Values {
		if vf.Secret && slices.Contains(changed, vf.Path) {
			o.secrets = append(o.secrets, vf.Path)
		}
	}
	return o
}

// leafChange is a field whose value differs between two objects
// (jsonptr.EachChange): a scalar, or a value that changed shape.
type leafChange struct {
	ptr      string
	old, new any
}

// provenance attributes the changed fields of an object (its redacted
// contents at base and head) to the values differences whose value at
// head is the field's new value, or is in it (a string of three or more
// characters), and whose value at base is, or is in, the old one; and
// each secret field to the secret values files that changed. A field no
// difference explains (a template that changed, a computed value) has
// none. Secret values are never compared: their differences are by
// presence only, and their fields are named by the file.
func (o *origins) provenance(base, head *manifest.Object, secretFields []string) []change.Provenance {
	if o == nil {
		return nil
	}
	var out []change.Provenance
	jsonptr.EachChange("", base.Content, head.Content, func(ptr string, old, new any) {
		for _, d := range o.diffs {
			if p, ok := explains(d, leafChange{ptr, old, new}); ok {
				out = append(out, p)
			}
		}
	})
	for _, f := range secretFields {
		for _, file := range o.secrets {
			out = append(out, change.Provenance{Field: f, Head: &values.Source{File: file, Secret: true}})
		}
	}
	slices.SortStableFunc(out, func(a, b change.Provenance) int { return strings.Compare(a.Field, b.Field) })
	return out
}

// explains reports whether difference d made the field change f, and
// says so.
func explains(d values.Difference, f leafChange) (change.Provenance, bool) {
	base, head := d.Sides[0], d.Sides[1]
	if base.Secret || head.Secret || !head.Present && !base.Present {
		return change.Provenance{}, false
	}
	if head.Present && !valueIn(head.Value, f.new) || base.Present && !valueIn(base.Value, f.old) {
		return change.Provenance{}, false
	}
	p := change.Provenance{Field: cmp.Or(f.ptr, "/"), Key: strings.Join(d.Path, ".")}
	var hs *values.Source
	if head.Present && head.Origin != nil {
		hs = &head.Origin.From
		p.Head = hs
	}
	if base.Present && base.Origin != nil && (hs == nil || base.Origin.From != *hs) {
		p.Base = &base.Origin.From
	}
	return p, p.Head != nil || p.Base != nil
}

// valueIn reports whether the scalar value v is the field's value, or a
// part of it long enough to tell.
func valueIn(v, field any) bool {
	switch v.(type) {
	case nil, map[string]any, []any:
		return false
	}
	if field == nil {
		return false
	}
	vs, fs := fmt.Sprint(v), fmt.Sprint(field)
	if vs == fs {
		return true
	}
	_, isString := field.(string)
	return isString && len(vs) >= 3 && strings.Contains(fs, vs)
}

// pair is one target's renderings compared: base and head, the labels of
// their sides in a diff, and what explains its changes (nil: nothing).
type pair struct {
	name       string
	base, head *render.Result
	labels     [2]string
	ig         *ignorer
	origins    func() *origins
}

// lazyOrigins is originsOf, traced when a changed object first asks, once:
// a target that re-renders the same (every target a .sops.yaml change
// affects) traces nothing.
func lazyOrigins(ctx context.Context, baseR, headR *render.Renderer, base, head *render.Result, changed []string) func() *origins {
	var o *origins
	done := false
	return func() *origins {
		if !done {
			o, done = originsOf(ctx, baseR, headR, base, head, changed), true
		}
		return o
	}
}

// revisions are the labels of a comparison of two revisions.
var revisions = [2]string{"base", "head"}
