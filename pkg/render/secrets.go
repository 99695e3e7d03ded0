package render

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/cmd/sops/formats"
	"github.com/getsops/sops/v3/decrypt"

	"github.com/repotool/repotool/internal/yamlpos"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// Decrypter decrypts a SOPS-encrypted YAML document in memory. file is the
// document's repository path, for messages only: implementations must not
// read or write it.
type Decrypter interface {
	Decrypt(ctx context.Context, file string, data []byte) ([]byte, error)
}

// SOPSDecrypter decrypts with the SOPS library. It is the entry point where
// repotool reads the process environment: keys come from the standard SOPS
// environment (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY, the default age key file,
// GnuPG, and cloud KMS credentials), exactly as the sops CLI finds them.
// Nothing is written to disk.
type SOPSDecrypter struct{}

// Decrypt implements Decrypter. A panic inside the SOPS library (sops
// 3.13 panics, for one, when SOPS_AGE_KEY_CMD is set but empty) becomes a
// DecryptError instead of crashing the caller.
func (SOPSDecrypter) Decrypt(_ context.Context, file string, data []byte) (out []byte, err error) {
	if !sopsfile.IsEncrypted(data) {
		// Never let sops parse it: its parser errors quote content.
		return nil, notEncrypted(file)
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &DecryptError{File: file, Reason: "the SOPS library failed unexpectedly",
				Hint:   "check the SOPS key settings in the environment (an empty SOPS_AGE_KEY_CMD, for one, crashes sops 3.13: unset it)",
				Detail: fmt.Sprint(p), showDetail: true}
		}
	}()
	out, err = decrypt.DataWithFormat(data, formats.Yaml)
	if err != nil {
		return nil, decryptError(file, err)
	}
	return out, nil
}

// DecryptError is a secret values file that could not be decrypted. Its
// message says why in plain words; it never contains decrypted content.
type DecryptError struct {
	File   string
	Reason string
	Hint   string
	// Detail is sops' own message, for debugging. Error includes it only
	// when the reason could not be put in plain words.
	Detail string

	showDetail bool
}

func (e *DecryptError) Error() string {
	s := fmt.Sprintf("%s: cannot decrypt: %s", e.File, e.Reason)
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	if e.showDetail && e.Detail != "" {
		s += " (sops: " + e.Detail + ")"
	}
	return s
}

func decryptError(file string, err error) *DecryptError {
	detail := err.Error()
	var ue sops.UserError
	if errors.As(err, &ue) {
		detail = ue.UserError()
	}
	detail = strings.Join(strings.Fields(stripANSI(detail)), " ")
	e := &DecryptError{File: file, Detail: detail}
	switch d := strings.ToLower(detail); {
	case strings.Contains(d, "sops metadata not found"), strings.Contains(d, "error unmarshalling input yaml"), strings.Contains(d, "error unmarshaling input yaml"):
		return notEncrypted(file)
	case strings.Contains(d, "failed to verify data integrity"), strings.Contains(d, "mac mismatch"), strings.Contains(d, "failed to decrypt original mac"):
		e.Reason = "the file was changed after it was encrypted (its MAC does not match)"
		e.Hint = "restore it from a trusted revision, or re-create it with `sops edit`"
	case strings.Contains(d, "could not decrypt value"), strings.Contains(d, "message authentication failed"):
		e.Reason = "an encrypted value was changed after encryption"
		e.Hint = "restore it from a trusted revision, or re-create it with `sops edit`"
	case strings.Contains(d, "identity did not match"), strings.Contains(d, "incorrect identity"), strings.Contains(d, "no identity matched"):
		e.Reason = "none of the available keys can decrypt it (it is encrypted for other recipients)"
		e.Hint = "use a key the file is encrypted for (SOPS_AGE_KEY_FILE, SOPS_AGE_KEY, GnuPG or cloud KMS credentials), or re-encrypt it for yours with `sops updatekeys`"
	case strings.Contains(d, "failed to load age identities"), strings.Contains(d, "data key"), strings.Contains(d, "successful groups"):
		e.Reason = "no key is available to decrypt it"
		e.Hint = "provide a key the file is encrypted for: set SOPS_AGE_KEY_FILE or SOPS_AGE_KEY for age, or the GnuPG/KMS credentials its recipients need"
	default:
		e.Reason = "sops could not decrypt it"
		e.Hint = "check it with `sops decrypt " + file + "`"
		e.showDetail = true
		e.Detail = yamlpos.Redact(e.Detail) // quoted content, if any
	}
	return e
}

func notEncrypted(file string) *DecryptError {
	return &DecryptError{File: file, Reason: "it is not a SOPS-encrypted YAML file",
		Hint: "encrypt it with `sops --encrypt --in-place " + file + "`"}
}

// stripANSI removes terminal colour codes that sops puts in user errors.
func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < '@' || s[j] > '~') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

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
