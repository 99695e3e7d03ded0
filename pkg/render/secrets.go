package render

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/repotool/repotool/pkg/decrypt"
)

// Decrypter decrypts a SOPS-encrypted YAML document in memory (see
// package decrypt).
type Decrypter = decrypt.Decrypter

// minSecretLen is the shortest decrypted string that counts as found
// inside a longer one: shorter ones ("true", "80") would match everywhere.
const minSecretLen = 4

// redactor knows every decrypted secret value (and its base64 form, as
// templates often b64enc them), to tell where a rendered value came from
// (Result.FromSecrets). It never edits output: redacted output and messages
// come from renderings with placeholders (see Result.Redacted).
type redactor struct {
	secrets []string // longest first, so overlapping values are removed whole
	// exact holds every decrypted string, however short, for provenance.
	exact map[string]bool
}

func newRedactor() *redactor { return &redactor{exact: map[string]bool{}} }

// add records every string leaf of decrypted values.
func (r *redactor) add(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			r.add(x)
		}
	case []any:
		for _, x := range v {
			r.add(x)
		}
	case string:
		r.exact[v] = true
		if len(v) >= minSecretLen {
			r.secrets = append(r.secrets, v, base64.StdEncoding.EncodeToString([]byte(v)))
		}
	case nil, bool:
	default:
		if s := fmt.Sprint(v); len(s) >= minSecretLen+2 {
			r.secrets = append(r.secrets, s)
		}
	}
}

func (r *redactor) seal() {
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	r.secrets = slices.Compact(r.secrets)
}

// holds reports whether s is a decrypted value, or contains one (of at
// least minSecretLen characters) or its base64 form.
func (r *redactor) holds(s string) bool {
	if r == nil {
		return false
	}
	if r.exact[s] {
		return true
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			return true
		}
	}
	return false
}
