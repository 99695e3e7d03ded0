package values

import (
	"maps"
	"reflect"
	"slices"
)

// Side is one target's value at a path.
type Side struct {
	// Present is false when the target's values have nothing there.
	Present bool `json:"present"`
	// Value is the value; nil when absent or Secret.
	Value any `json:"value,omitempty"`
	// Secret: the value comes from a secret values file; it is neither
	// shown nor compared.
	Secret bool `json:"secret,omitempty"`
	// Origin is where it comes from (nil: no file sets it).
	Origin *Origin `json:"origin,omitempty"`
}

// Difference is a value path whose value is not the same in every target
// compared: one Side per target, in the order given.
type Difference struct {
	Path  []string `json:"path"`
	Sides []Side   `json:"sides"`
}

// Compare lists the leaves (see Effective.Leaves) whose value differs
// between the targets' effective values, in path order. A leaf from a
// secret values file is compared by presence only: its value is a
// placeholder here, and the rendered Secret objects are where a changed
// secret value shows.
func Compare(effs []*Effective) []Difference {
	sides := map[string][]Side{}
	paths := map[string][]string{}
	for i, e := range effs {
		for _, l := range e.Leaves(nil) {
			k := Key(l.Path)
			if _, ok := sides[k]; !ok {
				sides[k] = make([]Side, len(effs))
				paths[k] = l.Path
			}
			s := Side{Present: true, Value: l.Value, Origin: l.Origin, Secret: l.Secret()}
			if s.Secret {
				s.Value = nil
			}
			sides[k][i] = s
		}
	}
	var out []Difference
	for _, k := range slices.Sorted(maps.Keys(sides)) {
		if differ(sides[k]) {
			out = append(out, Difference{Path: paths[k], Sides: sides[k]})
		}
	}
	return out
}

// differ reports whether the sides are not all the same: present or not,
// and, where none is secret, equal values.
func differ(s []Side) bool {
	for _, x := range s[1:] {
		if x.Present != s[0].Present {
			return true
		}
		if x.Secret || s[0].Secret {
			if x.Secret != s[0].Secret {
				return true
			}
			continue
		}
		if !reflect.DeepEqual(x.Value, s[0].Value) {
			return true
		}
	}
	return false
}
