package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// Error is an invalid repotool.yaml. It names the file and line and
// says how to fix it.
type Error struct {
	File    string
	Line    int
	Message string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Message)
}

var unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type \S+$`)

// Parse parses repotool.yaml content. Unknown keys, wrong types and
// invalid values are a *Error naming file and line. Settings the file
// leaves out keep their DefaultConfig value. It also returns the parsed node
// tree, so callers can point later diagnostics at lines of the file.
func Parse(file string, data []byte) (Config, *yaml.Node, error) {
	cfg := DefaultConfig()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		return cfg, nil, &Error{File: file, Line: line, Message: "not valid YAML: " + msg}
	}
	if len(root.Content) == 0 { // empty file
		return cfg, &root, nil
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return cfg, nil, &Error{File: file, Line: root.Content[0].Line, Message: "the file must be a mapping of settings (git, defaults, clusters, " +
			"namespaces, layout)"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		line, msg := yamlpos.ErrorLine(err)
		if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("unknown key %q: remove it or check its spelling (see docs/layout.md for the keys repotool.yaml accepts)", m[1])
		}
		msg = typeErrorWords(msg)
		return cfg, nil, &Error{File: file, Line: line, Message: msg}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return cfg, nil, &Error{File: file, Line: extra.Line, Message: "the file must hold a single YAML document; remove the second one"}
	}
	if err := checkScalars(file, root.Content[0], reflect.TypeFor[Config](), nil); err != nil {
		return cfg, nil, err
	}
	cfg.Layout.ApplyDefaults()
	if err := validateConfig(file, &root, &cfg); err != nil {
		return cfg, nil, err
	}
	return cfg, &root, nil
}

var typeErrorRE = regexp.MustCompile("cannot unmarshal !!(\\w+)(?: `[^`]*`)? into (\\S+)")

// typeErrorWords rewrites yaml's "cannot unmarshal !!seq into
// map[string]layout.ClusterConfig" in the user's words: what was expected,
// and what was found.
func typeErrorWords(msg string) string {
	m := typeErrorRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	found := map[string]string{
		"seq":       "a list",
		"map":       "a mapping",
		"str":       "a string",
		"int":       "a number",
		"float":     "a number",
		"bool":      "true or false",
		"null":      "nothing",
		"binary":    "binary data",
		"timestamp": "a date",
	}[m[1]]
	want := "a different type"
	switch t := m[2]; {
	case strings.HasPrefix(t, "map["):
		want = "a mapping (key: value)"
	case t == "[]string":
		want = "a list of strings"
	case strings.HasPrefix(t, "[]"):
		want = "a list"
	case t == "string":
		want = "a string"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		want = "a number"
	case t == "bool":
		want = "true or false"
	case strings.Contains(t, "."):
		want = "a mapping of settings"
	}
	return fmt.Sprintf("expected %s here, found %s", want, cmp.Or(found, "a value of another type"))
}

func validateConfig(file string, root *yaml.Node, cfg *Config) error {
	// In this order, so that a file with several mistakes is told the
	// same first one whatever the sections' files hold.
	for _, validate := range []func(string, *yaml.Node, *Config) error{
		validateClusters,
		validateNamespaces,
		validateValues,
		validateLint,
		validateAdmission,
		validateRender,
		validateHydrate,
		validateDiff,
		validateSecrets,
		validateIgnoreDifferences,
		validateArgoCD,
		validateDeprecations,
		validateLayout,
		validateApplications,
	} {
		if err := validate(file, root, cfg); err != nil {
			return err
		}
	}
	return nil
}

// badAt returns a function making the *Error for a message about the
// setting at the given key path of root (the file's first line when the
// path is not there).
func badAt(file string, root *yaml.Node) func(msg string, keys ...string) error {
	return func(msg string, keys ...string) error {
		return &Error{File: file, Line: yamlpos.Line(root, 1, keys...), Message: msg}
	}
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func checkName(n string) error {
	if len(n) > 63 || !nameRE.MatchString(n) {
		return errors.New("is not a valid name: use lower-case letters, digits and '-', at most 63 characters (a Kubernetes DNS label)")
	}
	return nil
}

func fsValidPath(p string) bool {
	return p != "." && fs.ValidPath(p)
}
