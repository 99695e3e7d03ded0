package lint

import (
	"bytes"
	"fmt"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/repotool/repotool/pkg/render"
)

// AdmittedManifest is res's manifest as the API server would store it:
// each object of admitted (Admit's, for res's target; others are passed
// by) replaced by the admitted object, after comments that name the
// policies and the fields that changed it, or that say which policy
// denies it (the object then as rendered). Every other byte is res's.
func AdmittedManifest(res *render.Result, admitted []Admitted) ([]byte, error) {
	byObject := map[int]Admitted{}
	for _, a := range admitted {
		if a.Target == res.Target.Name() {
			byObject[a.Object] = a
		}
	}
	var out bytes.Buffer
	rest := res.Manifest
	for i := range res.Objects {
		o := &res.Objects[i]
		a, ok := byObject[i]
		if !ok {
			continue
		}
		at := bytes.Index(rest, o.YAML)
		if at < 0 {
			return nil, fmt.Errorf("%s: object %s is not in the rendering's manifest", res.Target.Name(), o.ID())
		}
		out.Write(rest[:at])
		rest = rest[at+len(o.YAML):]
		if a.Denied != "" {
			fmt.Fprintf(&out, "# Not admitted: %s\n", a.Denied)
			out.Write(o.YAML)
			continue
		}
		for _, c := range a.Changes {
			fmt.Fprintf(&out, "# Admitted: %s\n", c)
		}
		data, err := sigsyaml.Marshal(a.Content)
		if err != nil {
			return nil, err
		}
		out.Write(data)
	}
	out.Write(rest)
	return out.Bytes(), nil
}
