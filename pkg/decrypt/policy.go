package decrypt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/getsops/sops/v3/keyservice"
	"google.golang.org/grpc"

	"github.com/repotool/repotool/pkg/sopsfile"
)

// DefaultKeyTimeout is how long an allowed key service may take to answer
// one request before the file fails, naming it.
const DefaultKeyTimeout = 20 * time.Second

// keyService is the one door between SOPS and every key: SOPS hands it
// each master key of a file (or of a .sops.yaml rule) with its kind and
// identity before anything is contacted. Age keys are used in process with
// the identities the decrypter holds; every other kind goes to SOPS's local
// key service only when the operator's policy allows it, within a time
// limit. A refused key is recorded and never contacted: the file's
// metadata is content under review, and may name any address.
type keyService struct {
	ctx     context.Context
	ages    *ageKeys
	policy  sopsfile.KeyPolicy
	timeout time.Duration
	next    keyservice.KeyServiceClient
	// silent are the keys that did not answer within the time limit
	// earlier in the run (the decrypter's): they are not waited for again.
	silent *sync.Map

	mu      sync.Mutex
	refused []sopsfile.Key
	failed  []string // allowed keys that failed or did not answer, in words
}

func (s *SOPS) newKeyService(ctx context.Context) *keyService {
	if ctx == nil {
		ctx = context.Background()
	}
	return &keyService{ctx: ctx, ages: s.ages(), policy: s.policy, timeout: s.keyTimeout(), next: keyservice.NewLocalClient(), silent: &s.silent}
}

// PolicyOf is d's key policy: a *SOPS's, the zero policy (age only) for
// any other Decrypter. Encryption for a .sops.yaml rule is held to the
// policy of the decrypter that reads the same repository.
func PolicyOf(d Decrypter) sopsfile.KeyPolicy {
	if s, ok := d.(*SOPS); ok && s != nil {
		return s.policy
	}
	return sopsfile.KeyPolicy{}
}

// keyOf is the key a request names.
func keyOf(k *keyservice.Key) sopsfile.Key {
	switch {
	case k.GetAgeKey() != nil:
		return sopsfile.Key{Kind: sopsfile.KindAge, ID: k.GetAgeKey().GetRecipient()}
	case k.GetPgpKey() != nil:
		return sopsfile.PGPKey(k.GetPgpKey().GetFingerprint())
	case k.GetKmsKey() != nil:
		kk := k.GetKmsKey()
		return sopsfile.AWSKey(kk.GetArn(), kk.GetRole(), kk.GetAwsProfile())
	case k.GetGcpKmsKey() != nil:
		return sopsfile.Key{Kind: sopsfile.KindGCPKMS, ID: k.GetGcpKmsKey().GetResourceId()}
	case k.GetAzureKeyvaultKey() != nil:
		a := k.GetAzureKeyvaultKey()
		return sopsfile.AzureKey(a.GetVaultUrl(), a.GetName(), a.GetVersion())
	case k.GetVaultKey() != nil:
		v := k.GetVaultKey()
		return sopsfile.VaultKey(v.GetVaultAddress(), v.GetEnginePath(), v.GetKeyName())
	case k.GetHckmsKey() != nil:
		return sopsfile.Key{Kind: sopsfile.KindHCKMS, ID: k.GetHckmsKey().GetKeyId()}
	}
	return sopsfile.Key{Kind: "unknown"}
}

// errRefused is what SOPS records for a refused key; the file's error is
// built from keyService.refused instead.
type errRefused struct{ key sopsfile.Key }

func (e errRefused) Error() string {
	return "the " + e.key.Words() + " " + e.key.ID + " is not allowed here"
}

// admit decides k: nil when it may be used, else the refusal (recorded).
func (ks *keyService) admit(k sopsfile.Key) error {
	k = k.Used()
	if ks.policy.Allows(k) {
		return nil
	}
	ks.mu.Lock()
	if !slices.Contains(ks.refused, k) {
		ks.refused = append(ks.refused, k)
	}
	ks.mu.Unlock()
	return errRefused{k}
}

