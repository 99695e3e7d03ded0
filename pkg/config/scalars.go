package config

import (
	"fmt"
	"reflect"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// checkScalars holds the settings of root, the file's nodes, to the types
// of the fields they are decoded into (t, Config's type at first), where
// yaml is lenient: a number or a boolean given for a string (certificate:
// 5, kubeVersion: 1.30, read as "5" and "1.3"), and anything but true or
// false given for a boolean (yes, "on"). Each is an error at its line,
// saying what was expected and found; path is the setting's key path.
// Types that read themselves (yaml.Unmarshaler) are left to themselves.
func checkScalars(file string, n *yaml.Node, t reflect.Type, path []string) error {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.AliasNode {
		if n = n.Alias; n == nil {
			return nil
		}
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[yaml.Unmarshaler]()) {
		return nil
	}
	bad := func(want string) error {
		return &Error{File: file, Line: n.Line, Message: fmt.Sprintf("%s: expected %s here, found %s", strings.Join(path, "."), want, found(n))}
	}
	switch t.Kind() {
	case reflect.String:
		if n.Kind == yaml.ScalarNode && n.Tag != "!!str" && n.Tag != "!!null" {
			return bad("a string (quote it)")
		}
	case reflect.Bool:
		if n.Kind == yaml.ScalarNode && n.Tag != "!!bool" && n.Tag != "!!null" {
			return bad("true or false")
		}
	case reflect.Struct:
		return checkFields(file, n, t, path)
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if err := checkScalars(file, n.Content[i+1], t.Elem(), append(path[:len(path):len(path)], n.Content[i].Value)); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, e := range n.Content {
				if err := checkScalars(file, e, t.Elem(), append(path[:len(path):len(path)], fmt.Sprint(i))); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkFields is checkScalars for a struct's mapping: each key's field by
// its yaml name (inlined fields' keys too).
func checkFields(file string, n *yaml.Node, t reflect.Type, path []string) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		if f, ok := yamlField(t, key); ok {
			if err := checkScalars(file, n.Content[i+1], f.Type, append(path[:len(path):len(path)], key)); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlField is the field of the struct type t that the yaml key name is
// decoded into, looking into inlined fields.
func yamlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case strings.Contains(opts, "inline"):
			if inner, ok := yamlField(f.Type, name); ok {
				return inner, true
			}
		case tag == name:
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// found says what a node is, in the user's words.
func found(n *yaml.Node) string {
	switch n.Tag {
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	}
	return "a " + strings.TrimPrefix(n.Tag, "!!")
}
