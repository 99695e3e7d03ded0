package render

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/repotool/repotool/internal/jsonptr"
	"github.com/repotool/repotool/pkg/manifest"
)

// SecretField is a field of a rendered object whose value a decrypted
// secret value made: it differs from the same field of the rendering with
// placeholders for the secret values.
type SecretField struct {
	// Object is the object's index in Result.Objects.
	Object int
	// Pointer is the field's JSON pointer ("/data/password",
	// "/spec/template/spec/containers/0/env/1/value"): a leaf, or a map
	// with a key a secret value made (its keys are not named: they may
	// be secret); "/" for an object that only the real rendering has.
	Pointer string
}

// SecretFields lists, in object order and then by pointer, every field of
// the rendering that holds a secret value, in whatever form a template
// gave it (quoted, base64, in a larger string, as a number): the leaves
// whose values differ between the real rendering and the one with
// placeholders, objects matched by manifest.Key. It is nil for a target
// without decrypted values, and fails as Redacted does when the
// placeholder rendering fails.
func (res *Result) SecretFields() ([]SecretField, error) {
	if res.safe == nil {
		return nil, nil
	}
	safe, err := res.safe()
	if err != nil {
		return nil, err
	}
	byKey := make(map[manifest.Key]*manifest.Object, len(safe))
	for i := range safe {
		byKey[safe[i].Key()] = &safe[i]
	}
	var out []SecretField
	for i := range res.Objects {
		o := &res.Objects[i]
		s, ok := byKey[o.Key()]
		if !ok {
			out = append(out, SecretField{Object: i, Pointer: "/"})
			continue
		}
		for _, p := range differingLeaves("", o.Content, s.Content) {
			out = append(out, SecretField{Object: i, Pointer: p})
		}
	}
	return out, nil
}

// differingLeaves are the JSON pointers below p of the leaves where real
// and safe differ, a leaf that only one of them has included. A map with
// a key that safe lacks is listed itself, its keys unnamed: a key a
// secret value made is secret too.
func differingLeaves(p string, real, safe any) []string {
	switch r := real.(type) {
	case map[string]any:
		s, ok := safe.(map[string]any)
		keys := slices.Sorted(maps.Keys(r))
		if !ok || slices.ContainsFunc(keys, func(k string) bool { _, in := s[k]; return !in }) {
			return []string{cmp.Or(p, "/")}
		}
		var out []string
		for _, k := range keys {
			out = append(out, differingLeaves(p+"/"+jsonptr.Escape(k), r[k], s[k])...)
		}
		return out
	case []any:
		s, _ := safe.([]any)
		var out []string
		for i, v := range r {
			var sv any
			if i < len(s) {
				sv = s[i]
			}
			out = append(out, differingLeaves(fmt.Sprintf("%s/%d", p, i), v, sv)...)
		}
		return out
	}
	if fmt.Sprintf("%T %v", real, real) != fmt.Sprintf("%T %v", safe, safe) {
		return []string{cmp.Or(p, "/")}
	}
	return nil
}
