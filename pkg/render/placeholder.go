package render

import (
	"bytes"
	"context"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// PlaceholderValue replaces every encrypted string under
// PlaceholderDecrypter.
const PlaceholderValue = "placeholder-not-decrypted"

// PlaceholderDecrypter "decrypts" a SOPS file without any key: every
// encrypted value becomes a placeholder of its type (PlaceholderValue for
// strings, 0 for numbers, false for booleans) and the sops metadata is
// dropped, so that charts render with the file's structure and every check
// that does not need the real values can run: linting where no key is
// available, such as pull requests from forks. A file that is not
// SOPS-encrypted is an error, as with decrypt.SOPS.
type PlaceholderDecrypter struct{}

// Decrypt implements Decrypter.
func (PlaceholderDecrypter) Decrypt(_ context.Context, file string, data []byte) ([]byte, error) {
	if !sopsfile.IsEncrypted(data) {
		return nil, decrypt.NotEncrypted(file)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &decrypt.Error{File: file, Reason: "it is not valid YAML", Hint: "restore it from a trusted revision"}
	}
	root := yamlpos.Root(&doc)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if sopsfile.IsMetadata(0, root.Content[i].Value) {
			root.Content = append(root.Content[:i], root.Content[i+2:]...)
			break
		}
	}
	placeholders(root)
	return encodeYAML(&doc)
}

// encodeYAML writes a YAML document node.
func encodeYAML(doc *yaml.Node) ([]byte, error) {
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// placeholders replaces ENC[...,type:T] scalars by a value of type T.
func placeholders(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && sopsfile.IsEncryptedValue(n.Value) {
		typ := ""
		if i := strings.LastIndex(n.Value, "type:"); i >= 0 {
			typ = strings.TrimSuffix(n.Value[i+len("type:"):], "]")
		}
		n.Style = 0
		switch typ {
		case "int":
			n.Tag, n.Value = "!!int", "0"
		case "float":
			n.Tag, n.Value = "!!float", "0.0"
		case "bool":
			n.Tag, n.Value = "!!bool", "false"
		default:
			n.Tag, n.Value = "!!str", PlaceholderValue
		}
		return
	}
	for _, c := range n.Content {
		placeholders(c)
	}
}

// placeholdersFor returns a secret values file with every value replaced
// by a typed placeholder: through PlaceholderDecrypter when the file is
// SOPS-encrypted, and by each value's YAML type when it is not (a plain
// file named as secret: its values are not used, whatever they are).
func placeholdersFor(file string, data []byte) ([]byte, error) {
	if sopsfile.IsEncrypted(data) {
		return PlaceholderDecrypter{}.Decrypt(context.Background(), file, data)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			n.Style = 0
			switch n.Tag {
			case "!!int":
				n.Value = "0"
			case "!!float":
				n.Value = "0.0"
			case "!!bool":
				n.Value = "false"
			case "!!null":
			default:
				n.Tag, n.Value = "!!str", PlaceholderValue
			}
		case yaml.MappingNode:
			for i := 1; i < len(n.Content); i += 2 {
				walk(n.Content[i])
			}
		default:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(&doc)
	return encodeYAML(&doc)
}
