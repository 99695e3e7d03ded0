package sopsfile

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"

	yaml "go.yaml.in/yaml/v3"
)

// The kinds of key a SOPS file's metadata can name, in SOPS's own words
// (the keys of its sops block), and KindAgePlugin, the age plugins a
// recipient or identity would make age run.
const (
	KindAge       = "age"
	KindPGP       = "pgp"
	KindAWSKMS    = "kms"
	KindGCPKMS    = "gcp_kms"
	KindAzureKV   = "azure_kv"
	KindVault     = "hc_vault"
	KindHCKMS     = "hckms"
	KindAgePlugin = "age-plugin"
)

// allowKinds are the kinds a KeyPolicy can allow: every kind but plain
// age, which is always decrypted in process with the identities given.
var allowKinds = []string{KindAgePlugin, KindAWSKMS, KindAzureKV, KindGCPKMS, KindVault, KindHCKMS, KindPGP}

// Key is one master key of a SOPS file, or one age plugin: its kind and
// the identity that says where it is (a URL, an ARN, a resource ID, a
// fingerprint, a plugin's name). Keys are metadata, never key material:
// they may be printed.
type Key struct {
	Kind string
	ID   string
}

func (k Key) String() string { return k.Kind + "=" + k.ID }

// CompareKeys orders keys by their KIND=ID form, the order every list of
// keys is printed in.
func CompareKeys(a, b Key) int { return strings.Compare(a.String(), b.String()) }

// Used is the key that decrypting with k uses: k itself, but for an age
// recipient that names a plugin ("age1<name>1..."), which makes age run
// age-plugin-<name>: that plugin. The policy allows, decryption admits and
// lint reports this key.
func (k Key) Used() Key {
	if k.Kind != KindAge {
		return k
	}
	if name := AgePluginName(k.ID); name != "" {
		return Key{KindAgePlugin, name}
	}
	return k
}

// AgePluginName is the plugin an age recipient names ("age1<name>1..."),
// "" for a plain X25519 or hybrid (age1pq1...) recipient.
func AgePluginName(recipient string) string {
	if !strings.HasPrefix(recipient, "age1") || strings.HasPrefix(recipient, "age1pq1") || strings.Count(recipient, "1") < 2 {
		return ""
	}
	hrp := recipient[:strings.LastIndex(recipient, "1")]
	return strings.ToLower(strings.TrimPrefix(hrp, "age1"))
}

// Words is the key's kind in words, for messages.
func (k Key) Words() string {
	switch k.Kind {
	case KindAge:
		return "age recipient"
	case KindPGP:
		return "PGP key"
	case KindAWSKMS:
		return "AWS KMS key"
	case KindGCPKMS:
		return "Google Cloud KMS key"
	case KindAzureKV:
		return "Azure Key Vault key"
	case KindVault:
		return "HashiCorp Vault transit key"
	case KindHCKMS:
		return "Huawei Cloud KMS key"
	case KindAgePlugin:
		return "age plugin"
	}
	return k.Kind + " key"
}

// VaultKey is a Vault transit key as SOPS names it: address, /v1/, the
// engine's path, /keys/, the key's name.
func VaultKey(address, enginePath, keyName string) Key {
	return Key{KindVault, fmt.Sprintf("%s/v1/%s/keys/%s", strings.TrimRight(address, "/"), enginePath, keyName)}
}

// AzureKey is an Azure Key Vault key as SOPS names it.
func AzureKey(vaultURL, name, version string) Key {
	return Key{KindAzureKV, fmt.Sprintf("%s/keys/%s/%s", strings.TrimRight(vaultURL, "/"), name, version)}
}

// AWSKey is an AWS KMS key: its ARN, "+" and the role SOPS assumes when
// the file names one, "|" and the AWS profile when it names one (both
// choose which of the operator's credentials are used, so both are part
// of what is allowed).
func AWSKey(arn, role, profile string) Key {
	id := arn
	if role != "" {
		id += "+" + role
	}
	if profile != "" {
		id += "|" + profile
	}
	return Key{KindAWSKMS, id}
}

// PGPKey is a PGP key by its fingerprint, upper case without spaces.
func PGPKey(fingerprint string) Key {
	return Key{KindPGP, strings.ToUpper(strings.Join(strings.Fields(fingerprint), ""))}
}

// KeyPolicy is the operator's choice of the keys repotool may use besides
// age identities: the key services it may contact (with the credentials of
// its environment), the PGP keys it may run gpg for and the age plugins it
// may run. The zero value allows none of them. A policy must come from the
// operator (flags, the environment, a trusted revision), never from the
// content being checked.
type KeyPolicy struct {
	allowed []Key
}

// ParseKeyPolicy reads allowances, each "KIND=ID" (hc_vault=https://
// vault.example.com:8200, kms=arn:aws:kms:...), as --allow-key and
// REPOTOOL_ALLOW_KEYS give them. An entry may hold several, separated by
// commas or white space. Errors name the entry and the kinds.
func ParseKeyPolicy(entries ...string) (KeyPolicy, error) {
	var p KeyPolicy
	for _, e := range entries {
		for _, f := range strings.FieldsFunc(e, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			k, err := parseAllowance(f)
			if err != nil {
				return KeyPolicy{}, err
			}
			p.allowed = append(p.allowed, k)
		}
	}
	slices.SortFunc(p.allowed, CompareKeys)
	p.allowed = slices.Compact(p.allowed)
	return p, nil
}

