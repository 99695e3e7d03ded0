package render

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestGuardDecodedForms: a decrypted value that is base64 (a Secret's
// data as a values file gives it) is found as the text it decodes to,
// which is what CEL prints of a Secret param's data read as bytes; a
// short value only as itself, in any case.
func TestGuardDecodedForms(t *testing.T) {
	red := newRedactor()
	plain := "token-of-the-ci-1234"
	red.add(map[string]any{"data": base64.StdEncoding.EncodeToString([]byte(plain)), "short": "Qz7"})
	red.seal()
	g := NewGuard(&Result{red: red})
	for _, msg := range []string{plain, strings.ToUpper(plain), "leak is " + plain[3:], "qz7", "QZ7"} {
		if !g.Quotes(msg) {
			t.Errorf("the guard misses %q", msg)
		}
	}
	for _, msg := range []string{"Qz7 and more", "token", "the-ci"} {
		if g.Quotes(msg) {
			t.Errorf("the guard withholds %q", msg)
		}
	}
}
