package engine

import (
	"encoding/json"
	"errors"
	"maps"
	"sync"
	"text/template"

	"github.com/Masterminds/sprig/v3"
)

// baseFuncs is the function library every chart's templates are parsed
// with: sprig's text functions without the two that read the process
// environment, and Helm's additions. include and tpl are stand-ins here:
// each rendering binds its own (run.bind), since they run templates of
// that rendering.
var baseFuncs = sync.OnceValue(func() template.FuncMap {
	fm := maps.Clone(sprigFuncs())
	maps.DeleteFunc(fm, func(name string, _ any) bool { return name == "env" || name == "expandenv" })
	maps.Copy(fm, limitedFuncs(sprigFuncs()))
	helm := template.FuncMap{
		"toYaml":        measured(toYAML),
		"toYamlPretty":  measured(toYAMLPretty),
		"fromYaml":      decodeMap(yamlDecoder),
		"fromYamlArray": decodeList(yamlDecoder),
		"toJson":        measured(toJSON),
		"fromJson":      decodeMap(json.Unmarshal),
		"fromJsonArray": decodeList(json.Unmarshal),
		"toToml":        measured(toTOML),
		"fromToml":      fromTOML,

		"required":      required,
		"fail":          fail,
		"lookup":        lookup,
		"getHostByName": func(string) string { return "" },

		"include": func(string, any) (string, error) { return "", errUnbound },
		"tpl":     func(string, any) (string, error) { return "", errUnbound },
	}
	maps.Copy(fm, helm)
	return fm
})

// sprigFuncs is sprig's function library, as sprig makes it.
var sprigFuncs = sync.OnceValue(sprig.TxtFuncMap)

var errUnbound = errors.New("include and tpl run only inside a rendering")

// required fails the template with msg when v is missing: nil, or the
// empty string. Other empty values (0, false, an empty list) are given.
func required(msg string, v any) (any, error) {
	if s, ok := v.(string); v == nil || ok && s == "" {
		return v, userError(msg)
	}
	return v, nil
}

// fail fails the template with msg.
func fail(msg string) (string, error) { return "", userError(msg) }

// lookup is Helm's query of the cluster's objects. `helm template` has no
// cluster, and its lookup finds nothing: an empty map and no error.
func lookup(apiVersion, kind, namespace, name string) (map[string]any, error) {
	return map[string]any{}, nil
}
