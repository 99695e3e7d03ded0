package decrypt

import (
	"strings"
	"testing"
)

// TestForRecipients: a missing key is put in the words of the file's
// recipients. A file encrypted for a KMS key alone said "set
// SOPS_AGE_KEY_FILE" even when it was set; now it says that the age key is
// not one of its recipients, and what the KMS key takes.
func TestForRecipients(t *testing.T) {
	for _, tt := range []struct {
		name       string
		recipients []string
		ageKey     bool
		reason     string
		hint       string
	}{
		{"KMS alone, an age key set", []string{"kms"}, true,
			"none of the available keys can decrypt it (it is encrypted for other recipients: AWS KMS; the age key set here is not one of them)", "AWS credentials allowed to use the KMS key"},
		{"KMS alone, no key", []string{"kms"}, false, "no key is available to decrypt it: it is encrypted for AWS KMS only", "AWS credentials"},
		{"GnuPG and Google Cloud", []string{"gcp_kms", "pgp"}, true, "other recipients: Google Cloud KMS, GnuPG;", "Google Cloud credentials allowed to use the key, or the GnuPG secret key"},
		{"an age recipient among them", []string{"age", "kms"}, true, "no key is available to decrypt it", "set SOPS_AGE_KEY_FILE or SOPS_AGE_KEY"},
		{"a kind sops may add", []string{"future_kms"}, false, "it is encrypted for future_kms only", "the key for its future_kms recipient"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := &Error{File: "f.secret.yaml", Reason: reasonNoKey, Hint: "provide a key the file is encrypted for: set SOPS_AGE_KEY_FILE or SOPS_AGE_KEY for age, or the GnuPG/KMS credentials its recipients need"}
			e.forRecipients(tt.recipients, tt.ageKey)
			if !strings.Contains(e.Reason, tt.reason) || !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("reason %q, hint %q; want %q and %q", e.Reason, e.Hint, tt.reason, tt.hint)
			}
		})
	}
	other := &Error{Reason: "the file was changed after it was encrypted (its MAC does not match)"}
	if other.forRecipients([]string{"kms"}, true); !strings.HasPrefix(other.Reason, "the file was changed") {
		t.Errorf("another reason was rewritten: %q", other.Reason)
	}
}
