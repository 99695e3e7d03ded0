package decrypt_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/repotool/repotool/internal/testing/testtool"
	"github.com/repotool/repotool/pkg/decrypt"
	"github.com/repotool/repotool/pkg/sopsfile"
)

// TestVaultRedirectElsewhere: an allowed Vault that answers with a
// redirect to another host (301, 302, 307; Vault's client follows one
// itself, with the token) does not hand the token there: the file fails,
// naming both hosts, and the other host is never contacted.
func TestVaultRedirectElsewhere(t *testing.T) {
	testtool.UseTestKey(t)
	orig := fixtureSecret(t)
	enc := "vault:v1:" + base64.StdEncoding.EncodeToString(testtool.SOPSDataKey(t, orig))
	elsewhere := testtool.NewListener(t, testtool.VaultTransit("ci-vault-token-canary"))
	for _, code := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect} {
		allowed := testtool.NewListener(t, func(w http.ResponseWriter, r *http.Request) {
			// Another host name for the same machine: localhost, not 127.0.0.1.
			http.Redirect(w, r, strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, code)
		})
		hostileEnv(t, allowed.URL)
		file := testtool.SOPSWithKeys(t, orig, map[string][]map[string]string{"hc_vault": {{"vault_address": allowed.URL, "engine_path": "transit",
			"key_name": "sops", "enc": enc, "created_at": "2026-11-01T00:00:00Z"}}}, true)
		policy, err := sopsfile.ParseKeyPolicy("hc_vault=" + allowed.URL)
		if err != nil {
			t.Fatal(err)
		}
		s, err := decrypt.NewSOPS(decrypt.Options{Keys: policy})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Decrypt(context.Background(), hostileFile, file)
		if err == nil || strings.Contains(err.Error(), "ci-vault-token-canary") {
			t.Errorf("%d: err = %v, want a failure that does not name the token", code, err)
		}
		if len(allowed.Requests()) != 1 {
			t.Errorf("%d: the allowed Vault was asked %v", code, allowed.Requests())
		}
	}
	if reqs := elsewhere.Requests(); len(reqs) > 0 {
		t.Errorf("the other host received %v", reqs)
	}
}
