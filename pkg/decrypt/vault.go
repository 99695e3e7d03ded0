package decrypt

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/getsops/sops/v3/hcvault"
	"github.com/getsops/sops/v3/keyservice"
	vault "github.com/hashicorp/vault/api"
)

// vaultKey is the SOPS master key of an allowed Vault transit key, used
// with a client that sends nothing to another host than the key's
// address: Vault's client follows one redirect (301, 302, 307) itself,
// with the token, wherever it points, and a Vault the operator allows
// must not hand the token on.
func vaultKey(k *keyservice.VaultKey) (*hcvault.MasterKey, error) {
	u, err := url.Parse(k.VaultAddress)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("the Vault address %s is not a URL", k.VaultAddress)
	}
	next := vault.DefaultConfig().HttpClient.Transport // as the operator's VAULT_CACERT, VAULT_SKIP_VERIFY, ... set it
	hc := &http.Client{
		Transport:     hostOnly{scheme: u.Scheme, host: u.Host, next: next},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	mk := &hcvault.MasterKey{VaultAddress: k.VaultAddress, EnginePath: k.EnginePath, KeyName: k.KeyName}
	hcvault.NewHTTPClient(hc).ApplyToMasterKey(mk)
	return mk, nil
}

// hostOnly sends requests to one scheme and host only.
type hostOnly struct {
	scheme, host string
	next         http.RoundTripper
}

func (h hostOnly) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != h.scheme || r.URL.Host != h.host {
		return nil, fmt.Errorf("the Vault at %s://%s redirected to %s://%s: repotool sends its token to no other host; allow that address "+
			"and name it in the file, or fix the Vault's address", h.scheme, h.host, r.URL.Scheme, r.URL.Host)
	}
	return h.next.RoundTrip(r)
}

// vaultDecrypt decrypts req's data key with its Vault key (vaultKey).
func vaultDecrypt(req *keyservice.DecryptRequest) (*keyservice.DecryptResponse, error) {
	mk, err := vaultKey(req.Key.GetVaultKey())
	if err != nil {
		return nil, err
	}
	mk.EncryptedKey = string(req.Ciphertext)
	plain, err := mk.Decrypt()
	if err != nil {
		return nil, err
	}
	return &keyservice.DecryptResponse{Plaintext: plain}, nil
}

// vaultEncrypt encrypts req's data key with its Vault key (vaultKey).
func vaultEncrypt(req *keyservice.EncryptRequest) (*keyservice.EncryptResponse, error) {
	mk, err := vaultKey(req.Key.GetVaultKey())
	if err != nil {
		return nil, err
	}
	if err := mk.Encrypt(req.Plaintext); err != nil {
		return nil, err
	}
	return &keyservice.EncryptResponse{Ciphertext: []byte(mk.EncryptedKey)}, nil
}
