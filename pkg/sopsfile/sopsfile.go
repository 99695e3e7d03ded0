package sopsfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/repotool/repotool/internal/yamlpos"
)

// Metadata is what the top-level "sops" block of an encrypted file says about
// how it was encrypted. It never contains key material.
type Metadata struct {
	// Version is the sops version that wrote the file.
	Version string
	// HasMAC reports whether the file carries a message authentication code.
	HasMAC bool
	// EncryptedRegex, UnencryptedRegex, EncryptedSuffix and UnencryptedSuffix
	// are the key-selection settings recorded at encryption time.
	EncryptedRegex    string
	UnencryptedRegex  string
	EncryptedSuffix   string
	UnencryptedSuffix string
	// Recipients lists the kinds of master key the file is encrypted for
	// (age, pgp, kms, gcp_kms, azure_kv, hc_vault, hckms), sorted and
	// de-duplicated.
	Recipients []string
	// Keys are the master keys themselves, in the top-level lists and the
	// key groups (see Keys).
	Keys []Key
}

// ErrNotEncrypted is returned by Inspect when a document has no sops
// metadata block.
var ErrNotEncrypted = errors.New("not SOPS-encrypted: no top-level sops metadata")

// Inspect parses a YAML document and reports its SOPS metadata. It returns
// ErrNotEncrypted when the document is valid YAML but carries no (or an
// incomplete) sops block, and a *yaml.TypeError or syntax error when the
// document is not YAML. Error texts never quote the document's values.
func Inspect(data []byte) (*Metadata, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrNotEncrypted
		}
		return nil, err
	}
	return InspectNode(yamlpos.Root(&doc))
}

// MetadataKey is the top-level key of an encrypted YAML document that
// holds SOPS's metadata.
const MetadataKey = "sops"

// IsMetadata reports whether key, at depth (0: the document's top level)
// of an encrypted document, is SOPS's metadata rather than a value: every
// walk over an encrypted file's values passes it by.
func IsMetadata(depth int, key string) bool { return depth == 0 && key == MetadataKey }

// InspectNode is Inspect for a document already parsed: root is its
// top-level node.
func InspectNode(root *yaml.Node) (*Metadata, error) {
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, ErrNotEncrypted
	}
	var sops *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if IsMetadata(0, root.Content[i].Value) {
			sops = root.Content[i+1]
		}
	}
	if sops == nil || sops.Kind != yaml.MappingNode {
		return nil, ErrNotEncrypted
	}
	md := &Metadata{}
	recipients := map[string]bool{}
	for i := 0; i+1 < len(sops.Content); i += 2 {
		k, v := sops.Content[i].Value, sops.Content[i+1]
		switch k {
		case "version":
			md.Version = v.Value
		case "mac":
			md.HasMAC = v.Value != ""
		case "encrypted_regex":
			md.EncryptedRegex = v.Value
		case "unencrypted_regex":
			md.UnencryptedRegex = v.Value
		case "encrypted_suffix":
			md.EncryptedSuffix = v.Value
		case "unencrypted_suffix":
			md.UnencryptedSuffix = v.Value
		case KindAge, KindPGP, KindAWSKMS, KindGCPKMS, KindAzureKV, KindVault, KindHCKMS:
			if v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
				recipients[k] = true
			}
		}
	}
	if md.Version == "" || !md.HasMAC {
		return nil, fmt.Errorf("%w (the sops block has no %s)", ErrNotEncrypted, missing(md))
	}
	for r := range recipients {
		md.Recipients = append(md.Recipients, r)
	}
	slices.Sort(md.Recipients)
	md.Keys = Keys(root)
	return md, nil
}

// IsEncrypted reports whether data is a SOPS-encrypted YAML document.
func IsEncrypted(data []byte) bool {
	_, err := Inspect(data)
	return err == nil
}

// IsEncryptedValue reports whether a scalar holds a SOPS ciphertext
// ("ENC[AES256_GCM,data:...]").
func IsEncryptedValue(s string) bool {
	return strings.HasPrefix(s, "ENC[") && strings.HasSuffix(s, "]")
}

func missing(md *Metadata) string {
	var m []string
	if md.Version == "" {
		m = append(m, "version")
	}
	if !md.HasMAC {
		m = append(m, "mac")
	}
	return strings.Join(m, " or ")
}