func (ks *keyService) Decrypt(_ context.Context, req *keyservice.DecryptRequest, _ ...grpc.CallOption) (*keyservice.DecryptResponse, error) {
	k := keyOf(req.Key)
	if k.Kind == sopsfile.KindAge {
		plain, err := ks.ages.decrypt(k.ID, req.Ciphertext)
		if err != nil {
			return nil, err
		}
		return &keyservice.DecryptResponse{Plaintext: plain}, nil
	}
	if err := ks.admit(k); err != nil {
		return nil, err
	}
	if k.Kind == sopsfile.KindVault {
		return callWithin(ks, k, func() (*keyservice.DecryptResponse, error) { return vaultDecrypt(req) })
	}
	return callWithin(ks, k, func() (*keyservice.DecryptResponse, error) { return ks.next.Decrypt(context.Background(), req) })
}

func (ks *keyService) Encrypt(_ context.Context, req *keyservice.EncryptRequest, _ ...grpc.CallOption) (*keyservice.EncryptResponse, error) {
	k := keyOf(req.Key)
	if err := ks.admit(k); err != nil {
		return nil, err
	}
	if k.Kind == sopsfile.KindAge && sopsfile.AgePluginName(k.ID) == "" {
		return ks.next.Encrypt(context.Background(), req) // X25519 or hybrid: in process
	}
	if k.Kind == sopsfile.KindVault {
		return callWithin(ks, k, func() (*keyservice.EncryptResponse, error) { return vaultEncrypt(req) })
	}
	return callWithin(ks, k, func() (*keyservice.EncryptResponse, error) { return ks.next.Encrypt(context.Background(), req) })
}

// callWithin runs call, an allowed key's request, and gives up when the
// run's context ends or the key takes longer than the time limit: SOPS's
// key clients take no context, so the call is left to finish on its own.
func callWithin[T any](ks *keyService, k sopsfile.Key, call func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	var zero T
	silent := func(when string) (T, error) {
		msg := fmt.Sprintf("the %s %s did not answer within %s%s", k.Words(), k.ID, ks.timeout, when)
		ks.fail(msg)
		return zero, errors.New(msg)
	}
	if _, dead := ks.silent.Load(k); dead {
		return silent(" earlier in this run")
	}
	done := make(chan result, 1)
	go func() {
		v, err := call()
		done <- result{v, err}
	}()
	timer := time.NewTimer(ks.timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			ks.fail(fmt.Sprintf("the %s %s failed", k.Words(), k.ID))
		}
		return r.v, r.err
	case <-timer.C:
		ks.silent.Store(k, true)
		return silent("")
	case <-ks.ctx.Done():
		return zero, ks.ctx.Err()
	}
}

func (ks *keyService) fail(what string) {
	ks.mu.Lock()
	ks.failed = append(ks.failed, what)
	ks.mu.Unlock()
}

// explain puts a failure to recover a data key in the words of the keys
// that were refused or failed, when there were some: the message names
// each key's kind and identity and how to allow it.
func (ks *keyService) explain(e *Error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if len(ks.refused) == 0 && len(ks.failed) == 0 {
		return
	}
	var parts []string
	if len(ks.refused) > 0 {
		refused := slices.Clone(ks.refused)
		slices.SortFunc(refused, sopsfile.CompareKeys)
		var names, flags []string
		for _, k := range refused {
			names = append(names, k.Words()+" "+k.ID)
			flags = append(flags, "--allow-key "+k.String())
		}
		parts = append(parts, "its keys need what repotool does not use unless the operator allows it: "+strings.Join(names, ", "))
		e.Hint = "a key service, gpg or an age plugin is used only when the operator allows it (" + strings.Join(flags, " ") +
			", or REPOTOOL_ALLOW_KEYS); otherwise re-encrypt the file for an age recipient whose identity is set here (see docs/security.md)"
	}
	if len(ks.failed) > 0 {
		parts = append(parts, strings.Join(ks.failed, "; "))
		if e.Hint == "" {
			e.Hint = "check the key service's address and the credentials in the environment, or raise --key-timeout"
		}
	}
	e.Reason = strings.Join(parts, "; ")
	e.showDetail = false
}