func parseAllowance(f string) (Key, error) {
	kind, id, ok := strings.Cut(f, "=")
	if !ok || id == "" {
		return Key{}, fmt.Errorf("key allowance %q is not KIND=ID (KIND one of %s)", f, strings.Join(allowKinds, ", "))
	}
	if !slices.Contains(allowKinds, kind) {
		return Key{}, fmt.Errorf("key allowance %q: unknown kind %q (one of %s; age recipients need no allowance)", f, kind, strings.Join(allowKinds, ", "))
	}
	switch kind {
	case KindVault, KindAzureKV:
		u, err := url.Parse(id)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return Key{}, fmt.Errorf("key allowance %q: %s takes an http(s) URL with a host and no user, query or fragment", f, kind)
		}
		id = strings.TrimRight(id, "/")
	case KindPGP:
		return PGPKey(id), nil
	case KindAgePlugin:
		id = strings.ToLower(id)
	}
	return Key{kind, id}, nil
}

// Allowed is the policy's allowances, sorted.
func (p KeyPolicy) Allowed() []Key { return slices.Clone(p.allowed) }

// Empty reports whether the policy allows nothing but age identities.
func (p KeyPolicy) Empty() bool { return len(p.allowed) == 0 }

// Allows reports whether k may be used. Plain age recipients always may
// (they are decrypted in process); every other kind only when an
// allowance names it: exactly, or, for URLs (Vault, Azure Key Vault) and
// Google Cloud resource IDs, as a prefix ending at a path segment, so that
// "hc_vault=https://vault:8200" allows every transit key at that address
// and "hc_vault=https://vault:8200/v1/sops" the keys of one engine.
func (p KeyPolicy) Allows(k Key) bool {
	k = k.Used()
	if k.Kind == KindAge {
		return true
	}
	for _, a := range p.allowed {
		if a.Kind == k.Kind && allows(a, k) {
			return true
		}
	}
	return false
}

func allows(a, k Key) bool {
	switch k.Kind {
	case KindVault, KindAzureKV:
		return urlWithin(a.ID, k.ID)
	case KindGCPKMS:
		return k.ID == a.ID || (strings.HasPrefix(k.ID, strings.TrimRight(a.ID, "/")+"/") && cleanPath(k.ID))
	case KindPGP:
		return PGPKey(k.ID).ID == a.ID
	}
	return k.ID == a.ID
}

// urlWithin reports whether the URL id is at the allowed URL's scheme and
// host (compared as URLs, so that "https://vault:8200@elsewhere" is
// elsewhere) and below its path, with no dot segments or escapes that
// could climb out of it.
func urlWithin(allowed, id string) bool {
	a, err1 := url.Parse(allowed)
	u, err2 := url.Parse(id)
	if err1 != nil || err2 != nil || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || u.RawPath != "" ||
		strings.Contains(id, "%") || !cleanPath(u.Path) {
		return false
	}
	if !strings.EqualFold(a.Scheme, u.Scheme) || !strings.EqualFold(a.Host, u.Host) {
		return false
	}
	ap := strings.TrimRight(a.Path, "/")
	return ap == "" || u.Path == ap || strings.HasPrefix(u.Path, ap+"/")
}

// cleanPath reports whether p has no empty, "." or ".." segment.
func cleanPath(p string) bool {
	if p == "" {
		return true
	}
	trimmed := strings.TrimPrefix(p, "/")
	return trimmed != "" && path.Clean("/"+trimmed) == "/"+trimmed && !slices.Contains(strings.Split(trimmed, "/"), "..")
}

// Keys lists the master keys a SOPS file's metadata names, in its
// top-level lists and its key_groups, sorted and de-duplicated. It reads
// the YAML only: nothing is contacted. root is the document's top-level
// node.
func Keys(root *yaml.Node) []Key {
	sops := mapValue(root, MetadataKey)
	if sops == nil {
		return nil
	}
	keys := keysOf(sops)
	if groups := mapValue(sops, "key_groups"); groups != nil && groups.Kind == yaml.SequenceNode {
		for _, g := range groups.Content {
			keys = append(keys, keysOf(g)...)
		}
	}
	slices.SortFunc(keys, CompareKeys)
	return slices.Compact(keys)
}

// keysOf lists the keys of one group (the sops block or a key group).
func keysOf(group *yaml.Node) []Key {
	var keys []Key
	for _, kind := range []string{KindAge, KindPGP, KindAWSKMS, KindGCPKMS, KindAzureKV, KindVault, KindHCKMS} {
		list := mapValue(group, kind)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range list.Content {
			f := func(name string) string {
				if v := mapValue(e, name); v != nil && v.Kind == yaml.ScalarNode {
					return v.Value
				}
				return ""
			}
			keys = append(keys, keyOf(kind, f))
		}
	}
	return keys
}

// keyOf is the key of one entry of a kind's list, its fields read by f.
func keyOf(kind string, f func(string) string) Key {
	switch kind {
	case KindAge:
		return Key{kind, f("recipient")}
	case KindPGP:
		return PGPKey(f("fp"))
	case KindAWSKMS:
		return AWSKey(f("arn"), f("role"), f("aws_profile"))
	case KindGCPKMS:
		return Key{kind, f("resource_id")}
	case KindAzureKV:
		return AzureKey(f("vault_url"), f("name"), f("version"))
	case KindVault:
		return VaultKey(f("vault_address"), f("engine_path"), f("key_name"))
	}
	return Key{kind, f("key_id")}
}

// mapValue is the value of key in the mapping n, nil when there is none.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
