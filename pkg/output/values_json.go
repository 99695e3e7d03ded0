package output

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/repotool/repotool/pkg/values"
)

// valuesJSON writes the values as indented JSON; with origins, an object
// {"values": ..., "origins": [...]}, one origin for each value that is not
// a map, in key order, its path dot-joined.
type valuesJSON struct{}

func (valuesJSON) Name() string { return "json" }

type jsonOrigin struct {
	Path string `json:"path"`
	*values.Origin
	Computed bool `json:"computed,omitempty"`
}

func (valuesJSON) Write(w io.Writer, e *values.Effective, opts ValuesOptions) error {
	v, err := selected(e, opts)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if !opts.Origin {
		return enc.Encode(v)
	}
	origins := []jsonOrigin{}
	for _, l := range e.Leaves(opts.Path) {
		origins = append(origins, jsonOrigin{Path: strings.Join(l.Path, "."), Origin: l.Origin, Computed: l.Origin == nil})
	}
	return enc.Encode(struct {
		Values  any          `json:"values"`
		Origins []jsonOrigin `json:"origins"`
	}{v, origins})
}
